# test_train.sh — training with a plan (tools/remat_torch.py,
# tools/train_with_plan.py) and the fast export (export_torch.py --trace
# fake). With Debian's python3 and torch: SGD steps through the plan's
# schedule give plain autograd's loss at every step and a measured peak
# within 5 % of the simulated one, on tiny_cnn (batch norm) and tiny_gpt
# (dropout, recomputed with the same mask), without recomputation and with
# recomputing plans, batch norm's running statistics equal to eager's after
# every step; a fake-tensor export equals a real trace at a batch the
# samples do not have; a plan for another batch, inputs of another batch and
# a graph another model made are refused, saying which. Skipped without torch.
. tests/cli/lib.sh
PY=/usr/bin/python3
if ! $PY -c "import torch, functorch.compile" 2>/dev/null; then
    echo "(python3-torch not installed: training checks skipped)"
    finish
fi
J=samples/models/joint
# train GRAPH PLAN WHAT: exit 0, losses equal eager's step by step, measured
# peak within 5 % of simulated, a recomputing plan recomputes
train() {
    run $PY tools/train_with_plan.py "$1" "$2" --steps 3 -o "$T/r.json"
    expect_rc 0 "train: $3"
    expect_out "^losses    equal to plain autograd's over 3 steps" "$3: losses"
    case "$3" in tiny_cnn*)  # batch norm: its running statistics, step by step
        expect_out "^buffers   equal to plain autograd's after each of 3 steps" "$3: buffers" ;;
    esac
    python3 - "$T/r.json" "$2" "$3" <<'PY' || fail "$3: report"
import json, sys
r = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
assert r["format"] == "remat-train" and len(r["steps"]) == 3, r
for s in r["steps"]:
    assert abs(s["loss"] - s["loss_eager"]) <= 1e-4 * abs(s["loss_eager"]), s
assert r["steps"][0]["loss"] != r["steps"][2]["loss"], "the parameters did not move"
assert r["simulated_peak"] == p.get("peak", r["simulated_peak"]), (r["simulated_peak"], p.get("peak"))
assert abs(r["measured_peak"] / r["simulated_peak"] - 1) <= 0.05, (r["measured_peak"], r["simulated_peak"])
assert r["seconds_per_step"] > 0 and r["seconds_per_step_eager"] > 0
assert r["buffers_match"] is True, r["buffers_match"]
if "recomput" in sys.argv[3]:
    assert r["predicted_cost_increase"] > 0, r["predicted_cost_increase"]
    assert len(set(p["schedule"])) < len(p["schedule"]), "no node recomputed"
PY
}
G=$J/tiny_cnn.json
$REMAT solve $G -s noremat -o "$T/cnn0.json" 2>/dev/null
train $G "$T/cnn0.json" "tiny_cnn noremat"
# tight: greedy at its own peak (74 % of the baseline; batch norm run again)
$REMAT solve $G -s greedy -b 72032 -o "$T/cnn1.json" 2>/dev/null
train $G "$T/cnn1.json" "tiny_cnn greedy 72032 (recomputes)"
G=$J/tiny_gpt.json
$REMAT solve $G -s noremat -o "$T/gpt0.json" 2>/dev/null
train $G "$T/gpt0.json" "tiny_gpt noremat"
# every forward node twice: the dropout mask is drawn again, the same
python3 - $G "$T/gpt0.json" "$T/twice.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
phase = {n["id"]: n["phase"] for n in g["nodes"]}
fwd = [v for v in p["schedule"] if phase[v] == "fwd"]
p["schedule"] = fwd + fwd + [v for v in p["schedule"] if phase[v] != "fwd"]
p.pop("peak"); p.pop("cost")
json.dump(p, open(sys.argv[3], "w"))
PY
train $G "$T/twice.json" "tiny_gpt forward twice (dropout recomputed)"
$REMAT solve $G -s kusumoto-exact -b 90% -o "$T/gpt1.json" 2>/dev/null
train $G "$T/gpt1.json" "tiny_gpt kusumoto-exact 90 % (recomputes)"

# ---- fast export: fake tensors give the real trace's graph -----------------
# batch 3: neither sample's batch; tiny_cnn with unit costs (the rest equal)
for m in tiny_gpt tiny_cnn; do
    cost=flop
    [ $m = tiny_cnn ] && cost=unit
    run $PY tools/export_torch.py $m --batch 3 --trace fake --cost $cost -o "$T/$m-fake.json"
    expect_rc 0 "export $m --trace fake"
    run $PY tools/export_torch.py $m --batch 3 --trace real -o "$T/$m-real.json"
    expect_rc 0 "export $m --trace real"
    python3 - "$T/$m-fake.json" "$T/$m-real.json" $cost <<'PY' || fail "$m: fake and real traces differ at batch 3"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["recipe"].pop("trace") == "fake" and "trace" not in b["recipe"]
assert a["recipe"] == b["recipe"] and a["recipe"]["batch"] == 3, (a["recipe"], b["recipe"])
if sys.argv[3] == "unit":
    assert a["units"]["cost"] == "unit", a["units"]
    assert {n.pop("cost") for n in a["nodes"] if n["phase"] != "input"} == {1}
    for n in b["nodes"]:
        n.pop("cost", None)
assert a["nodes"] == b["nodes"], [(x, y) for x, y in zip(a["nodes"], b["nodes"]) if x != y][:1]
assert a["outputs"] == b["outputs"] and a["name"] == b["name"]
PY
done
run $PY tools/export_torch.py tiny_cnn --batch 3 --trace fake --time 1 -o "$T/x.json"
expect_rc 2 "--time with --trace fake"

# ---- refusals ----------------------------------------------------------------
# a plan for batch 3 with the batch-2 graph
$REMAT solve "$T/tiny_gpt-fake.json" -s noremat -o "$T/b3.json" 2>/dev/null
run $PY tools/train_with_plan.py $J/tiny_gpt.json "$T/b3.json" --steps 1 -o "$T/r.json"
expect_rc 2 "plan for another batch"
expect_err "^train_with_plan: $T/b3.json was made for batch 3 \('tiny_gpt-joint-b3'\); $J/tiny_gpt.json has batch 2 \('tiny_gpt-joint-b2'\)" "says which batch"
expect_one_line_err "plan for another batch"
# inputs of another batch, a model that is not the graph's, a plan whose
# recorded peak this graph does not give (same name)
python3 -c "
import json; p = json.load(open('$T/gpt0.json')); p['peak'] += 1; json.dump(p, open('$T/badpeak.json', 'w'))"
$PY - $J/tiny_gpt.json "$T/gpt0.json" "$T/badpeak.json" >"$T/out" 2>"$T/err" <<'PY'
import sys, torch
sys.path.insert(0, "tools")
import remat_torch, torch_joint
model, example = torch_joint.load_model("tiny_gpt", 2)
step = remat_torch.PlannedModule(model, sys.argv[1], sys.argv[2])
try:
    step(torch.randint(0, 64, (3, 16)))
    print("batch 3 ran")
except remat_torch.PlanRefused as ex:
    print("refused:", ex)
sys.path.insert(0, "tools")
import models
other = models.GPT(layers=2, d=48, heads=4, vocab=64, ctx=16)  # no dropout, width 48
try:
    remat_torch.PlannedModule(other, sys.argv[1], sys.argv[2])
    print("another model accepted")
except remat_torch.PlanRefused as ex:
    print("refused:", ex)
try:
    remat_torch.PlannedModule(model, sys.argv[1], sys.argv[3])
    print("a plan with another peak accepted")
except remat_torch.PlanRefused as ex:
    print("refused:", ex)
model.eval()
try:
    step(*example)
    print("eval mode ran")
except remat_torch.PlanRefused as ex:
    print("refused:", ex)
PY
expect_out "^refused: the plan was made for batch 2, got batch 3 \(export the graph and solve again at batch 3\)$" "inputs of another batch"
expect_out "^refused: $J/tiny_gpt.json: node '[^']*' (is not in this model's trace|has size [0-9]+, this model's trace [0-9]+ bytes) \(another model, width, batch or torch release than the graph's\)$" "another model"
expect_out "^refused: the plan is a training step \(traced in train mode\): evaluate with the model itself$" "eval mode"
expect_out "^refused: $T/badpeak.json records peak 319105 bytes, its schedule gives 319104 on $J/tiny_gpt.json: it was made for another graph$" "a plan with another peak"
finish
