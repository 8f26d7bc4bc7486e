# test_solvers.sh — every solver on every teaching sample at no budget, 75 %
# and 50 % of the baseline: a plan that exits 0 is re-checked by the
# independent validator (tests/validate.py, written from the spec in another
# language) and meets its budget; exit 3 says the smallest peak found in one
# line; a refusal (exit 1) is one line naming the graph.
. tests/cli/lib.sh
$REMAT list-solvers | awk '/^[a-z]/ { print $1 }' >"$T/solvers"
[ "$(wc -l <"$T/solvers")" -ge 4 ] || fail "fewer than 4 solvers listed"
plans=0
for g in samples/*.json; do
    while read -r s; do
        for b in none 75% 50%; do
            opt=""
            [ "$b" = none ] || opt="--budget $b"
            # the searches get a short time limit: their best schedule is
            # checked all the same, and a slow machine only finds less
            case $s in checkmate*|fastsa|auto) opt="$opt -O time_limit=1" ;; esac
            run $REMAT solve "$g" --solver "$s" $opt -o "$T/plan.json"
            case $rc in
            0)
                plans=$((plans+1))
                python3 tests/validate.py "$g" "$T/plan.json" >"$T/v" || {
                    fail "$s on $g at $b: $(cat "$T/v")"; }
                ;;
            3)
                expect_err "smallest (possible )?peak" "$s on $g at $b: over-budget message"
                expect_one_line_err "$s on $g at $b"
                ;;
            1)
                expect_err "$g" "$s on $g: refusal names the graph"
                expect_one_line_err "$s on $g refusal"
                ;;
            *)
                fail "$s on $g at $b: exit $rc: $(cat "$T/err")"
                ;;
            esac
            rm -f "$T/plan.json"
        done
    done <"$T/solvers"
done
echo "$plans plans re-validated"
[ "$plans" -ge 20 ] || fail "only $plans plans"
# the validator itself rejects a lying plan and an invalid schedule
printf '{"format":"remat-plan","schedule":["A","B","C","D","E"],"peak":3}' >"$T/lie.json"
python3 tests/validate.py samples/kumar_fig1.json "$T/lie.json" >"$T/v" && fail "validator accepted a wrong peak"
grep -q "independent count 4" "$T/v" || fail "validator message: $(cat "$T/v")"
printf '{"format":"remat-plan","schedule":["A","C","B","D","E"]}' >"$T/bad.json"
python3 tests/validate.py samples/kumar_fig1.json "$T/bad.json" >"$T/v" && fail "validator accepted an invalid schedule"
# a solver's own proof that a budget is out of reach reaches the user:
# the MILP's infeasibility (no plan at all) and the join's Theorem 3.3 minimum
run $REMAT solve samples/kumar_fig1.json --solver checkmate-free --budget 3 -O steps=5
expect_rc 3 "checkmate infeasible with 5 steps"
expect_err "checkmate-free: no schedule of at most 5 steps fits budget 3" "checkmate-free infeasibility message"
run $REMAT solve samples/join3.json --solver join --budget 50% -O model=homogeneous
expect_rc 3 "join below Theorem 3.3"
expect_err "smallest peak found 11 B \\(Theorem 3.3: the join needs at least 7 slots" "join minimum named"
# (auto also tries heterogeneous per-branch schedules: 50 % fits, 9 does not)
run $REMAT solve samples/join3.json --solver join --budget 9
expect_rc 3 "join auto below its lowest peak"
expect_err "smallest peak found 10 B \\(Theorem 3.3: the join needs at least 7 slots; the lowest peak came from a heterogeneous" "join auto minimum named"
# the exact MILP says what it proved, --bound prints the cover bound
# (on Figure 1 at 3: 6, the optimum: while D runs, A waits for E, so A is
# held or run again) and the bound over every order (6 too: no order
# escapes that), and the portfolio names the member whose plan won
run $REMAT solve samples/kumar_fig1.json --solver checkmate --budget 3 --bound -o "$T/cm.json"
expect_rc 0 "checkmate on Figure 1"
expect_err "checkmate: optimal: no schedule in any order costs less \\(proven by the bound over every order\\)" "checkmate's optimum is one over every order"
expect_err "bound: no plan in the graph's order costs less than 6; this plan is \\+0.00% above it" "cover bound and gap"
expect_err "bound: no schedule in any order costs less than 6; this plan is \\+0.00% above it" "bound over every order and gap"
grep -q '"optimality":{"optimal":true,"bound":6,"gap":0}' "$T/cm.json" || fail "plan JSON lacks the optimality record: $(cat "$T/cm.json")"
# a plan that runs each needed node once is optimal whoever made it; one
# that runs something twice is not claimed so (chain32 at 26 B)
run $REMAT solve samples/chain32.json --solver noremat --budget 100% -o /dev/null
expect_rc 0 "noremat at the baseline"
expect_err "noremat: optimal: no schedule costs less \\(each node an output needs runs once\\)" "a plan without reruns is optimal"
run $REMAT solve samples/chain32.json --solver greedy --budget 26 -o /dev/null
expect_rc 0 "greedy at 26 B"
grep -q "no schedule costs less (each" "$T/err" && fail "greedy's plan with reruns claimed optimal: $(cat "$T/err")"
# where the bound over every order lies below it, the optimum is claimed
# only among the orders solved (skip.json at 60 %)
run $REMAT solve samples/skip.json --solver checkmate --budget 60% -o /dev/null
expect_rc 0 "checkmate on skip.json"
expect_err "checkmate: optimal among plans whose first runs follow the orders it solved \\(proven by the solver\\)" "checkmate says optimal, and among what"
# a plan in another order gets the bound over both orders as well
run $REMAT solve samples/transformer_small.json --solver fastsa --budget 70% --bound -O iters=20000 -O restarts=0 -O seeds=none -o /dev/null
expect_rc 0 "fastsa on transformer_small"
# (the cascade rows lift the cover's 1051459585 to this LP value)
expect_err "bound: no plan in the graph's order costs less than 1.054206e\\+09; this plan is \\+[0-9.]+% above it" "cover bound on the graph's order"
expect_err "bound: over the graph's order and this plan's, 1.054206e\\+09; this plan is \\+[0-9.]+% above it" "cover bound over both orders"
expect_err "bound: no schedule in any order costs less than 1054205396; this plan is \\+[0-9.]+% above it" "bound over every order"
run $REMAT solve samples/kumar_fig1.json --budget 3 -o "$T/auto.json"
expect_rc 0 "auto is the default solver"
expect_err "^auto \\([a-z-]+'s plan\\): peak 3 " "auto names the winning member"
grep -q '"solver":"auto","origin":"' "$T/auto.json" || fail "auto's plan lacks its origin: $(cat "$T/auto.json")"
finish
