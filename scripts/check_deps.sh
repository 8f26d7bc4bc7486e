#!/bin/sh
# check_deps.sh — the include rule, checked mechanically:
#   src/      headless core: no curses, no gvc (layout), no solvers/, render/, ui/
#   solvers/  only src/ (no curses, no graphviz, no render/ or ui/)
#   render/   src/ plus Graphviz; never curses or ui/
# Exits non-zero naming every offending line.
bad=0
check() { # dir pattern why [file to skip]
    hits=$(grep -nE "$2" $1/*.c $1/*.h 2>/dev/null | grep -v "^${4:-@none@}:")
    if [ -n "$hits" ]; then
        echo "check-deps: $1/ must not $3:"; echo "$hits"; bad=1
    fi
}
check src '#include *[<"](n?curses|ncursesw/|graphviz/gvc|solvers/|render/|ui/)' "include curses, gvc, solvers/, render/ or ui/"
# solvers/ see only src/ and libc; the one exception is GLPK, the MILP
# engine behind the exact reference solver (checkmate.c)
check solvers '#include *[<"](n?curses|ncursesw/|graphviz/|render/|ui/|cjson/)' "include anything but src/, libc and glpk.h"
check render '#include *[<"](n?curses|ncursesw/|ui/|solvers/)' "include curses, solvers/ or ui/"
# xalloc.c is the one exception: out of memory prints a line and aborts
check src '(^|[^a-z_])(printf|puts|fputs|putchar|fprintf|exit) *\(' "print or exit (only ui/ does)" src/xalloc.c
[ $bad -eq 0 ] && echo "check-deps: ok"
exit $bad
