#!/bin/sh
# test_core.sh — command-line tests of the core on samples/: info figures
# against the table of docs/samples.md, solve + simulate agreement, the
# Figure 1 recomputation, JSON -> DOT -> JSON round trips, one-line error
# messages with exit statuses, export to dot/svg/png, and sweep's CSV.
. tests/cli/lib.sh

# sample  nodes  edges  baseline-peak  lower-bound  baseline-cost  (as in docs/samples.md)
TABLE='kumar_fig1 5 6 4 3 5
chain32 66 129 35 5 65
skip 20 40 12 6 19
join3 36 69 21 9 33
unet_small 42 87 11390340 8932740 273186817
transformer_small 77 174 12742656 8155136 880803841'


# ---- info and the documented table -----------------------------------------
echo "$TABLE" | {
    f=0
    while read -r s n e p l c; do
        g=samples/$s.json
        "$REMAT" info "$g" >"$T/info" 2>"$T/ierr"
        [ $? -eq 0 ] || { echo "FAIL: info $g failed: $(cat "$T/ierr")"; f=$((f + 1)); continue; }
        grep -qE "^nodes +$n \(" "$T/info" || { echo "FAIL: info $g: node count is not $n"; f=$((f + 1)); }
        grep -qE "^edges +$e\$" "$T/info" || { echo "FAIL: info $g: edges is not $e"; f=$((f + 1)); }
        grep -qE "^baseline +peak $p \(.*; cost $c\$" "$T/info" ||
            { echo "FAIL: info $g: baseline is not peak $p cost $c: $(grep baseline "$T/info")"; f=$((f + 1)); }
        grep -qE "^lower +no schedule peaks below $l \(" "$T/info" ||
            { echo "FAIL: info $g: lower bound is not $l"; f=$((f + 1)); }
        # the documentation's table row states the same figures
        row=$(grep -F "| \`$s.json\` |" docs/samples.md)
        for x in "$n" "$e" "$p" "$l" "$c"; do
            echo "$row" | grep -qE "\| $x( \(|  *\|)" || { echo "FAIL: docs/samples.md row for $s lacks $x"; f=$((f + 1)); }
        done
    done
    exit $f
}
fails=$((fails + $?))

# ---- solve with noremat, then simulate: same peak and cost, the baseline's --
echo "$TABLE" | {
    f=0
    while read -r s n e p l c; do
        g=samples/$s.json
        "$REMAT" solve "$g" -s noremat -o "$T/$s.plan.json" 2>"$T/serr" ||
            { echo "FAIL: solve $g: $(cat "$T/serr")"; f=$((f + 1)); continue; }
        grep -qF "\"peak\":$p," "$T/$s.plan.json" || { echo "FAIL: plan for $s does not state peak $p"; f=$((f + 1)); }
        grep -qF "\"cost\":$c," "$T/$s.plan.json" || { echo "FAIL: plan for $s does not state cost $c"; f=$((f + 1)); }
        "$REMAT" simulate "$g" "$T/$s.plan.json" >"$T/sim" 2>"$T/serr" ||
            { echo "FAIL: simulate $s: $(cat "$T/serr")"; f=$((f + 1)); continue; }
        [ -s "$T/serr" ] && { echo "FAIL: simulate $s wrote to stderr: $(cat "$T/serr")"; f=$((f + 1)); }
        inputs=$("$REMAT" info "$g" | sed -n 's/^nodes .*(input \([0-9]*\),.*/\1/p')
        grep -qE "^valid +yes, $((n - inputs)) steps, 0 recomputations" "$T/sim" ||
            { echo "FAIL: simulate $s: $(head -1 "$T/sim")"; f=$((f + 1)); }
        grep -qE "^peak +$p \(" "$T/sim" || { echo "FAIL: simulate $s: peak is not $p"; f=$((f + 1)); }
        grep -qE "^cost +$c \(baseline $c, \+0\.0%\)" "$T/sim" || { echo "FAIL: simulate $s: cost is not $c"; f=$((f + 1)); }
    done
    exit $f
}
fails=$((fails + $?))

# ---- Kumar et al. Figure 1: recomputing A lowers the peak from 4 to 3 ------
K=samples/kumar_fig1.json
printf '{"format":"remat-plan","version":1,"graph":"kumar-fig1","solver":"hand","budget":3,"schedule":["A","B","C","D","A","E"],"peak":3,"cost":6}\n' >"$T/fig1.json"
run "$REMAT" simulate "$K" "$T/fig1.json" --csv
expect_rc 0 "fig1 recompute plan"
expect_out "^valid +yes, 6 steps, 1 recomputation$" "fig1 recompute: valid"
expect_out "^peak +3 \(3 B\) at step 4 \(D\)" "fig1 recompute: peak 3"
expect_out "^cost +6 \(baseline 5, \+20\.0%\)" "fig1 recompute: cost 6"
expect_out "^budget +3: met" "fig1 recompute: budget met"
[ "$(grep -E '^[0-9]+,' "$T/out" | cut -d, -f3 | tr '\n' ' ')" = "1 2 2 3 2 3 " ] ||
    fail "fig1 recompute: curve is not 1 2 2 3 2 3: $(grep -E '^[0-9]+,' "$T/out" | tr '\n' ' ')"
# the same schedule claiming the wrong peak is caught
sed 's/"peak":3/"peak":2/' "$T/fig1.json" >"$T/fig1bad.json"
run "$REMAT" simulate "$K" "$T/fig1bad.json"
expect_rc 1 "wrong stated peak"
expect_err "fig1bad\.json: plan states peak 2 but the schedule peaks at 3" "wrong stated peak"
expect_one_line_err "wrong stated peak"
# a plan over its own budget exits 3
sed 's/"budget":3/"budget":2/' "$T/fig1.json" >"$T/fig1over.json"
run "$REMAT" simulate "$K" "$T/fig1over.json"
expect_rc 3 "plan over its budget"
expect_out "^budget +2: EXCEEDED" "plan over its budget"

# ---- JSON -> DOT -> JSON is byte-identical ---------------------------------
for g in samples/*.json; do
    "$REMAT" convert "$g" -o "$T/a.json" 2>"$T/cerr" || { fail "convert $g: $(cat "$T/cerr")"; continue; }
    "$REMAT" convert "$g" --format dot -o "$T/a.dot" 2>"$T/cerr" || { fail "convert $g to dot: $(cat "$T/cerr")"; continue; }
    "$REMAT" convert "$T/a.dot" -o "$T/b.json" 2>"$T/cerr" || { fail "convert $g back from dot: $(cat "$T/cerr")"; continue; }
    cmp -s "$T/a.json" "$T/b.json" || fail "$g: JSON -> DOT -> JSON differs from JSON -> JSON"
    "$REMAT" convert "$T/a.json" -o "$T/c.json" 2>/dev/null
    cmp -s "$T/a.json" "$T/c.json" || fail "$g: writing the written JSON again changes it"
    # a DOT name for -o picks DOT without --format
    "$REMAT" convert "$g" -o "$T/d.dot" 2>/dev/null && cmp -s "$T/a.dot" "$T/d.dot" || fail "$g: -o x.dot is not DOT"
done
# generated samples are stored exactly as the writer writes them
for s in chain32 skip join3 unet_small transformer_small; do
    "$REMAT" convert "samples/$s.json" | cmp -s - "samples/$s.json" || fail "samples/$s.json is not in the writer's form"
done
# awkward text: quotes, backslashes, a newline, an exponent cost, explicit outputs
cat >"$T/odd.json" <<'EOF'
{"format":"remat-graph","name":"odd \"g\"","source":"line1\nline2 back\\slash","nodes":[
{"id":"a\\b","op":"in\"put","phase":"input","size":3},
{"id":"q\"x","cost":0.5,"size":0,"inputs":["a\\b"]},
{"id":"n-é","cost":1e20,"size":9007199254740992,"inputs":["q\"x"],"workspace":7},
{"id":"%1","inputs":["n-é"]}
],"outputs":["%1","q\"x"]}
EOF
"$REMAT" convert "$T/odd.json" -o "$T/o1.json" && "$REMAT" convert "$T/odd.json" -f dot -o "$T/o.dot" &&
    "$REMAT" convert "$T/o.dot" -o "$T/o2.json" && cmp -s "$T/o1.json" "$T/o2.json" ||
    fail "odd ids/text: JSON -> DOT -> JSON differs"

# ---- errors: exit status, one line on stderr, naming the file --------------
# check_err STATUS FILE PATTERN WHAT — after `run`
check_err() {
    expect_rc "$1" "$4"
    expect_one_line_err "$4"
    grep -qF -- "$2" "$T/err" || fail "$4: stderr does not name $2: $(cat "$T/err")"
    expect_err "$3" "$4"
}
printf '{\n  "format": "remat-graph",\n  "version": 1 "name": "x",\n  "nodes": [{"id": "a"}]\n}\n' >"$T/comma.json"
run "$REMAT" info "$T/comma.json"
check_err 1 comma.json 'comma\.json:3:[0-9]+: invalid JSON' "missing comma on line 3"
printf '{"format": "remat-graph",\n "nodes": [{"id": "a"},\n  {"id": "b" "inputs": ["a"]}]}\n' >"$T/comma2.json"
run "$REMAT" info "$T/comma2.json"
check_err 1 comma2.json 'comma2\.json:3:14: invalid JSON' "missing comma inside a node on line 3"
printf '{"format": "remat-graph", "nodes": [{"id": "a"}\n' >"$T/trunc.json"
run "$REMAT" info "$T/trunc.json"
check_err 1 trunc.json 'trunc\.json:[0-9]+:[0-9]+: invalid JSON: unexpected end' "truncated JSON"
printf 'digraph g {\n  a -> b;\n  b -> -> c;\n}\n' >"$T/bad.dot"
run "$REMAT" info "$T/bad.dot"
check_err 1 bad.dot "bad\.dot:3:[0-9]+: invalid DOT" "malformed DOT"
printf '{"format":"remat-graph","nodes":[{"id":"x","phase":"input"},{"id":"a","inputs":["x","c"]},{"id":"b","inputs":["a"]},{"id":"c","inputs":["b"]},{"id":"d","inputs":["c"]}]}' >"$T/cycle.json"
run "$REMAT" info "$T/cycle.json"
check_err 1 cycle.json "cycle: .*'(a|b|c)'.*acyclic" "cycle"
grep -q "'x'\|'d'" "$T/err" && fail "cycle message names a node off the cycle: $(cat "$T/err")"
printf 'digraph g {\n a -> b;\n b -> a;\n}\n' >"$T/cycle.dot"
run "$REMAT" info "$T/cycle.dot"
check_err 1 cycle.dot "cycle: '(a|b)' -> '(a|b)' -> '(a|b)'" "cycle in DOT"
printf '{"format":"remat-graph","nodes":[{"id":"a"},{"id":"b","inputs":["zz"]}]}' >"$T/unknown.json"
run "$REMAT" info "$T/unknown.json"
check_err 1 unknown.json "nodes\[1\] \(id 'b'\): unknown input id 'zz'" "unknown input id"
printf '{"format":"remat-graph","nodes":[{"id":"a"},{"id":"b"},{"id":"a"}]}' >"$T/dup.json"
run "$REMAT" info "$T/dup.json"
check_err 1 dup.json "nodes\[2\]: duplicate id 'a'" "duplicate id"
printf '{"format":"remat-graph","nodes":[{"id":"a"},{"id":"b","size":-4}]}' >"$T/neg.json"
run "$REMAT" info "$T/neg.json"
check_err 1 neg.json "nodes\[1\]\.size" "negative size"
printf 'digraph g { a [size=-1]; }\n' >"$T/neg.dot"
run "$REMAT" info "$T/neg.dot"
check_err 1 neg.dot "node 'a': size '-1'" "negative size in DOT"
printf '{"format":"remat-graph","nodes":[]}' >"$T/empty.json"
run "$REMAT" info "$T/empty.json"
check_err 1 empty.json "empty graph" "empty graph"
: >"$T/blank.json"
run "$REMAT" info "$T/blank.json"
check_err 1 blank.json "blank\.json:1:1: empty file" "empty file"
run "$REMAT" info "$T/no-such-file.json"
check_err 1 no-such-file.json "cannot open" "missing file"
run "$REMAT" solve "$K" -s noremat -b 2
check_err 3 kumar_fig1.json "budget 2" "budget below the smallest peak"
[ -s "$T/out" ] && fail "a solve over budget still wrote a plan"
run "$REMAT" solve "$K" -s no-such-solver
expect_rc 2 "unknown solver"
expect_one_line_err "unknown solver"
expect_err "unknown solver 'no-such-solver'" "unknown solver"
run "$REMAT" solve "$K" -s noremat -O bogus=1
check_err 2 kumar_fig1.json "no option 'bogus'" "unknown solver option"
printf '{"format":"remat-plan","version":1,"graph":"kumar-fig1","schedule":["A","B","C","Q","E"]}\n' >"$T/unkplan.json"
run "$REMAT" simulate "$K" "$T/unkplan.json"
check_err 1 unkplan.json "schedule\[3\]: unknown node id 'Q'" "plan naming an unknown node"
printf '{"format":"remat-plan","version":1,"graph":"kumar-fig1","schedule":["A","C","B","D","E"]}\n' >"$T/order.json"
run "$REMAT" simulate "$K" "$T/order.json"
check_err 1 order.json "step 2 \(C\): reads a value no earlier step produced: 'B'" "schedule reading before production"
printf '{"format":"remat-plan","version":1,"graph":"kumar-fig1","schedule":["A","B","C","D"]}\n' >"$T/noout.json"
run "$REMAT" simulate "$K" "$T/noout.json"
check_err 1 noout.json "output 'E' is never produced" "schedule missing an output"
run "$REMAT" transform samples/chain32.json
check_err 1 chain32.json "already has loss or bwd nodes" "transform of a training graph"
run "$REMAT" info "$K" --no-such-option
expect_rc 2 "unknown option"
expect_one_line_err "unknown option"
run "$REMAT" no-such-command
expect_rc 2 "unknown command"
expect_one_line_err "unknown command"

# ---- --train is explicit and equals `transform` -----------------------------
run "$REMAT" info "$K" --train
expect_rc 0 "info --train"
expect_out "^nodes +11 \(input 0, fwd 5, loss 1, bwd 5\)" "info --train: training graph"
"$REMAT" transform "$K" -o "$T/k.train.json" 2>/dev/null
"$REMAT" info "$T/k.train.json" >"$T/i2" 2>&1
cmp -s "$T/out" "$T/i2" || fail "info --train differs from info on the transformed file"

# ---- export --------------------------------------------------------------------
for fmt in dot svg png; do
    run "$REMAT" export samples/skip.json --format "$fmt" -o "$T/skip.$fmt"
    expect_rc 0 "export $fmt"
    [ -s "$T/skip.$fmt" ] || fail "export $fmt wrote nothing"
done
grep -q '<svg' "$T/skip.svg" || fail "export svg has no <svg"
[ "$(head -c 8 "$T/skip.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "export png lacks the PNG signature"
dot -Tsvg "$T/skip.dot" >"$T/redraw.svg" 2>"$T/doterr" || fail "dot -Tsvg cannot read the exported DOT: $(cat "$T/doterr")"
grep -q '<svg' "$T/redraw.svg" || fail "dot -Tsvg on the exported DOT made no SVG"
"$REMAT" solve "$K" -s noremat -o "$T/kp.json" 2>/dev/null
run "$REMAT" export "$K" --plan "$T/fig1.json" -f dot -o "$T/kp.dot"
expect_rc 0 "export with a plan"
dot -Tsvg "$T/kp.dot" >/dev/null 2>&1 || fail "dot cannot read the export with a plan"
run "$REMAT" export "$K" -f gif -o "$T/k.gif"
expect_rc 2 "export to an unknown format"
expect_one_line_err "export to an unknown format"

# the format from the file's name; a name that does not say is refused
run "$REMAT" export "$K" -o "$T/k.svg"
expect_rc 0 "export: format from .svg"
grep -q '<svg' "$T/k.svg" || fail "export -o k.svg did not write SVG"
expect_err "wrote .*k\.svg \(svg\)" "export: says the format it inferred"
run "$REMAT" export "$K" -o "$T/k.pdf"
expect_rc 2 "export: an extension it cannot write"
expect_err "remat export: cannot tell the format of '.*k\.pdf' from its name: use \.dot, \.gv, \.svg or \.png, or --format" "export: unknown extension"
expect_one_line_err "export: unknown extension"

# ---- each command takes only its own options ------------------------------------
run "$REMAT" info "$K" --points 3
expect_rc 2 "info --points"
expect_err "^remat info: option '--points' does not apply to info \(see 'remat help'\)$" "info --points refused"
expect_one_line_err "info --points"
run "$REMAT" solve "$K" -s greedy --memory 1GiB
expect_rc 2 "solve --memory"
expect_err "option '--memory' does not apply to solve" "solve --memory refused"
run "$REMAT" list-solvers --curve
expect_rc 2 "list-solvers --curve"

# ---- simulate: --curve draws, --csv lists ---------------------------------------------
run "$REMAT" simulate "$K" "$T/fig1.json" --curve --width 12 --height 4
expect_rc 0 "simulate --curve"
expect_out '^ +3 B \|---#-#$' "simulate --curve: the budget line and the peaks"
expect_out '^ +0 B \+------$' "simulate --curve: the time axis"
grep -q '^[0-9]*,' "$T/out" && fail "simulate --curve printed CSV"

# ---- sweep: a table for people, CSV with --csv -------------------------------------
run "$REMAT" sweep samples/chain32.json -s noremat --points 2
expect_rc 0 "sweep table"
expect_out '^budget +peak +cost +overhead +steps +status$' "sweep table: header"
expect_out '^5 B \(5\) +35 B \(35\) +65 +\+0\.00% +65 +over$' "sweep table: the lower bound, over"
expect_out '^35 B \(35\) +35 B \(35\) +65 +\+0\.00% +65 +ok$' "sweep table: the baseline peak, ok"

# ---- sweep: header and one row per point -----------------------------------------
run "$REMAT" sweep samples/chain32.json -s noremat --points 5 --csv
expect_rc 0 "sweep"
[ "$(head -1 "$T/out")" = "budget,peak,cost,overhead_pct,steps,status" ] || fail "sweep header: $(head -1 "$T/out")"
[ "$(wc -l <"$T/out")" -eq 6 ] || fail "sweep --points 5 printed $(($(wc -l <"$T/out") - 1)) rows"
[ "$(grep -cE '^[0-9]+,35,65,0\.00,65,(ok|over)$' "$T/out")" -eq 5 ] || fail "sweep rows: $(cat "$T/out")"
sed -n 2p "$T/out" | grep -q '^5,' || fail "sweep does not start at the lower bound 5"
tail -1 "$T/out" | grep -q '^35,35,65,0.00,65,ok$' || fail "sweep does not end at the baseline peak: $(tail -1 "$T/out")"

# ---- solve --budget min: the tightest budget the solver reaches, its cheapest plan there
# greedy reaches chain32's peak bound (5): proven tightest; the plan validates
run "$REMAT" solve samples/chain32.json -s greedy --budget min -o "$T/min.json"
expect_rc 0 "solve --budget min (greedy)"
expect_err '^greedy: tightest budget reached 5 B \(14\.3% of the baseline peak\); no schedule peaks lower' \
    "solve --budget min: at the peak bound"
[ "$(python3 tests/validate.py samples/chain32.json "$T/min.json" | cut -d' ' -f1-2)" = "ok 5" ] ||
    fail "solve --budget min: the plan does not validate at peak 5"
# chen cannot reach the bound: the lowest peak it finds (13), and no plan of
# its at that budget is cheaper than the one given
run "$REMAT" solve samples/chain32.json -s chen --budget min -o "$T/min2.json"
expect_rc 0 "solve --budget min (chen)"
expect_err '^chen: tightest budget reached 13 B ' "solve --budget min: chen's lowest peak"
expect_err '; the peak bound is 5 B \(14\.3%\): the solver fell short or the bound is loose$' "solve --budget min: the bound beside it"
v=$(python3 tests/validate.py samples/chain32.json "$T/min2.json")
[ "$(echo "$v" | cut -d' ' -f1-2)" = "ok 13" ] || fail "solve --budget min (chen): $v"
"$REMAT" solve samples/chain32.json -s chen --budget 13 -o "$T/at13.json" 2>/dev/null
c13=$(python3 tests/validate.py samples/chain32.json "$T/at13.json" | cut -d' ' -f3)
[ "$(echo "$v" | cut -d' ' -f3)" -le "$c13" ] || fail "solve --budget min (chen) dearer than chen at 13 B ($v, $c13)"
# other commands do not take it
run "$REMAT" sweep samples/chain32.json --budget min
[ "$rc" -ne 0 ] || fail "sweep --budget min accepted"

finish
