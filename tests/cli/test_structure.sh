# test_structure.sh — a solver's structure reaches scripts: the plan's
# optional "structure" field and `solve --structure`. Checked against the
# graph by an independent reading: Kusumoto's blocks partition the forward
# nodes; TWRemat's bags cover every node and edge, keep each node's bags
# connected in the bag tree, and the width is the largest bag less one.
. tests/cli/lib.sh
check_structure() { # GRAPH PLAN KIND
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
g = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2])); kind = sys.argv[3]
st = p.get("structure")
if not st: sys.exit("no structure field")
groups = st["groups"]
ids = {n["id"] for n in g["nodes"]}
for gr in groups:
    bad = [v for v in gr["nodes"] if v not in ids]
    if bad: sys.exit("group %s names unknown nodes %s" % (gr["label"], bad[:3]))
if kind == "blocks":
    fwd = [n["id"] for n in g["nodes"] if n.get("phase") == "fwd"]
    blocks = [gr for gr in groups if gr["kind"] == "block"]
    seen = [v for b in blocks for v in b["nodes"]]
    if sorted(seen) != sorted(fwd): sys.exit("blocks do not partition the forward nodes")
    if [b["label"] for b in blocks] != ["V_%d" % (i + 1) for i in range(len(blocks))]:
        sys.exit("blocks not labelled V_1..V_k")
    print("blocks", len(blocks))
else:
    bags = [gr for gr in groups if gr["kind"] == "bag"]
    idx = {id(gr): i for i, gr in enumerate(groups)}
    nonin = [n["id"] for n in g["nodes"] if n.get("phase") != "input"]
    sets = [set(b["nodes"]) for b in bags]
    for v in nonin:
        if not any(v in s for s in sets): sys.exit("node %s in no bag" % v)
    for n in g["nodes"]:
        if n.get("phase") == "input": continue
        for u in n.get("inputs", []):
            if u in nonin and not any(u in s and n["id"] in s for s in sets):
                sys.exit("edge %s->%s in no bag" % (u, n["id"]))
    # running intersection: the bags holding v form a connected subtree
    gi = [groups.index(b) for b in bags]
    for v in nonin:
        holding = {gi[i] for i, s in enumerate(sets) if v in s}
        roots = [h for h in holding if groups[h].get("parent") not in holding]
        if len(roots) != 1: sys.exit("bags holding %s are not connected (%d pieces)" % (v, len(roots)))
    w = max(len(s) for s in sets) - 1
    if st.get("width") != w: sys.exit("width %s, largest bag says %d" % (st.get("width"), w))
    print("bags", len(bags), "width", w)
PY
}
run $REMAT solve samples/chain32.json --solver kusumoto-exact --budget 50% --structure -o "$T/k.json"
expect_rc 0 "kusumoto-exact on chain32"
expect_err "^structure: lower sets \(k=[0-9]+\), [0-9]+ groups" "--structure names the lower sets"
expect_err "^  V_1 \[block, [0-9]+ nodes\]: f1 " "--structure lists V_1 from f1"
check_structure samples/chain32.json "$T/k.json" blocks >"$T/v" || fail "kusumoto structure: $(cat "$T/v")"
for g in samples/kumar_fig1.json samples/skip.json samples/transformer_small.json; do
    run $REMAT solve "$g" --solver twremat -o "$T/t.json"
    expect_rc 0 "twremat on $g"
    check_structure "$g" "$T/t.json" bags >"$T/v" || fail "twremat structure on $g: $(cat "$T/v")"
done
# the extra field leaves the plan checkable: simulate and the validator accept it
run $REMAT simulate samples/chain32.json "$T/k.json"
expect_rc 0 "a plan with structure simulates"
python3 tests/validate.py samples/chain32.json "$T/k.json" >"$T/v" || fail "validator: $(cat "$T/v")"
# a solver without structure says so, and its plan has no such field
run $REMAT solve samples/kumar_fig1.json --solver noremat --structure -o "$T/n.json"
expect_err "noremat shows no structure" "noremat has no structure"
grep -q '"structure"' "$T/n.json" && fail "noremat plan has a structure field"
finish
