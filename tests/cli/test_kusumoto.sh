#!/bin/sh
# test_kusumoto.sh — the lower-set DP solvers through the command line:
# plans on the teaching samples and on ResNet-18 (kusumoto-approx) are
# re-validated by tests/validate.py and meet their budgets; the memory-
# centric strategy peaks no higher than the time-centric one; a forward-only
# graph is refused; a wide forward part exceeds the exact solver's lower-set
# cap with a message that points to kusumoto-approx.
. tests/cli/lib.sh
for g in samples/chain32.json samples/skip.json samples/transformer_small.json \
         samples/models/resnet18.json; do
    for s in kusumoto-exact kusumoto-approx; do
        [ "$g" = samples/models/resnet18.json ] && [ "$s" = kusumoto-exact ] && continue
        for b in 90% 75%; do
            run "$REMAT" solve "$g" --solver "$s" --budget "$b" -o "$T/plan.json"
            expect_rc 0 "$s on $g at $b"
            python3 tests/validate.py "$g" "$T/plan.json" >"$T/v" || {
                fail "$s on $g at $b: $(cat "$T/v")"; }
            grep -q '"budget"' "$T/plan.json" || fail "plan lacks its budget"
        done
    done
done
# memory-centric: lowest peak, never above time-centric at no budget
peak_of() { sed -n 's/.*: peak \([0-9]*\) .*/\1/p' "$T/err"; }
run "$REMAT" solve samples/models/resnet18.json --solver kusumoto-approx -o "$T/t.json"
expect_rc 0 "time-centric, no budget"
pt=$(peak_of)
run "$REMAT" solve samples/models/resnet18.json --solver kusumoto-approx -O strategy=memory -o "$T/m.json"
expect_rc 0 "memory-centric, no budget"
pm=$(peak_of)
python3 tests/validate.py samples/models/resnet18.json "$T/m.json" >"$T/v" || {
    fail "memory-centric plan: $(cat "$T/v")"; }
[ -n "$pt" ] && [ -n "$pm" ] && [ "$pm" -lt "$pt" ] || {
    fail "memory-centric peak $pm not below time-centric $pt"; }
# forward-only graph: refused in one line naming the graph
run "$REMAT" solve samples/kumar_fig1.json --solver kusumoto-exact -o "$T/x.json"
expect_rc 1 "forward-only graph"
expect_one_line_err "forward-only graph"
expect_err "kumar_fig1.json: kusumoto-exact: not a training graph" "refusal says why"
# 14 branches joined: 2^14 + 1 lower sets
{
    printf '{"format": "remat-graph", "version": 1, "name": "wide", "nodes": [{"id": "x", "phase": "input"}'
    ins=""
    for i in $(seq 0 13); do
        printf ', {"id": "b%d", "inputs": ["x"]}' "$i"
        ins="$ins\"b$i\","
    done
    printf ', {"id": "j", "inputs": [%s]}]}\n' "${ins%,}"
} >"$T/wide_fwd.json"
run "$REMAT" solve "$T/wide_fwd.json" --train --solver kusumoto-exact -o "$T/w.json"
expect_rc 1 "lower-set cap"
expect_one_line_err "lower-set cap"
expect_err "wide_fwd.json: kusumoto-exact: .*lower sets \(more than 10000 found\) exceeds the limit max_lower_sets=10000; use kusumoto-approx" "cap message"
run "$REMAT" solve "$T/wide_fwd.json" --train --solver kusumoto-exact -O max_lower_sets=100 -o "$T/w.json"
expect_rc 1 "lower-set cap 100"
expect_err "exceeds the limit max_lower_sets=100; use kusumoto-approx" "cap message names the limit"
run "$REMAT" solve "$T/wide_fwd.json" --train --solver kusumoto-approx -o "$T/w.json"
expect_rc 0 "approx on the wide graph"
# exact searches every lower set, approx a subset: wherever approx meets a
# budget exact does too, at no more cost (time) or no higher peak (memory)
for g in samples/models/resnet18.json samples/models/resnet50.json samples/models/unet.json \
         samples/models/siamese.json samples/chain32.json samples/join3.json samples/skip.json; do
    for b in 60% 75%; do
        for st in time memory; do
            "$REMAT" solve "$g" --solver kusumoto-approx --budget $b -O strategy=$st -o "$T/a.json" 2>/dev/null
            ra=$?
            "$REMAT" solve "$g" --solver kusumoto-exact --budget $b -O strategy=$st -o "$T/x.json" 2>/dev/null
            rx=$?
            [ $ra -eq 0 ] || continue
            [ $rx -eq 0 ] || { fail "$g $b $st: approx fits, exact exits $rx"; continue; }
            python3 - "$T/a.json" "$T/x.json" $st <<'PY' || fail "$g $b $st: exact worse than approx"
import json, sys
a = json.load(open(sys.argv[1])); x = json.load(open(sys.argv[2]))
key = "cost" if sys.argv[3] == "time" else "peak"
sys.exit(0 if x[key] <= a[key] else 1)
PY
        done
    done
done
finish
