#!/bin/sh
# check_deps.sh — the include rule, checked mechanically:
#   src/      headless core: no curses, no gvc (layout), no solvers/, render/, ui/
#   solvers/  only src/ (no curses, no graphviz, no render/ or ui/)
#   render/   src/ plus Graphviz; never curses or ui/
#   inside src/, layers that only look down:
#     base/ (memory, errors, units, clock, text) < graph/ (model, loaders,
#     writers, pairing) < plan/ (simulation, plans, solver interface) <
#     session/ (the explorer's session, jobs, sweep, fit) and replay/
# Exits non-zero naming every offending line.
bad=0
check() { # dir pattern why [file to skip]
    hits=$(find $1 -name '*.[ch]' -o -name '*.cu' | sort | xargs grep -nE "$2" 2>/dev/null | grep -v "^${4:-@none@}:")
    if [ -n "$hits" ]; then
        echo "check-deps: $1/ must not $3:"; echo "$hits"; bad=1
    fi
}
check src '#include *[<"](n?curses|ncursesw/|graphviz/gvc|solvers/|render/|ui/)' "include curses, gvc, solvers/, render/ or ui/"
# solvers/ see only src/ and libc; the exceptions are the MILP/LP engines
# behind the exact solvers (GLPK in checkmate/free.c, CBC/CLP in
# checkmate/milp.c and lp.c), which live in solvers/ for that reason
check solvers '#include *[<"](n?curses|ncursesw/|graphviz/|render/|ui/|cjson/)' "include anything but src/, libc, glpk.h and CBC's C interface"
check render '#include *[<"](n?curses|ncursesw/|ui/|solvers/)' "include curses, solvers/ or ui/"
check src/base '#include *"src/(graph|plan|session|replay)/' "include a layer above base/"
check src/graph '#include *"src/(plan|session|replay)/' "include a layer above graph/"
check src/plan '#include *"src/(session|replay)/' "include session/ or replay/"
check src/replay '#include *"src/session/' "include session/ (replay sits beside it)"
check src/session '#include *"src/replay/' "include replay/ (session sits beside it)"
# paths name their folder from the top: a relative climb would hide a
# dependency from the checks above
for d in src solvers render ui; do check $d '#include *"\.\./' "climb with ../ in an include"; done
# xalloc.c is the one exception: out of memory prints a line and aborts
check src '(^|[^a-z_])(printf|puts|fputs|putchar|fprintf|exit) *\(' "print or exit (only ui/ does)" src/base/xalloc.c
[ $bad -eq 0 ] && echo "check-deps: ok"
exit $bad
