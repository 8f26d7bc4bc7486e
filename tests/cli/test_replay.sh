# test_replay.sh — CPU replay: the allocator's live bytes equal the simulated
# memory at every step on every sample (noremat plans and, where a plan fits,
# greedy at 80 %); the resident set peak is within 5 % of the simulated peak
# (not under AddressSanitizer, whose shadow is resident too);
# the remat-replay document reads back. CUDA: the separate program exists
# when nvcc did, and says plainly when there is no device.
. tests/cli/lib.sh
checked=0
for g in samples/*.json; do
    for solver in noremat greedy; do
        budget="--budget 80%"
        [ $solver = noremat ] && budget=""
        run $REMAT solve "$g" --solver $solver $budget -o "$T/plan.json"
        if [ $solver = noremat ] && [ ! -s "$T/plan.json" ]; then
            fail "noremat made no plan for $g"
        fi
        [ -s "$T/plan.json" ] || continue
        checked=$((checked+1))
        run $REMAT replay "$g" "$T/plan.json" -o "$T/replay.json"
        expect_rc 0 "replay $g $solver"
        expect_out "\+0\.00% vs simulated \(allocator" "$g $solver: allocator peak equals simulated"
        # every step: measured == simulated
        python3 - "$T/replay.json" <<'PY' || fail "$g $solver: per-step mismatch"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "remat-replay" and r["version"] == 1
assert r["measured_peak"] == r["simulated_peak"], (r["measured_peak"], r["simulated_peak"])
bad = [s for s in r["steps"] if s["measured"] != s["simulated"]]
assert not bad, bad[:3]
# the resident set is the plan's only without AddressSanitizer's shadow
if "AddressSanitizer" not in r["device"]:
    assert abs(r["rss_peak"] / r["simulated_peak"] - 1) <= 0.05, (r["rss_peak"], r["simulated_peak"])
PY
        rm -f "$T/plan.json"
    done
done
[ "$checked" -ge 1 ] || fail "no replay ran"
run $REMAT replay samples/kumar_fig1.json /nonexistent.json
expect_rc 1 "missing plan"
expect_err "nonexistent.json" "missing plan names the file"
expect_one_line_err "missing plan"
run $REMAT solve samples/kumar_fig1.json --solver noremat -o "$T/p.json"
run $REMAT replay samples/kumar_fig1.json "$T/p.json" --backend tpu
expect_rc 2 "unknown backend"
# the torch backend's document, read back and printed: a stand-in for the
# tool (no torch needed) writes what a CUDA run writes, with the bytes
# allocated before the run that are no value of the graph (cuBLAS's
# workspaces), which the report names and does not count
G=samples/models/joint/tiny_cnn.json
$REMAT solve $G -s noremat -o "$T/tc.json" 2>/dev/null
cat >"$T/fake-python" <<'SH'
#!/bin/sh
# fake-python TOOL GRAPH PLAN -o OUT
exec python3 - "$@" <<'PY'
import json, sys
plan = json.load(open(sys.argv[3]))
steps = [{"node": v, "simulated": 1, "measured": 1, "rss": 1, "time_s": 0.001}
         for v in plan["schedule"]]
doc = {"format": "remat-replay", "version": 1, "graph": "g", "solver": "noremat",
       "backend": "torch", "device": "cuda (stand-in)", "scale": 1,
       "measured_peak": plan["peak"] + 512, "simulated_peak": plan["peak"], "rss_peak": 0,
       "outside_bytes": 34603008, "time_cost_correlation": None, "seconds": 0.1,
       "gradients": {"match": True, "max_abs_diff": 0}, "steps": steps}
json.dump(doc, open(sys.argv[5], "w"))
PY
SH
chmod +x "$T/fake-python"
run env REMAT_PYTHON="$T/fake-python" $REMAT replay $G "$T/tc.json" --backend torch
expect_rc 0 "torch replay document with outside bytes"
expect_out "^outside   34603008 \(33\.0 MiB\) allocated before the run, no value of the graph" "the bytes outside the graph are named, not counted"
expect_out "^measured  peak [0-9]+ .*\+0\.[0-9]+% vs simulated" "the measured peak as written"
# calibrate: a replay's excess over the simulation at a step becomes its
# node's workspace (less the median excess every step carries), and the
# plan's peak on the calibrated graph is the measured one
G=samples/models/resnet18.json
$REMAT solve $G -s noremat -o "$T/n.json" 2>/dev/null
$REMAT replay $G "$T/n.json" --scale 1 -o "$T/n.cpu.json" >/dev/null 2>&1
python3 - "$T/n.cpu.json" "$T/n.gpu.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for t, s in enumerate(r["steps"]):
    s["measured"] = s["simulated"] + (3 << 20) + ((50 << 20) if t == 5 else 0)
r["measured_peak"] = max(s["measured"] for s in r["steps"])
json.dump(r, open(sys.argv[2], "w"))
PY
run $REMAT calibrate $G "$T/n.json" "$T/n.gpu.json" -o "$T/cal.json"
expect_rc 0 "calibrate"
expect_err "^remat: calibrate: 1 node given workspace \(largest 50\.0 MiB, '[^']+'\), above the 3\.00 MiB every step measured" "calibrate: says what it gave"
python3 - $G "$T/n.json" "$T/cal.json" <<'PY' || fail "calibrate: the workspace of step 5's node"
import json, sys
g, p, c = (json.load(open(f)) for f in sys.argv[1:])
v = p["schedule"][5]
ws = {n["id"]: n.get("workspace", 0) for n in c["nodes"]}
assert ws[v] == 50 << 20 and sum(ws.values()) == 50 << 20, (v, ws[v])
assert [n["id"] for n in g["nodes"]] == [n["id"] for n in c["nodes"]]
PY
run $REMAT simulate "$T/cal.json" "$T/n.json"
expect_rc 0 "the plan on the calibrated graph"
peak=$(python3 -c "import json; r = json.load(open('$T/n.gpu.json')); print(r['measured_peak'] - (3 << 20))")
grep -q "^peak      $peak " "$T/out" || fail "calibrated peak: expected $peak (measured less the median), got: $(grep ^peak "$T/out")"
# a replay of another plan is refused, and -o keeps what it held
$REMAT solve $G -b 70% -s greedy -o "$T/g70.json" 2>/dev/null
echo kept >"$T/cal2.json"
run $REMAT calibrate $G "$T/g70.json" "$T/n.gpu.json" -o "$T/cal2.json"
expect_rc 1 "calibrate: a replay of another plan"
expect_err "n\.gpu\.json: the replay has [0-9]+ steps, the plan [0-9]+: it is a replay of another plan" "calibrate: another plan, says so"
expect_one_line_err "calibrate: another plan"
[ "$(cat "$T/cal2.json")" = kept ] || fail "calibrate: a refused replay changed the output file"
BIN=$(dirname "$REMAT")
if [ -x "$BIN/remat-cuda" ]; then
    run $REMAT replay samples/kumar_fig1.json "$T/p.json" --backend cuda --fit 10
    if [ "$rc" -eq 4 ]; then
        expect_err "no CUDA device" "cuda without a device"
    else
        expect_rc 0 "cuda replay"
        expect_out "measured  peak" "cuda replay prints the measured peak"
    fi
else
    run $REMAT replay samples/kumar_fig1.json "$T/p.json" --backend cuda
    expect_rc 1 "cuda not built"
    expect_err "built without CUDA" "says it was built without CUDA"
fi
finish
