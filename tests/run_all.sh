#!/bin/sh
# run_all.sh BUILD [TEST...] — every unit test binary and the command-line
# tests of one build (or only the ones named: test_session,
# test_keystorm.sh), then one summary line "N passed, N failed".
B=${1:-build}
[ $# -gt 0 ] && shift
mkdir -p "$B/tests"
# sanitizer builds: Graphviz's and the font stack's process-long caches are
# not leaks of ours (tests/lsan.supp); ignored by plain builds
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
# ThreadSanitizer builds: races inside third-party libraries only
# (tests/tsan.supp); a report fails the test (exit status 66)
TSAN_OPTIONS="suppressions=$(pwd)/tests/tsan.supp:exitcode=66:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export TSAN_OPTIONS
# wanted NAME: 1 when no names were given or NAME is one of them
wanted() {
    [ -z "$only" ] && return 0
    case " $only " in *" $1 "*) return 0 ;; esac
    return 1
}
only="$*"
pass=0; failn=0
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    wanted "$(basename "$t")" || continue
    if "$t" >"$B/tests/$(basename "$t").log" 2>&1; then
        pass=$((pass + 1)); echo "ok   unit $(basename "$t")"
    else
        failn=$((failn + 1)); echo "FAIL unit $(basename "$t")"; tail -20 "$B/tests/$(basename "$t").log"
    fi
done
for t in tests/cli/test_*.sh; do
    [ -f "$t" ] || continue
    wanted "$(basename "$t")" || continue
    if REMAT="$B/remat" sh "$t" >"$B/tests/$(basename "$t").log" 2>&1; then
        pass=$((pass + 1)); echo "ok   cli  $(basename "$t")"
    else
        failn=$((failn + 1)); echo "FAIL cli  $(basename "$t")"; tail -20 "$B/tests/$(basename "$t").log"
    fi
done
echo "$B: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
