#!/bin/sh
# gen_solver_docs.sh [REMAT] — write every solver's option table into its
# page in docs/solvers/, between "<!-- options: NAME" and "<!-- /options -->",
# from the solver's own parameter table (`remat list-solvers NAME
# --markdown`). A page names the solvers it documents with an empty block
# the first time; tests/cli/test_docs.sh checks the tables are current.
R=${1:-build/remat}
set -e
for s in $("$R" list-solvers | awk '/^[a-z]/ { print $1 }'); do
    f=$(grep -l "<!-- options: $s " docs/solvers/*.md | head -1)
    if [ -z "$f" ]; then
        echo "gen_solver_docs: no options block for $s in docs/solvers/" >&2
        exit 1
    fi
    "$R" list-solvers "$s" --markdown >/tmp/remat-opts.$$
    awk -v name="$s" -v tab=/tmp/remat-opts.$$ '
        index($0, "<!-- options: " name " ") == 1 { while ((getline l < tab) > 0) print l; skip = 1; next }
        skip && index($0, "<!-- /options -->") == 1 { skip = 0; next }
        !skip { print }' "$f" >"$f.new"
    mv "$f.new" "$f"
done
rm -f /tmp/remat-opts.$$
