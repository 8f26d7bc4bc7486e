# test_scale.sh — a generated 200K-node training graph is written, loaded,
# validated, simulated and solved (noremat, greedy, fastsa with a short
# limit, echo) without failure or recursion-depth crashes; the figures are
# printed in the log (make bench prints them too).
. tests/cli/lib.sh
B=$(dirname "$REMAT")
run "$B/bench/bench_scale" --nodes 200000
expect_rc 0 "200K-node graph through every stage"
expect_out "^graph: 200002 nodes" "generated size"
expect_out "^load \+ validate" "loaded back"
expect_out "^noremat at 50%" "noremat solved"
cat "$T/out"
finish
