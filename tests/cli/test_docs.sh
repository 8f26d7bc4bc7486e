# test_docs.sh — every solver's option table in docs/solvers/ is the one its
# code declares (scripts/gen_solver_docs.sh regenerates them).
. tests/cli/lib.sh
for s in $($REMAT list-solvers | awk '/^[a-z]/ { print $1 }'); do
    f=$(grep -l "<!-- options: $s " docs/solvers/*.md | head -1)
    if [ -z "$f" ]; then
        fail "no options table for $s in docs/solvers/"; continue
    fi
    awk -v name="$s" 'index($0, "<!-- options: " name " ") == 1 { on = 1 }
                      on { print } on && index($0, "<!-- /options -->") == 1 { exit }' "$f" >"$T/doc"
    $REMAT list-solvers "$s" --markdown >"$T/code"
    cmp -s "$T/doc" "$T/code" || fail "$f: options of $s differ from the code (run scripts/gen_solver_docs.sh)"
done
# an unknown name is a usage error naming it
run $REMAT list-solvers nosuch
expect_rc 2 "list-solvers unknown name"
expect_err "unknown solver 'nosuch'" "list-solvers names the unknown solver"
finish
