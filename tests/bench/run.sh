#!/bin/sh
# run.sh BUILD — every benchmark program built from tests/bench/*.c; prints
# figures (no pass/fail). bench_solvers writes docs/benchmarks.md; the
# others' figures are appended to it, each under its own heading.
B=${1:-build}
DOC=docs/benchmarks.md
echo "== bench_solvers"
"$B/bench/bench_solvers" "$DOC" || exit 1
for b in "$B"/bench/bench_*; do
    [ -x "$b" ] || continue
    name=$(basename "$b")
    [ "$name" = bench_solvers ] && continue
    echo "== $name"
    out=$("$b" 2>&1)
    echo "$out"
    printf '\n## %s\n\n```\n%s\n```\n' "$name" "$out" >>"$DOC"
done
