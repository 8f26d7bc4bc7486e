#!/bin/sh
# run.sh SECONDS [HARNESS...] — build the libFuzzer harnesses with clang
# (ASan + UBSan) and run each (default: all) for SECONDS (default 60) from
# its seed corpus, one per core at a time. Crashes and failed assertions
# make the run fail and leave the reproducer in build-fuzz/HARNESS/.
# run.sh --one SECONDS HARNESS runs one (the parallel runner's unit).
B=build-fuzz
if [ "$1" = --one ]; then
    secs=$2; h=$3
    # a directory of its own: libFuzzer writes crash-* into its working one
    rm -rf "$B/$h"; mkdir -p "$B/$h" "$B/corpus_$h"
    (cd "$B/$h" && ../fuzz_$h -max_total_time="$secs" -max_len=65536 -timeout=10 \
        -print_final_stats=1 ../corpus_$h ../../tests/fuzz/corpus/$h >log 2>&1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$h/log")
    found=$(find "$B/$h" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \))
    if [ -n "$found" ]; then
        echo "fuzz $h: found a failing input: $found"
        grep -E "ERROR|SUMMARY" "$B/$h/log" | head -5
        exit 1
    fi
    echo "fuzz $h: ${secs}s, ${runs:-?} inputs, no crash"
    exit 0
fi
set -e
secs=${1:-60}
[ $# -gt 0 ] && shift
harnesses=${*:-graph_json graph_dot plan replay graph_pfn graph_remat2}
NPROC=$(nproc 2>/dev/null || echo 1)
make -s -j"$NPROC" BUILD=$B CC=clang CFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" $B/libremat.a >/dev/null
LIBS="$(pkg-config --libs libcjson libcgraph libgvc) -lncursesw -lpthread -lm"
for h in $harnesses; do
    clang -std=c11 -D_POSIX_C_SOURCE=200809L -I. $(pkg-config --cflags libcjson libcgraph) -g -O1 \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        tests/fuzz/fuzz_$h.c $B/libremat.a $LIBS -o $B/fuzz_$h
done
if printf '%s\n' $harnesses | xargs -P "$NPROC" -n 1 sh "$0" --one "$secs"; then
    echo "fuzz: no crash"
else
    echo "fuzz: a harness found a failing input (above)"
    exit 1
fi
