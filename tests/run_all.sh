#!/bin/sh
# run_all.sh BUILD — every unit test binary and the command-line tests of one
# build, then one summary line "N passed, N failed".
B=${1:-build}
mkdir -p "$B/tests"
# sanitizer builds: Graphviz's and the font stack's process-long caches are
# not leaks of ours (tests/lsan.supp); ignored by plain builds
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
pass=0; failn=0
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    if "$t" >"$B/tests/$(basename "$t").log" 2>&1; then
        pass=$((pass + 1)); echo "ok   unit $(basename "$t")"
    else
        failn=$((failn + 1)); echo "FAIL unit $(basename "$t")"; tail -20 "$B/tests/$(basename "$t").log"
    fi
done
for t in tests/cli/test_*.sh; do
    [ -f "$t" ] || continue
    if REMAT="$B/remat" sh "$t" >"$B/tests/$(basename "$t").log" 2>&1; then
        pass=$((pass + 1)); echo "ok   cli  $(basename "$t")"
    else
        failn=$((failn + 1)); echo "FAIL cli  $(basename "$t")"; tail -20 "$B/tests/$(basename "$t").log"
    fi
done
echo "$B: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
