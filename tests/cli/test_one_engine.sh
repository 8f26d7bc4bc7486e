#!/bin/sh
# test_one_engine.sh — every path gives the same answer: the explorer's
# slider, once its plan is final, shows the plan `remat solve` gives (the
# same schedule, with a deterministic search: iteration limits, no timed
# member), the compare view's auto row says what the status line says,
# `remat sweep` at a budget gives `remat solve`'s plan there, `fit` and
# `sweep` default to auto like `solve`, and `solve` without -o prints the
# summary, not the plan. Waits only catch hangs (minutes).
. tests/cli/lib.sh

# auto made deterministic: no member cut by time (a long limit), FastSA
# bounded by iterations, no CBC-timed member (cover, exact)
DET="-O time_limit=600 -O fastsa=iters=20000 -O exact=off -O members=noremat,chen,echo,greedy,revolve,join,kusumoto-approx,twremat,fastsa"
G=samples/models/resnet18.json

# ---- solve: the summary without -o, the plan with -o - -----------------
run $REMAT solve samples/kumar_fig1.json --budget 3
expect_rc 0 "solve without -o"
[ -s "$T/out" ] && fail "solve without -o printed the plan: $(head -c 200 "$T/out")"
expect_err "^auto \\(.*'s plan\\): peak 3 " "solve without -o: summary"
run $REMAT solve samples/kumar_fig1.json --budget 3 -o -
expect_out '"format": *"remat-plan"' "solve -o -: the plan on standard output"
run $REMAT solve samples/kumar_fig1.json --solver greedy --budget 3 --recomputed
expect_out "^recomputed 1 node, dearest first" "solve --recomputed: count"
expect_out "^  A +2 +1 " "solve --recomputed: A runs twice, one extra unit of cost"

# ---- sweep and fit default to auto and give solve's plan ----------------
run $REMAT sweep samples/unet_small.json --points 3 --csv $DET
expect_rc 0 "sweep without --solver"
sed -n 3p "$T/out" >"$T/mid"    # the middle budget's row
b=$(cut -d, -f1 "$T/mid")
run $REMAT solve samples/unet_small.json --budget "$b" $DET -o "$T/mid.json"
expect_rc 0 "solve at the sweep's middle budget"
python3 - "$T/mid" "$T/mid.json" <<'PY' || fail "sweep's row differs from solve's plan at that budget"
import json, sys
row = open(sys.argv[1]).read().strip().split(",")
plan = json.load(open(sys.argv[2]))
assert int(row[1]) == plan["peak"], (row, plan["peak"])
assert float(row[2]) == float(plan["cost"]), (row, plan["cost"])
PY
run $REMAT fit samples/unet_small.json --memory 1KiB $DET
expect_out "^auto " "fit defaults to auto"

# ---- the explorer: jump to 70 %, final, the same plan as the command line
. tests/cli/tmux.sh
start "$G" $DET
check "final" "opening: the baseline's answer is final" 3000
keys b
type_line "70%"
check "refining|final" "70 %: an answer at once" 600
check "final [0-9.]+s" "70 %: final" 6000
status_line >"$T/status"
keys e
type_line "$T/tui.json"
check "wrote $T/tui.json" "the shown plan exported"
run $REMAT solve "$G" --budget 70% $DET -o "$T/cli.json"
expect_rc 0 "remat solve at 70 %"
python3 - "$T/tui.json" "$T/cli.json" <<'PY' || fail "the explorer's final plan is not remat solve's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["schedule"] == b["schedule"], "schedules differ: %d vs %d steps" % (len(a["schedule"]), len(b["schedule"]))
assert a["peak"] == b["peak"] and a["cost"] == b["cost"]
PY
# the compare view's auto row is the status line's plan
cost=$(grep -oE 'cost [+-][0-9.]+%' "$T/status" | head -1 | grep -oE '[+-][0-9.]+')
keys Tab Tab Tab Tab
check "Every solver at budget" "compare view"
check "^\\* +auto +peak .* cost +\\$cost%" "compare view: auto's row says cost $cost% like the status line" 600
# going back to a budget already solved shows its final plan at once
keys b
type_line "90%"
check "final [0-9.]+s" "90 %: final" 6000
keys b
type_line "70%"
check "final [0-9.]+s \\(cached\\)" "back to 70 %: the final plan at once, from the cache"
quit "explorer after the one-engine checks"
finish
