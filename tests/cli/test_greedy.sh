#!/bin/sh
# test_greedy.sh — greedy on Kumar et al.'s Figure 1 through the command line:
# budget 3 is met (peak 3) and re-simulates; budget 2 is refused with exit 3.
. tests/cli/lib.sh
cat >"$T/fig1.json" <<'JSON'
{"format": "remat-graph", "version": 1, "name": "fig1",
 "nodes": [
  {"id": "A"}, {"id": "B", "inputs": ["A"]}, {"id": "C", "inputs": ["B"]},
  {"id": "D", "inputs": ["B", "C"]}, {"id": "E", "inputs": ["A", "D"]}],
 "outputs": ["E"]}
JSON
run "$REMAT" solve "$T/fig1.json" --solver greedy --budget 3 -o "$T/plan.json"
expect_rc 0 "greedy budget 3"
expect_err "peak 3 " "greedy budget 3 reports peak 3"
run "$REMAT" simulate "$T/fig1.json" "$T/plan.json"
expect_rc 0 "simulate greedy plan"
expect_out "^valid +yes, 6 steps" "plan is valid with 6 steps"
expect_out "^peak +3 " "simulated peak 3"
expect_out "^cost +6 " "simulated cost 6"
run "$REMAT" solve "$T/fig1.json" --solver greedy --budget 2 -o "$T/plan2.json"
expect_rc 3 "greedy budget 2"
expect_one_line_err "greedy budget 2"
expect_err "smallest possible peak 3" "budget 2 names the smallest peak"
# a budget that makes greedy rebuild what it dropped over and over ends in a
# clear refusal, not a hang (the LSTM's cell-state chain at half its peak)
run "$REMAT" solve samples/models/lstm64.json --solver greedy --budget 50% -o "$T/plan3.json"
expect_rc 1 "greedy thrashing"
expect_one_line_err "greedy thrashing"
expect_err "greedy: the schedule passed [0-9]+ steps" "greedy says why it stopped"
finish
