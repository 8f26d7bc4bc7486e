# lib.sh — assertions for the command-line tests. Source it; $REMAT is the
# binary under test. Each failed check prints why and makes the test fail.
: "${REMAT:=build/remat}"
# Debian's python3 for the checks written in Python (the standard library
# only): the interpreter the tools run on, and it starts in 0.04 s where a
# version manager's shim first on PATH took 0.4 s a call (test_solvers
# validates about 200 plans)
[ -x /usr/bin/python3 ] && python3() { /usr/bin/python3 "$@"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
# run CMD... : captures stdout in $T/out, stderr in $T/err, status in $rc
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }
# fail WHAT: say what failed and count it
fail() { echo "FAIL: $1"; fails=$((fails+1)); }
expect_rc() { [ "$rc" -eq "$1" ] || fail "$2: exit $rc, expected $1; stderr: $(cat "$T/err")"; }
expect_out() { grep -qE -- "$1" "$T/out" || { fail "$2: stdout lacks /$1/"; head -5 "$T/out"; }; }
expect_err() { grep -qE -- "$1" "$T/err" || fail "$2: stderr lacks /$1/: $(cat "$T/err")"; }
expect_one_line_err() { [ "$(wc -l <"$T/err")" -eq 1 ] || fail "$1: stderr is not one line: $(cat "$T/err")"; }
finish() { [ "$fails" -eq 0 ] && echo "all checks passed"; exit "$fails"; }
