#!/bin/sh
# run_all.sh BUILD [TEST...] — every unit test binary and the command-line
# tests of one build (or only the ones named: test_session,
# test_keystorm.sh), TEST_JOBS at a time (default: one per core), the
# slowest of the last run first; a line per test with its seconds as it
# ends, the logs of the failed ones, then "BUILD: N passed, N failed".
# Tests may run side by side because none depends on the machine's speed
# (docs/testing.md) and each keeps its files in a directory of its own.
#
# run_all.sh --one BUILD NAME runs one test (the parallel runner's unit).
if [ "$1" = --one ]; then
    B=$2; name=$3; log="$B/tests/$name.log"
    t0=$(date +%s)
    case "$name" in
    *.sh) REMAT="$B/remat" sh "tests/cli/$name" >"$log" 2>&1; rc=$?; kind=cli ;;
    *) "$B/tests/$name" >"$log" 2>&1; rc=$?; kind=unit ;;
    esac
    secs=$(($(date +%s) - t0))
    echo "$secs" >"$B/tests/$name.secs"
    echo "$rc" >"$B/tests/$name.rc"
    if [ "$rc" -eq 0 ]; then
        printf 'ok   %-4s %s (%d s)\n' $kind "$name" "$secs"
    else
        printf 'FAIL %-4s %s (%d s, exit %d)\n' $kind "$name" "$secs" "$rc"
    fi
    exit 0
fi
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
JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
# wanted NAME: 1 when no names were given or NAME is one of them
wanted() {
    [ -z "$only" ] && return 0
    case " $only " in *" $1 "*) return 0 ;; esac
    return 1
}
only="$*"
names=
for t in "$B"/tests/test_* tests/cli/test_*.sh; do
    n=$(basename "$t")
    case "$n" in *.log | *.secs | *.rc) continue ;; esac
    case "$t" in tests/cli/*) [ -f "$t" ] ;; *) [ -x "$t" ] ;; esac || continue
    wanted "$n" || continue
    rm -f "$B/tests/$n.rc"
    names="$names $n"
done
# slowest first: seconds of the last run; without one (a fresh build), the
# ones known to be slow first, then the rest
slow="test_joint.sh test_optimality test_tui.sh test_solvers.sh test_checkmate test_degenerate test_train.sh test_auto test_keystorm.sh"
for n in $names; do
    s=$(cat "$B/tests/$n.secs" 2>/dev/null) || {
        s=0; k=1000
        for x in $slow; do
            [ "$x" = "$n" ] && s=$k
            k=$((k - 1))
        done
    }
    echo "$s $n"
done | sort -k1,1nr -k2 | cut -d' ' -f2 |
    xargs -P "$JOBS" -n 1 sh "$0" --one "$B"
pass=0; failn=0
for n in $names; do
    if [ "$(cat "$B/tests/$n.rc" 2>/dev/null)" = 0 ]; then
        pass=$((pass + 1))
    else
        failn=$((failn + 1))
        echo "---- $n (the log's end; all of it in $B/tests/$n.log)"
        tail -20 "$B/tests/$n.log"
    fi
done
echo "$B: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
