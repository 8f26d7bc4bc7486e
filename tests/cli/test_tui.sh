#!/bin/sh
# test_tui.sh — the explorer in a real pty (tmux on a private socket): the
# curve and peak show, the slider changes the budget, the picker switches
# solver, the list views show something, export writes DOT that Graphviz
# reads, resizing keeps it working, q exits with status 0.
. tests/cli/lib.sh
. tests/cli/tmux.sh

# the explorer opens on the auto portfolio where it is registered
DEF=$("$REMAT" list-solvers | awk '$1 == "auto" { print "auto" }')
DEF=${DEF:-noremat}

# ---- the paper's small example ------------------------------------------
start samples/kumar_fig1.json
check 'peak 4 B at step 4 \(D\)' "kumar: peak figure"
check '█' "kumar: curve drawn with blocks"
check "kumar-fig1 \\| $DEF \\| budget 4 B \\| peak 4 B" "kumar: status line (opens on $DEF)"
check 'budget 4 B 3 B \[' "kumar: slider from min to baseline peak"

# picker: every registered solver is listed; choose each in turn
keys a
check 'Choose a solver' "picker opens"
screen | grep -E '^ +[* ] [0-9]+ [a-z_0-9-]+ ' | awk '{ if ($1 == "*") print $2, $3; else print $1, $2 }' >"$T/solvers"
[ -s "$T/solvers" ] || fail "picker lists no solver"
grep -q ' noremat$' "$T/solvers" || fail "picker lacks noremat"
keys Escape
[ "$(wc -l <"$T/solvers")" -eq "$($REMAT list-solvers | grep -c '^[a-z]')" ] ||
    fail "picker lists $(wc -l <"$T/solvers") solvers, list-solvers another count"
while read -r num name; do
    # 1 selects the first; Down walks to the rest (digits reach only nine)
    keys a 1
    i=1; while [ $i -lt "$num" ]; do keys Down; i=$((i + 1)); done
    keys Enter
    # a solver that refuses this graph is selected, its reason shown, and the
    # last valid plan stays drawn: "name (shown: other)"
    check "kumar-fig1 \| $name( \(shown: [a-z0-9_-]+\))? \|" "picker selects $name"
done <"$T/solvers"
num=$(awk '$2 == "noremat" { print $1 }' "$T/solvers")
keys a "$num" Enter
check 'kumar-fig1 \| noremat \| .*final' "picker back to noremat"

# views: Tab cycles inspector, recomputed, structure
keys Tab
check 'step [0-9]+ \([A-E]\): .* alive in [0-9]+ values' "inspector view"
keys Tab
check 'Recomputed nodes: 0 of 5' "recomputed view"
keys Tab
check 'Structure of noremat' "structure view"
check 'plan of 5 steps|groups' "structure view content"
keys BTab
check 'Recomputed nodes: 0 of 5' "S-Tab goes back"
keys BTab BTab
check 'peak 4 B' "back to the curve"

# export a DOT file Graphviz can read
keys e
check 'export to' "export prompt"
type_line "$T/out.dot"
check "wrote $T/out.dot" "export reports the file"
if [ -s "$T/out.dot" ] && command -v dot >/dev/null; then
    dot -Tsvg "$T/out.dot" >"$T/out.svg" 2>"$T/err" && grep -q '<svg' "$T/out.svg" ||
        fail "dot cannot read the exported file: $(cat "$T/err")"
elif [ ! -s "$T/out.dot" ]; then
    fail "export wrote nothing"
fi

# resize: 80x24 works, too small says so, back again
tm resize-window -t tui -x 80 -y 24
check 'peak 4 B at step 4' "works at 80x24"
tm resize-window -t tui -x 50 -y 12
check 'terminal too small' "too small message"
tm resize-window -t tui -x 100 -y 30
check 'peak 4 B at step 4' "back at 100x30"
quit "kumar: q"

# what the exact member proved shows in the status line: at the smallest
# peak, 3 B, CBC proves the portfolio's plan optimal at once
if [ "$DEF" = auto ]; then
    start samples/kumar_fig1.json -b 3
    check 'kumar-fig1 \| auto \| budget 3 B \| peak 3 B .*\| by [a-z-]+, optimal' "kumar at 3 B: auto's plan is proven optimal"
    quit "kumar at 3 B: q"
fi

# ---- a 32-layer training graph: the slider moves the budget ---------------
{
    echo '{"format":"remat-graph","version":1,"name":"chain32","nodes":['
    echo '{"id":"x","phase":"input","size":1048576,"cost":0}'
    p=x; i=1
    while [ $i -le 32 ]; do
        echo ",{\"id\":\"f$i\",\"phase\":\"fwd\",\"size\":$((1048576 * (1 + i % 3))),\"cost\":1,\"inputs\":[\"$p\"]}"
        p=f$i; i=$((i + 1))
    done
    echo ']}'
} >"$T/chain.json"
run "$REMAT" transform "$T/chain.json" -o "$T/train.json"
expect_rc 0 "transform the chain"
start "$T/train.json" -s noremat
check 'chain32-train \| noremat \| budget 69.0 MiB \| peak 69.0 MiB' "chain: status"
before=$(status_line)
keys NPage NPage
check 'budget 57.2 MiB' "PgDn lowers the budget"
keys Left
check 'budget 56\.[0-9]+ MiB' "Left lowers it a little"
[ "$(status_line)" != "$before" ] || fail "status line unchanged by the slider"
keys b
type_line "40MiB"
check '\| budget 40.0 MiB \|' "typed budget"
keys p
check 'step 34 \(f32.grad\): .*<- peak' "p jumps to the peak"
keys h
check 'step 33 \(' "h moves the cursor left"
# mouse (SGR reports, as xterm sends them): press on the slider's left
# end, drag to the far right, release; click the curve's first column
col=$(screen | awk '/^budget .*\[/ { print index($0, "["); exit }')
row=$(screen | awk '/^budget .*\[/ { print NR; exit }')
if [ -n "$col" ] && [ -n "$row" ]; then
    keys -l "$(printf '\033[<0;%d;%dM' $((col + 1)) "$row")"
    check '\| budget 10.0 MiB \|' "mouse press on the slider's left end"
    keys -l "$(printf '\033[<32;%d;%dM' 99 "$row")"
    keys -l "$(printf '\033[<0;%d;%dm' 99 "$row")"
    check '\| budget 69.0 MiB \|' "mouse drag to the right end"
    keys -l "$(printf '\033[<0;12;10M\033[<0;12;10m')"
    check 'step 1 \(f1\):' "mouse click moves the time cursor"
else
    fail "no slider row"
fi
keys '?'
check 'Remat Explorer keys' "help"
check 'PgUp +budget up 10% \(coarse\)' "help lists the key table"
check 'Space +play/pause' "help lists play"
keys x q
wait_exit "chain: q"

# ---- compare: every solver at the budget, the batch fit, the sweep --------
start samples/chain32.json -s noremat -b 26
check 'chain32-train \| noremat \| budget 26 B' "compare: start at 26 B"
keys Tab Tab Tab Tab
check 'Every solver at budget 26 B' "compare view opens"
check 'greedy +peak +2[0-9] B +cost +\+[0-9.]+%' "compare: greedy row with a peak"
check 'noremat +peak +35 B .*OVER budget' "compare: noremat row over budget"
check 'chen +(peak|refused)' "compare: chen row"
# the gap column: each cost over the lower bound, the one solve --bound prints
lb=$("$REMAT" solve samples/chain32.json -s greedy -b 26 --bound -o /dev/null 2>&1 | sed -n "s/.*graph's order costs less than \([0-9.e+]*\);.*/\1/p")
check "gap: cost over the lower bound $(printf '%.6g' "$lb") " "compare: the bound of the gap column ($lb)"
# (on chain32 at 26 the bound over every order is that bound too: the line says so)
check "gap: cost over the lower bound $(printf '%.6g' "$lb") \\(no schedule in any order costs less\\)" "compare: the bound holds over every order"
check 'greedy +peak +2[0-9] B +cost +\+[0-9.]+% +[0-9.]+s +gap +\+[0-9.]+%' "compare: greedy's gap to the bound"
check 'noremat +peak +35 B .* gap +- +OVER budget' "compare: no gap for a plan over the budget"
# the fit waits behind every solver's row (some take their 3 s limit; a
# busy machine many times that: 5 minutes only catch a hang)
check 'batch fit in 26 B: x0\.74 of the batch without recomputation \(x1 peaks at 35 B\)' "compare: batch fit without recomputation" 3000
check '^ +nothing fits with noremat$' "compare: batch fit with the solver"
check 'Trade-off of noremat' "compare: sweep chart"
rows=$(grep -cE '^[* ] [a-z_0-9]+ +(peak|refused)' "$T/screen")
[ "$rows" -ge 3 ] || fail "compare shows $rows solver rows"
# the sweep filled the plan cache: the smallest budget comes back cached
keys a
check 'Choose a solver' "compare: picker"
num=$(screen | awk '$2 == "greedy" { print $1 } $3 == "greedy" { print $2 }' | head -1)
keys "$num" Enter
check 'Trade-off of greedy' "compare: sweep of greedy"
check '[*] greedy +peak' "compare: greedy marked current"
wait_for '\| greedy \|.*final' 100
keys '['
check '\| greedy \| budget 5 B \| .*\(cached\)' "compare: sweep plans are in the cache"
quit "compare: q"

# ---- export JSON: the plan goes with the structure the views draw ---------
start samples/chain32.json -s kusumoto-exact -b 26
check 'chain32-train \| kusumoto-exact \| budget 26 B \| .*final' "export json: kusumoto plan"
keys e
check 'export to' "export json: prompt"
type_line "$T/k.json"
check "wrote $T/k.json" "export json: reported"
python3 tests/validate.py samples/chain32.json "$T/k.json" >"$T/v" ||
    fail "exported plan: $(cat "$T/v")"
grep -qE '"structure":\{"title":"lower sets \(k=[0-9]+\)"' "$T/k.json" ||
    fail "exported plan lacks the lower-set structure"
# the structure view: the blocks with their sizes, and the caches between them
keys Tab Tab Tab
check 'Structure of kusumoto-exact: lower sets \(k=[0-9]+\)' "structure: lower sets"
check '\[block\] V_1 \([0-9]+, [0-9]+ B\): f1 ' "structure: V_1 with its size"
check '\[other\] cache after V_1 \(1, [0-9]+ B\): f[0-9]+' "structure: the cache after V_1"
quit "export json: q"

# ---- replay: r measures the shown plan in the background ------------------
start samples/chain32.json -s greedy -b 20
check 'chain32-train \| greedy \| budget 20 B \| peak 20 B .*final' "replay: greedy plan"
keys r
check 'replay \(cpu, scale [0-9.e+]+, [0-9.]+s\): measured peak [0-9.]+ [KMG]?i?B vs simulated 20 B \([+-][0-9.]+%\)' "replay: message"
check 'cost \+[0-9.]+% \| final .*\| measured [0-9.]+ [KMG]?i?B [+-][0-9.]+%' "replay: status line difference"
check '×' "replay: measured overlay drawn"
# another plan on screen: the overlay and the difference go away
keys ']'
check '\| budget 35 B \| peak 35 B \| cost [+-][0-9.]+% \| final' "replay: hidden for another plan"
quit "replay: q"

# --backend cuda: r runs remat-cuda where the build has it (its answer, or
# its reason when there is no device); otherwise the option is refused
if [ -x "$(dirname "$REMAT")/remat-cuda" ]; then
    # its temporary directory goes under $TMPDIR: one of this test's own
    mkdir -p "$T/tmpd"
    export TMPDIR="$T/tmpd"
    start samples/chain32.json -s greedy -b 20 --backend cuda
    check 'chain32-train \| greedy \| budget 20 B .*final' "cuda replay: plan"
    keys r
    check 'replay \(cuda, .*measured peak .* vs simulated 20 B|replay failed: remat-cuda failed: .+' "cuda replay: answer"
    quit "cuda replay: q"
    unset TMPDIR
    [ -z "$(ls -A "$T/tmpd")" ] || fail "cuda replay left $(ls -A "$T/tmpd") behind"
else
    REMAT_NO_DISPLAY=1 run "$REMAT" tui samples/chain32.json --backend cuda
    expect_rc 1 "cuda replay: refused without remat-cuda"
    expect_err "built without CUDA" "cuda replay: says why"
fi

# --plan / --replay reopen an earlier plan and its measurement
run "$REMAT" solve samples/chain32.json -s greedy -b 22 -o "$T/p22.json"
expect_rc 0 "solve a plan to reopen"
run "$REMAT" replay samples/chain32.json "$T/p22.json" -o "$T/m22.json"
expect_rc 0 "replay it to a file"
start samples/chain32.json --plan "$T/p22.json" --replay "$T/m22.json"
check 'chain32-train \| greedy \| (budget 22 B \| )?peak 2[0-2] B \| cost \+[0-9.]+% \| final .*\| measured [0-9.]+ [KMG]?i?B [+-][0-9.]+%' "reopen: plan and measurement shown"
check '^budget 22 B ' "reopen: the plan's budget on the slider"
check '×' "reopen: overlay drawn"
quit "reopen: q"
REMAT_NO_DISPLAY=1 run "$REMAT" tui samples/kumar_fig1.json --plan "$T/p22.json"
expect_rc 1 "reopen: a plan of another graph is refused"
expect_err "the plan is for graph 'chain32-train', not for 'kumar-fig1'" "reopen: names both graphs"

# ---- play: space steps the time cursor on a timer --------------------------
start samples/chain32.json -s noremat
check 'chain32-train \| noremat \| .*final' "play: plan"
keys p Space
check '^> step [0-9]+/65 runs [a-z0-9.]+: allocates 1 B; frees' "play: step line"
first=$(grep -oE '^> step [0-9]+' "$T/screen" | grep -oE '[0-9]+$')
# the play line's step, playing (>) or paused (||)
play_step() { screen | grep -oE '^(>|\|\|) step [0-9]+' | grep -oE '[0-9]+$' | head -1; }
# any later step: a busy machine may draw several steps at once
wait_until '[ "$(play_step)" -gt "$first" ] 2>/dev/null' || fail "play: cursor did not advance from step $first"
keys Space
check '^\|\| step [0-9]+/65 runs' "play: space pauses"
a=$(play_step)
check "└─*step $a/65" "play: the curve's cursor label follows"
sleep 0.6   # nothing may move while paused (a wait for a non-event)
b=$(play_step)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "play: paused cursor moved ($a -> $b)"
# l steps while paused (h at the last step, where play may have ended up)
if [ "$b" -lt 65 ]; then keys l; want=$((b + 1)); else keys h; want=$((b - 1)); fi
check "^\\|\\| step $want/65" "play: l/h steps while paused"
keys Escape
check '\?:help  q:quit' "play: Esc hides the line"
quit "play: q"

# ---- graph view: dot layout, labels, pan, zoom, selection -------------------
start samples/chain32.json -s greedy -b 20
check 'chain32-train \| greedy \| budget 20 B .*final' "graph: plan"
keys BTab
check 'chain32-train: 66 nodes, zoom 1x' "graph view opens"
check '(^| )f1( |$)' "graph: node labels drawn"
check 'id +x$' "graph: the top node is selected"
keys n
check 'id +f1$' "graph: n selects the next node"
check 'op +[a-z]+' "graph: op of the selected node"
check 'size +1 B' "graph: size of the selected node"
keys N N
check 'id +f32.grad|id +[a-z0-9.]+$' "graph: N goes back (wraps)"
keys '+'
check 'zoom 1.5x' "graph: + zooms in"
keys '-' '-'
check 'zoom 0.67x' "graph: - zooms out"
keys n
check 'id +x$' "graph: n wraps to the first node"
row_of_x() { screen | grep -nE '^ +x +│' | head -1 | cut -d: -f1; }
r1=$(row_of_x)
keys j
wait_until '[ -n "$r1" ] && [ "$(row_of_x)" = $((r1 - 2)) ]' ||
    fail "graph: j should move the drawing up 2 rows (x at row '$r1' then '$(row_of_x)')"
# the view's own keys leave the budget alone
check '\| budget 20 B \|' "graph: arrows pan, not the budget"
# a recomputed node's runs: n walks the nodes, one drawn selection at a time
selected_id() { screen | sed -n 's/.* id \{1,\}\([^ ]*\)$/\1/p' | head -1; }
for i in $(seq 1 12); do
    screen | grep -qE 'runs +[2-9] \(recomputed\)' && break
    was=$(selected_id)
    keys n
    wait_until '[ "$(selected_id)" != "$was" ]'
done
check 'runs +[2-9] \(recomputed\)' "graph: a recomputed node says so"
quit "graph: q"

# ---- never block: Ctrl-C during a long solve quits at once -----------------
# checkmate's MILP runs up to its 60 s limit on this graph; wait_exit allows
# 30 s, which only a quit that waits for the solve exceeds
# (at 100 columns the graph's name gives way to "by cascade, gap X%" once
# the search has told a bound: the status line's state and solver stay)
start samples/models/resnet18.json -s checkmate -b 60%
check '(^ *|\| )checkmate \| .*(solving|refining)' "ctrl-c: a long solve runs"
keys C-c
wait_exit "ctrl-c during checkmate" 300
start samples/models/resnet18.json -s checkmate -b 60%
check '(^ *|\| )checkmate \| .*(solving|refining)' "q: a long solve runs"
quit "q during checkmate"

# an export runs in the background: the message says so, then the file
start samples/transformer_small.json -s greedy -b 80%
check '\| greedy \| .*final' "export: plan"
keys e
type_line "$T/tf.svg"
check "wrote .*tf\.svg \(svg, [0-9.]+s\)" "export: svg written by the background task"
grep -q '<svg' "$T/tf.svg" || fail "export: no SVG in $T/tf.svg"
ls -A "$T" | grep -q '^\.tf\.svg\.' && fail "export: left its temporary file"
keys e
type_line "$T/tf.pdf"
check "export: '.*tf\.pdf': name a \.dot, \.gv, \.svg, \.png or \.json file" "export: format from the name"
quit "export: q"

# ---- structures on the timeline ----------------------------------------------
start samples/chain32.json -s kusumoto-exact -b 26
check 'chain32-train \| kusumoto-exact \| budget 26 B \| .*final' "timeline: kusumoto plan"
check 'peak 26 B at step 34 \(f32\.grad\), [0-9]+ recomputation steps' "timeline: recomputation steps counted"
check '^ +0└.*▴' "timeline: recomputation steps marked on the time axis"
check '^ +block ├V_1─*┤' "timeline: the blocks as a band under the curve"
check 'V_1┄' "timeline: where V_1 is recomputed"
keys '}'
check 'selected V_1: 10 nodes, first runs at steps 1-10, [1-9][0-9]* recomputation steps' "timeline: } selects a block"
keys Tab Tab Tab
check '^> \[block\] V_1 \(10, 10 B\)' "timeline: the structure view shows the same selection"
check 'selected V_1: first runs at steps 1-10' "timeline: structure view header"
keys j
check '^> \[block\] V_2 ' "timeline: j selects the next block"
quit "timeline: q"
# TWRemat's recursion: its separators as spans, level by level
start samples/chain32.json -s twremat -b 20
check '^ +bag +├separator, level 0─*┤' "timeline: TWRemat's separator span"
keys b
type_line 1
check 'budget clamped to the range 5 B \(5\) \.\. 35 B \(35\)' "timeline: a clamped budget says the range, exactly"
quit "twremat: q"
# above the budget: counted on the curve (17 steps of noremat's 65 exceed 26 B)
"$REMAT" solve samples/chain32.json -s noremat -o "$T/n.json" 2>/dev/null
over=$("$REMAT" simulate samples/chain32.json "$T/n.json" --csv | awk -F, 'NR > 1 && $3 + 0 > 26' | wc -l)
start samples/chain32.json -s noremat -b 26
check "peak 35 B at step 34 \(f32\.grad\), $over steps over the budget" "timeline: steps over the budget ($over)"
quit "over budget: q"

# ---- what to recompute: the ranking at the peak, pin and force ------------------
start samples/chain32.json -s fastsa -b 26
check 'chain32-train \| fastsa \| budget 26 B \| .*final' "recompute: fastsa plan"
keys Tab Tab
check 'Worth recomputing at step 34 \(f32\.grad\), the peak' "recompute: ranking at the peak"
check '^> f[0-9]+ +1 B +[0-9]+ +1 +[0-9]+ (held|gone) +keeps it' "recompute: the best candidate selected"
# j moves the selection down the ranking; the second candidate is forced
keys j
check '^> f[0-9]+ ' "recompute: a row selected"
wait_until '[ "$(screen | awk '"'"'$1 == ">" { print NR; exit }'"'"')" = 5 ]' ||
    fail "recompute: j did not select the second row"
sel=$(screen | awk '$1 == ">" { print $2; exit }')
keys F
check "forced \(recompute\) $sel; solving again with pin=- force=$sel" "recompute: F forces $sel"
check "fastsa \| budget 26 B \| .*final .*\| force $sel" "recompute: fastsa solved with force=$sel"
check "^  $sel +[2-9] " "recompute: the plan recomputes $sel"
# a solver that cannot honour the rule says so; C clears it
num=$("$REMAT" list-solvers | grep '^[a-z]' | awk '$1 == "greedy" { print NR }')
keys a "$num" Enter
check 'greedy cannot honour pin/force' "recompute: greedy refuses force="
keys C
check 'no node pinned or forced' "recompute: C clears the rules"
check 'chain32-train \| greedy \| budget 26 B \| .*final' "recompute: greedy solves without rules"
quit "recompute: q"

# ---- a graph a person can read: kumar_fig1 whole at the opening zoom --------------
start samples/kumar_fig1.json
keys BTab
check 'kumar-fig1: 5 nodes, zoom 1x' "graph: kumar view"
screen | sed -n '3,26p' | cut -c1-68 >"$T/drawing"
for n in A B C D E; do
    grep -qE "(^| )$n( |$)" "$T/drawing" || { fail "graph: node $n not drawn"; cat "$T/drawing"; }
done
[ "$(grep -o '[│─┌┐└┘├┤┬┴┼]' "$T/drawing" | wc -l)" -ge 12 ] ||
    { fail "graph: kumar's six edges not drawn"; cat "$T/drawing"; }
keys /
check 'search id or op: _' "graph: / asks for a search"
type_line D
check 'id +D$' "graph: search selects D"
keys f
check 'kumar-fig1: 5 nodes, zoom 1x, focus D' "graph: f focuses on D"
check 'in 2, out 1' "graph: D's inputs and consumers"
keys f
check 'kumar-fig1: 5 nodes, zoom 1x \(' "graph: f again shows the whole graph"
quit "graph kumar: q"

# ---- details: the picker edits options, help explains views and columns ---------
start samples/chain32.json -s noremat
check 'chain32-train \| noremat \| .*final' "picker options: plan"
keys a
check 'Choose a solver' "picker options: picker"
num=$(screen | awk '$2 == "fastsa" { print $1 } $3 == "fastsa" { print $2 }' | head -1)
keys 1
i=1; while [ $i -lt "$num" ]; do keys Down; i=$((i + 1)); done
keys Tab
check 'options of fastsa \(value in force\)' "picker options: fastsa's options"
check '^ +> [a-z_]+ += ' "picker options: the first option highlighted"
highlighted() { screen | sed -n 's/^ *> \([a-z_]*\) .*/\1/p' | head -1; }
for i in 1 2 3 4 5 6 7 8 9 10; do
    screen | grep -qE '^ +> time_limit ' && break
    was=$(highlighted)
    keys Down
    wait_until '[ "$(highlighted)" != "$was" ]'
done
check '^ +> time_limit += [^ ]+ +\(default\)' "picker options: time_limit and its default"
keys Enter
check 'value \(empty: default\): [^ ]+_' "picker options: editing time_limit"
keys C-u
type_line 1
check 'time_limit += 1 +\(set\)' "picker options: the value in force"
check 'fastsa: time_limit = 1' "picker options: message"
keys Left Enter
check 'chain32-train \| fastsa \| .*final' "picker options: fastsa solves with them"
keys '?'
check 'Views \(Tab / Shift-Tab\)' "help: the views"
keys NPage
check 'Recompute +at the time cursor, the held values worth recomputing' "help: what the Recompute view shows"
keys NPage NPage
check 'why +input: resident all along' "help: the inspector's columns"
keys x q
wait_exit "details: q"

# ---- b min: the tightest budget, as `remat solve --budget min` gives it --------
cli=$("$REMAT" solve samples/chain32.json -s chen --budget min 2>&1 | sed -n 's/.*tightest budget reached \([0-9]* B\).*/\1/p')
[ "$cli" = "13 B" ] || fail "solve --budget min -s chen: reached '$cli', not 13 B"
start samples/chain32.json -s chen
check 'chain32-train \| chen \| .*final' "b min: opens"
keys b
type_line min
check "tightest budget reached $cli \\(37\\.1% of the baseline peak\\); the peak bound is 5 B" "b min: what it reached and the bound, as solve --budget min says it"
check "chain32-train \| chen \| budget $cli \| peak $cli \|.*final" "b min: the slider moved to it, the plan final"
num=$(awk '$2 == "greedy" { print $1 }' "$T/solvers")
keys a "$num" Enter
check 'chain32-train \| greedy \| .*final' "b min: greedy chosen"
keys b
type_line min
check 'chain32-train \| greedy \| budget 5 B \| peak 5 B \|.*final' "b min, then greedy: at the peak bound"
keys Right
check 'chain32-train \| greedy \| budget [6-9] B' "b min: the slider moves on from there"
quit "b min: q"
# and from the command line: -b min opens on it
start samples/chain32.json -s chen -b min
check "chain32-train \| chen \| budget $cli \| peak $cli \|.*final" "tui -b min: opens on the tightest budget"
check "tightest budget reached $cli \\(37\\.1% of the baseline peak\\); the peak bound is 5 B" "tui -b min: says what it reached"
quit "tui -b min: q"

# ---- without a terminal: the info and the curve, as text ----------------
run "$REMAT" tui samples/kumar_fig1.json
expect_rc 0 "tui without a tty"
expect_out 'baseline  peak 4 \(4 B\) at step 4 \(D\)' "tui without a tty prints the info"
finish
