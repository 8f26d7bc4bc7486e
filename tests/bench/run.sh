#!/bin/sh
# run.sh BUILD — every benchmark program built from tests/bench/*.c; prints
# figures (no pass/fail).
B=${1:-build}
for b in "$B"/bench/bench_*; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b"
done
