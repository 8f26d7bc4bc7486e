#!/bin/sh
# test_roundtrip.sh — whatever remat writes it reads back. Every sample (and
# the imported formats: node-link, Kusumoto text, p remat2) goes through
# every graph form remat writes: JSON, data DOT, and the export drawing;
# each reads back to the bytes of the direct JSON conversion, and a plan
# solved on each form is byte-identical to the one solved on the original
# and simulates cleanly. Plans and graphs with figures past 2^53 (peaks,
# budgets, costs past 1e300 summed) read back exactly.
. tests/cli/lib.sh


# solve GRAPH OUT: greedy at 80 % of the baseline (14 of the 15 samples get a
# plan there), plus the status
solve() { rm -f "$2"; "$REMAT" solve "$1" -s greedy -b 80% -o "$2" 2>"$T/serr"; echo $? >"$2.rc"; }

roundtrip() {
    g=$1 name=$2
    "$REMAT" convert "$g" -o "$T/$name.json" 2>"$T/cerr" || { fail "convert $g: $(cat "$T/cerr")"; return; }
    "$REMAT" convert "$g" -f dot -o "$T/$name.dot" 2>"$T/cerr" || { fail "convert $g to dot: $(cat "$T/cerr")"; return; }
    "$REMAT" export "$g" -f dot -o "$T/$name.draw.dot" 2>"$T/cerr" || { fail "export $g: $(cat "$T/cerr")"; return; }
    solve "$g" "$T/$name.p0"
    for form in json dot draw.dot; do
        f="$T/$name.$form"
        "$REMAT" convert "$f" -o "$T/back.json" 2>"$T/cerr" || { fail "$name: $form does not read back: $(cat "$T/cerr")"; continue; }
        cmp -s "$T/back.json" "$T/$name.json" || fail "$name: $form reads back as another graph"
        solve "$f" "$T/$name.p1"
        cmp -s "$T/$name.p0.rc" "$T/$name.p1.rc" || fail "$name: solving the $form form ends differently"
        if [ "$(cat "$T/$name.p1.rc")" = 0 ]; then
            cmp -s "$T/$name.p0" "$T/$name.p1" || fail "$name: the plan solved on the $form form differs"
            "$REMAT" simulate "$f" "$T/$name.p1" >/dev/null 2>"$T/serr" ||
                fail "$name: the plan does not simulate on the $form form: $(cat "$T/serr")"
        fi
    done
}

for g in samples/*.json samples/models/*.json; do
    roundtrip "$g" "$(basename "$g" .json)"
done
# imported formats: what they convert to reads back the same way
M=../shared/data/public/moccasin
[ -f "$M/rl_n100_w0.27_nlv0.75_ed0.2_scd0.14.json" ] && roundtrip "$M/rl_n100_w0.27_nlv0.75_ed0.2_scd0.14.json" rl100
[ -f "$M/cm_VGG16_256_224x224x3_train.json" ] && roundtrip "$M/cm_VGG16_256_224x224x3_train.json" vgg16
roundtrip tests/data/tiny_pfn.txt pfn
printf 'p remat2\nmemlimit 30\nnode 1 cpu 2 mem 10\nnode 2 deps 1 cpu 3 mem 7\nnode 3 deps 1 2 cpu 1 mem 4\nnode 4 deps 3 target\n' >"$T/r.txt"
roundtrip "$T/r.txt" remat2

# ---- figures past 2^53 ---------------------------------------------------------
# three values of 2^53 - 1 bytes: peaks near 2^54.6, still exact
B=9007199254740991
printf '{"format":"remat-graph","name":"big","nodes":[{"id":"a","size":%s},{"id":"b","size":%s,"inputs":["a"]},{"id":"c","size":%s,"inputs":["a","b"]}]}' $B $B $B >"$T/big.json"
run "$REMAT" solve "$T/big.json" -s noremat -b 9000000000000000000 -o "$T/big.plan"
expect_rc 0 "solve with a budget past 2^53"
grep -qF '"budget":9000000000000000000,' "$T/big.plan" || fail "big plan: budget not written exactly"
grep -qF '"peak":27021597764222973,' "$T/big.plan" || fail "big plan: peak not written exactly: $(cat "$T/big.plan")"
run "$REMAT" simulate "$T/big.json" "$T/big.plan"
expect_rc 0 "a plan with figures past 2^53 reads back"
expect_out "^peak +27021597764222973 " "its peak, exact"
expect_out "^budget +9000000000000000000: met" "its budget, exact"
# one off in the last digit is not the same figure
sed 's/"peak":27021597764222973/"peak":27021597764222972/' "$T/big.plan" >"$T/big2.plan"
run "$REMAT" simulate "$T/big.json" "$T/big2.plan"
expect_rc 1 "a peak one byte off"
expect_err "plan states peak 27021597764222972 but the schedule peaks at 27021597764222973" "says which"
# costs near the per-node limit add up past it: the plan still reads back
printf '{"format":"remat-graph","name":"dear","nodes":[{"id":"a","cost":1e300},{"id":"b","cost":1e300,"inputs":["a"]}]}' >"$T/dear.json"
run "$REMAT" solve "$T/dear.json" -s noremat -o "$T/dear.plan"
expect_rc 0 "solve with costs of 1e300"
grep -qF '"cost":2.0000000000000001e+300' "$T/dear.plan" || fail "dear plan: cost $(grep -o '"cost":[^,]*' "$T/dear.plan")"
run "$REMAT" simulate "$T/dear.json" "$T/dear.plan"
expect_rc 0 "a plan costing 2e300 reads back"
"$REMAT" convert "$T/dear.json" -f dot -o "$T/dear.dot" && "$REMAT" convert "$T/dear.dot" -o "$T/dear2.json" &&
    "$REMAT" convert "$T/dear.json" -o "$T/dear1.json" && cmp -s "$T/dear1.json" "$T/dear2.json" ||
    fail "costs of 1e300 do not survive DOT"
finish
