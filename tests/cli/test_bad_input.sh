# test_bad_input.sh — a table of malformed files. Each must be refused with
# the expected exit status and exactly one line on stderr that names the
# file and the position (line:col, JSON path, node or step), never a crash
# (under the sanitizer build a report would add lines and fail the check).
. tests/cli/lib.sh
G='"format":"remat-graph","version":1'
# case NAME EXPECTED_RC STDERR_REGEX CONTENT...   (content via printf %s)
case_graph() {
    name=$1 want=$2 re=$3; shift 3
    printf '%s' "$@" >"$T/$name"
    run $REMAT info "$T/$name"
    expect_rc "$want" "$name"
    expect_err "$T/$name" "$name names the file"
    expect_err "$re" "$name message"
    expect_one_line_err "$name"
}
case_graph trunc.json 1 ':1:[0-9]+: invalid JSON: unexpected end' "{$G,\"nodes\":[{\"id\":\"a\""
case_graph trail.json 1 ':2:1: invalid JSON' "{$G,\"nodes\":[{\"id\":\"a\"}]}" '
x'
case_graph notobj.json 1 'top level must be an object' '[1,2]'
case_graph nodes_type.json 1 '\$\.nodes: missing or not an array' "{$G,\"nodes\":{}}"
case_graph id_type.json 1 'nodes\[0\]\.id: missing or not a string' "{$G,\"nodes\":[{\"id\":7}]}"
case_graph size_type.json 1 'nodes\[0\]\.size: expected a number' "{$G,\"nodes\":[{\"id\":\"a\",\"size\":\"9\"}]}"
case_graph size_frac.json 1 'nodes\[0\]\.size: expected an integer' "{$G,\"nodes\":[{\"id\":\"a\",\"size\":1.5}]}"
case_graph size_neg.json 1 'nodes\[1\]\.size: negative value' "{$G,\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\",\"size\":-8}]}"
case_graph size_huge.json 1 'nodes\[0\]\.size: value .* exceeds 2\^53' "{$G,\"nodes\":[{\"id\":\"a\",\"size\":1e300}]}"
case_graph cost_inf.json 1 'nodes\[0\]\.cost: expected a finite' "{$G,\"nodes\":[{\"id\":\"a\",\"cost\":1e999}]}"
case_graph cost_neg.json 1 'nodes\[0\]\.cost' "{$G,\"nodes\":[{\"id\":\"a\",\"cost\":-1}]}"
case_graph nan.json 1 ':1:[0-9]+: invalid JSON near .NaN' "{$G,\"nodes\":[{\"id\":\"a\",\"size\":NaN}]}"
case_graph ws_neg.json 1 'nodes\[0\]\.workspace' "{$G,\"nodes\":[{\"id\":\"a\",\"workspace\":-1}]}"
case_graph inputs_type.json 1 'nodes\[0\]\.inputs: expected an array' "{$G,\"nodes\":[{\"id\":\"a\",\"inputs\":\"b\"}]}"
case_graph input_num.json 1 'nodes\[1\]\.inputs\[0\]: expected a string' "{$G,\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\",\"inputs\":[0]}]}"
case_graph dup.json 1 "nodes\[1\]: duplicate id 'a'" "{$G,\"nodes\":[{\"id\":\"a\"},{\"id\":\"a\"}]}"
case_graph empty_id.json 1 'nodes\[0\]: empty id' "{$G,\"nodes\":[{\"id\":\"\"}]}"
case_graph self_loop.json 1 "cycle: 'a' -> 'a'" "{$G,\"nodes\":[{\"id\":\"a\",\"inputs\":[\"a\"]}]}"
case_graph cycle.json 1 "cycle: .*'b'.*nodes\[" "{$G,\"nodes\":[{\"id\":\"a\",\"inputs\":[\"c\"]},{\"id\":\"b\",\"inputs\":[\"a\"]},{\"id\":\"c\",\"inputs\":[\"b\"]}]}"
case_graph dangling.json 1 "nodes\[0\] \(id 'a'\): unknown input id 'ghost'" "{$G,\"nodes\":[{\"id\":\"a\",\"inputs\":[\"ghost\"]}]}"
case_graph empty_graph.json 1 'empty graph' "{$G,\"nodes\":[]}"
case_graph phase.json 1 "nodes\[0\]\.phase: unknown phase 'forward'" "{$G,\"nodes\":[{\"id\":\"a\",\"phase\":\"forward\"}]}"
case_graph format.json 1 'expected "remat-graph"' '{"format":"remat-plan","nodes":[]}'
case_graph version.json 1 'only version 1' '{"format":"remat-graph","version":2,"nodes":[{"id":"a"}]}'
case_graph grad_of.json 1 "grad_of names unknown id 'zz'" "{$G,\"nodes\":[{\"id\":\"a\",\"phase\":\"bwd\",\"grad_of\":\"zz\"}]}"
case_graph outputs.json 1 "outputs\[0\]: unknown id 'q'" "{$G,\"nodes\":[{\"id\":\"a\"}],\"outputs\":[\"q\"]}"
case_graph input_reads.json 1 'an input node cannot read' "{$G,\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\",\"phase\":\"input\",\"inputs\":[\"a\"]}]}"
case_graph utf8.json 1 ':1:[0-9]+: invalid UTF-8 byte 0xff' "{$G,\"nodes\":[{\"id\":\"a$(printf '\377')\"}]}"
case_graph empty.json 1 ':1:1: empty file' ''
case_graph dot_syntax.dot 1 ':3:[0-9]+: invalid DOT' 'digraph g {
  a -> b;
  c -> ;
}'
case_graph dot_trailing.dot 1 ':2:1: invalid DOT: text after the end' 'digraph g { a -> b; }
digraph h { c; }'
case_graph dot_undirected.dot 1 'expected a digraph' 'graph g { a -- b; }'
case_graph dot_size.dot 1 "node 'a': size 'big' is not an integer" 'digraph g { a [size=big]; }'
case_graph dot_cycle.dot 1 'cycle' 'digraph g { a -> b; b -> a; }'
case_graph garbage.bin 1 'invalid DOT' "$(printf '\001\002\003garbage')"
# what JSON readers disagree on, or a double cannot hold, is refused
case_graph nul_id.json 1 ':1:54: invalid JSON: \\u0000 \(NUL\) inside a string' "{$G,\"nodes\":[{\"id\":\"a\\u0000zzz\"}]}"
case_graph dup_key.json 1 "dup_key.json: nodes\[0\]: duplicate key 'size'" "{$G,\"nodes\":[{\"id\":\"a\",\"size\":1,\"size\":-5}]}"
case_graph dup_top.json 1 "dup_top.json: \\$: duplicate key 'nodes'" "{$G,\"nodes\":[{\"id\":\"a\"}],\"nodes\":[]}"
case_graph size_2p53p1.json 1 'nodes\[0\]\.size: value 9007199254740993 exceeds 2\^53' "{$G,\"nodes\":[{\"id\":\"a\",\"size\":9007199254740993}]}"
case_graph size_inexact.json 1 'nodes\[0\]\.size: expected an integer, got 1\.0000000000000001' "{$G,\"nodes\":[{\"id\":\"a\",\"size\":1.0000000000000001}]}"
# memory sums that would overflow 64 bits: 1,100 inputs of 2^53 bytes
python3 -c "
import json
print(json.dumps({'format':'remat-graph','nodes':[{'id':'i%d'%i,'phase':'input','size':2**53} for i in range(1100)]+[{'id':'x','inputs':['i0']}]}))" >"$T/sum.json"
run $REMAT info "$T/sum.json"
expect_rc 1 sum.json
expect_err "sum.json: nodes\[511\] \(id 'i511'\): the sizes and workspaces of the nodes up to this one sum to 2\^62 bytes or more" "sizes summing to 2^62"
expect_one_line_err sum.json
# the same cost limit in every format, so no total can print as "inf"
case_graph cost_dot.dot 1 "node 'a': cost '1.7e308' is not a decimal number in 0\.\.1e300" 'digraph g { a [cost="1.7e308"]; b [cost="1.7e308"]; a -> b; }'
case_graph cost_nl.json 1 'nodes\[0\]\.cost_cpu: expected a finite non-negative number up to 1e\+300' '{"nodes":[{"id":0,"cost_cpu":1.7e308}],"links":[]}'
case_graph param_nl.json 1 'nodes\[0\]\.param_cost: value .* exceeds 2\^53' '{"nodes":[{"id":0,"param_cost":1e300}],"links":[]}'
# numbers as the docs define them: decimal, no hex
case_graph hex_size.dot 1 "node 'a': size '0x10' is not an integer in 0\.\.2\^53" 'digraph g { a [size="0x10"]; }'
case_graph hex_remat2.txt 1 ':2:18: node 1: mem needs an integer in 0\.\.2\^53, got .0x10.' 'p remat2
node 1 cpu 1 mem 0x10'
case_graph big_remat2.txt 1 ':2:12: node 1: cpu needs an integer in 0\.\.2\^53' 'p remat2
node 1 cpu 99999999999999999999'
# Kusumoto text: a backward function whose outputs' sizes sum past 2^53
case_graph pfn_sum.txt 1 ':10:1: the sizes of this backward function.s outputs sum past 2\^53' '2 2
0 9007199254740992 x
1 9007199254740992 _
forward
1 1
0 _
1
Conv
{}
backward
1 2
1 gradient
0
0
ConvGrad
{}
'
# DOT nested past what cgraph parses whole (it used to drop nodes silently)
python3 -c "print('digraph g { ' + 'subgraph { '*4000 + 'a -> b; c -> d;' + '}'*4000 + '}')" >"$T/deep.dot"
run $REMAT info "$T/deep.dot"
expect_rc 1 deep.dot
expect_err "deep.dot:1:[0-9]+: invalid DOT: braces nested more than 1000 deep" "deep DOT"
expect_one_line_err deep.dot
# lines of any length: a p remat2 node with 5,000 deps keeps them all and its target
python3 -c "
print('p remat2')
for i in range(1, 5001): print('node %d cpu 1 mem 1' % i)
print('node 5001 deps ' + ' '.join(str(i) for i in range(1, 5001)) + ' cpu 1 mem 1 target')" >"$T/long.txt"
run $REMAT info "$T/long.txt"
expect_rc 0 "long p remat2 line"
expect_out "^edges +5000\$" "all 5,000 deps read"
expect_out "^outputs +1\$" "its target read"
# binary input is refused at its first NUL byte, before reading on
run $REMAT info /dev/zero
expect_rc 1 /dev/zero
expect_err "/dev/zero:1:1: NUL byte: not a text file" "/dev/zero refused at once"
# a byte-order mark is skipped by every reader alike
printf '\357\273\277%s' "{$G,\"nodes\":[{\"id\":\"a\"}]}" >"$T/bom.json"
run $REMAT info "$T/bom.json"
expect_rc 0 "JSON graph with a byte-order mark"
# control characters from a file never reach the terminal raw
printf '%s' "{$G,\"name\":\"n\\u001b[2J\",\"nodes\":[{\"id\":\"a\\u001b]0;x\\u0007\"}]}" >"$T/ctl.json"
run $REMAT info "$T/ctl.json"
expect_rc 0 "control characters in names"
if LC_ALL=C grep -q "$(printf '\033')" "$T/out"; then fail "info printed an escape character"; fi
expect_out "^graph +n\?\[2J\$" "escape shown as ?"
printf '%s' "{$G,\"nodes\":[{\"id\":\"a\\u001b[31m\"},{\"id\":\"b\",\"inputs\":[\"zz\\u001b[0m\"]}]}" >"$T/ctl2.json"
run $REMAT info "$T/ctl2.json"
expect_rc 1 "control characters in a message"
expect_err "unknown input id 'zz\?\[0m'" "message with ? for the escape"
if LC_ALL=C grep -q "$(printf '\033')" "$T/err"; then fail "an error message carried an escape character"; fi
# a million-deep nesting stays a one-line parse error (no stack overflow)
python3 -c "print('['*1000000 + ']'*1000000)" >"$T/deep.json"
run $REMAT info "$T/deep.json"
expect_rc 1 deep.json
expect_err "deep.json:1:[0-9]+: invalid JSON" "deep nesting"
expect_one_line_err deep.json
# huge file: refused before reading
truncate -s 2G "$T/huge.json"
run $REMAT info "$T/huge.json"
expect_rc 1 huge.json
expect_err "huge.json: file of 2147483648 bytes is larger than" "huge file"
rm -f "$T/huge.json"
run $REMAT info "$T/no-such-file.json"
expect_rc 1 missing
expect_err "no-such-file.json: cannot open" "missing file"
run $REMAT info "$T"
expect_rc 1 directory
expect_err "is a directory" "directory"
# a DOT file with HTML labels and subgraphs is valid: it loads
printf '%s' 'digraph g { subgraph cluster_a { a [label=<<b>A</b>> size=3]; b [cost=2]; } a -> b; subgraph { c; } b -> c; }' >"$T/html.dot"
run $REMAT info "$T/html.dot"
expect_rc 0 "html.dot loads"
expect_out "nodes     3" "html.dot has three nodes"
# plans
printf '%s' "{$G,\"nodes\":[{\"id\":\"x\",\"phase\":\"input\"},{\"id\":\"A\",\"inputs\":[\"x\"]},{\"id\":\"B\",\"inputs\":[\"A\"]},{\"id\":\"C\",\"inputs\":[\"B\"]}]}" >"$T/g.json"
case_plan() {
    name=$1 want=$2 re=$3 content=$4
    printf '%s' "$content" >"$T/$name"
    run $REMAT simulate "$T/g.json" "$T/$name"
    expect_rc "$want" "$name"
    expect_err "$re" "$name message"
    expect_one_line_err "$name"
}
P='"format":"remat-plan","version":1'
case_plan unknown_node.plan 1 "unknown_node.plan: schedule\[1\]: unknown node id 'Z'" "{$P,\"schedule\":[\"A\",\"Z\"]}"
case_plan order.plan 1 "order.plan: step 2 \(C\): reads a value no earlier step produced: 'B'" "{$P,\"schedule\":[\"A\",\"C\",\"B\"]}"
case_plan input_step.plan 1 "schedule\[0\]: 'x' is an input node" "{$P,\"schedule\":[\"x\",\"A\"]}"
case_plan missing_out.plan 1 "output 'C' is never produced" "{$P,\"schedule\":[\"A\",\"B\"]}"
case_plan lying.plan 1 "plan states peak 1 but the schedule peaks at 3" "{$P,\"schedule\":[\"A\",\"B\",\"C\"],\"peak\":1}"
case_plan sched_type.plan 1 "schedule\[0\]: expected a node id string" "{$P,\"schedule\":[1]}"
case_plan plan_trunc.plan 1 "plan_trunc.plan:1:[0-9]+: invalid JSON" "{$P,\"schedule\":["
case_plan plan_format.plan 1 'expected "remat-plan"' '{"format":"remat-graph","schedule":[]}'
# a plan names its graph: read against another one it is refused, naming both
case_plan other_graph.plan 1 "other_graph.plan: \\$\.graph: the plan is for graph 'resnet', not for ''" "{$P,\"graph\":\"resnet\",\"schedule\":[\"A\",\"B\",\"C\"]}"
case_plan plan_dup.plan 1 "plan_dup.plan: \\$: duplicate key 'schedule'" "{$P,\"schedule\":[\"A\",\"B\",\"C\"],\"schedule\":[]}"
# budgets
run $REMAT solve "$T/g.json" --solver noremat --budget 1
expect_rc 3 "budget below the baseline"
expect_err "smallest peak found 3" "says the smallest peak"
expect_one_line_err "budget"
run $REMAT solve "$T/g.json" --solver noremat --budget 12XB
expect_rc 2 "bad budget unit"
expect_err "unknown unit" "bad unit message"
run $REMAT solve "$T/g.json" --solver noremat --budget 0x10
expect_rc 2 "hex budget"
expect_err "'0x10': unknown unit 'x10'" "hex budget refused"
run $REMAT solve "$T/g.json" --solver noremat --budget 9007199254740993 -o "$T/exact.plan"
expect_rc 0 "budget past 2^53"
grep -qF '"budget":9007199254740993,' "$T/exact.plan" || fail "budget 9007199254740993 not kept exactly"
# a failed write says so once
run $REMAT solve "$T/g.json" --solver noremat -o "$T"
expect_rc 1 "solve -o DIR"
expect_err "cannot write" "solve -o DIR says why"
expect_one_line_err "solve -o DIR"
# replay scales that would round every buffer to nothing
$REMAT solve "$T/g.json" --solver noremat -o "$T/g.plan" 2>/dev/null
run $REMAT replay "$T/g.json" "$T/g.plan" --scale 1e-300
expect_rc 2 "replay --scale 1e-300"
expect_err "--scale 1e-300 is too small for this plan" "replay scale refused"
expect_one_line_err "replay --scale 1e-300"
finish
