#!/bin/sh
# run.sh SECONDS [HARNESS...] — build the libFuzzer harnesses with clang
# (ASan + UBSan) and run each (default: all) for SECONDS (default 60) from
# its seed corpus, one after the other. Crashes and failed assertions stop
# the run with a non-zero status and leave the reproducer in build-fuzz/.
set -e
secs=${1:-60}
[ $# -gt 0 ] && shift
harnesses=${*:-graph_json graph_dot plan replay graph_pfn graph_remat2}
B=build-fuzz
make -s BUILD=$B CC=clang CFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" $B/libremat.a >/dev/null
LIBS="$(pkg-config --libs libcjson libcgraph libgvc) -lncursesw -lpthread -lm"
for h in $harnesses; do
    clang -std=c11 -D_POSIX_C_SOURCE=200809L -I. $(pkg-config --cflags libcjson libcgraph) -g -O1 \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        tests/fuzz/fuzz_$h.c $B/libremat.a $LIBS -o $B/fuzz_$h
    mkdir -p $B/corpus_$h
    echo "fuzz $h for ${secs}s"
    (cd $B && ./fuzz_$h -max_total_time="$secs" -max_len=65536 -timeout=10 -print_final_stats=1 \
        corpus_$h ../tests/fuzz/corpus/$h 2>&1 | grep -E "stat::number_of_executed_units|ERROR|SUMMARY|Done" || true)
    # a crash leaves crash-* files; fail if any appeared
    found=$(find $B -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \))
    if [ -n "$found" ]; then
        echo "fuzz $h: found a failing input: $found"; exit 1
    fi
done
echo "fuzz: no crash"
