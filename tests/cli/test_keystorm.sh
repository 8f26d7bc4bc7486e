#!/bin/sh
# test_keystorm.sh — a scripted storm against the explorer in a real pty:
# random keys (every global action but quit, view keys, digits, mouse
# clicks), window resizes down to a few cells, typed budgets (good and
# bad), view switches, the solver picker, exports (.svg .png .dot .json and
# a bad name, cancelled with x or not) and replays. The explorer must then
# quit with status 0 and print nothing: under AddressSanitizer (build-san)
# and ThreadSanitizer (make tsan-check) any report fails the test. The
# storm is random but reproducible: REMAT_STORM_SEED=N replays one (the
# seed is printed). Then q while a large export renders: a clean exit, no
# temporary file left. Waits are for conditions, with limits that only
# catch a hang.
. tests/cli/lib.sh
. tests/cli/tmux.sh
SEED=${REMAT_STORM_SEED:-$$}
# the explorer parks stderr while the screen is up and a sanitizer's abort
# never gives it back: reports go to files of their own
for v in ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
    eval "export $v=\"\${$v:+\$$v:}log_path=$T/san\""
done
echo "storm seed $SEED (REMAT_STORM_SEED=$SEED replays it)"

# wait_io LIMIT: until no export has been running for a second (an export
# holds its temporary file, .NAME.XXXXXX, beside its target in $T from its
# start to its end), or LIMIT seconds have passed
wait_io() {
    end=$(($(date +%s) + $1)); quiet=0
    while [ "$(date +%s)" -lt "$end" ] && [ ! -s "$T/rc" ] && [ $quiet -lt 5 ]; do
        if ls -A "$T" | grep -qE '^\.[a-z]+\.(svg|png|dot|json)\.'; then quiet=0; else quiet=$((quiet + 1)); fi
        sleep 0.2
    done
}

# storm GRAPH N SEED: N random actions against the explorer on GRAPH
storm() {
    start "$1"
    wait_for '\| peak .* \| cost ' 600 || { fail "$1: the explorer did not start"; cat "$T/screen"; return; }
    awk -v n="$2" -v seed="$3" -v dir="$T" 'BEGIN {
        srand(seed)
        # keys sent as tmux key names: the global actions (q left out), the
        # views own keys, digits, and a few that mean nothing
        split("Tab BTab Left Right NPage PPage [ ] h l Home End p } { P F C Space Escape A C-l ? " \
              "Up Down Enter j k n N / 1 2 3 4 5 6 7 8 9 0 + - z Z s S g G m M t T w W", key, " ")
        nk = 0; for (i in key) nk++
        for (i = 0; i < n; i++) {
            r = rand()
            if (r < 0.06) {         # a resize, sometimes tiny
                w = int(rand() < 0.2 ? 2 + rand() * 20 : 30 + rand() * 140)
                h = int(rand() < 0.2 ? 2 + rand() * 6 : 8 + rand() * 45)
                print "resize " w " " h
            } else if (r < 0.10) {  # a typed budget, good or not
                split("60% 90% 10% 1B 3GiB 0 -5 abc 100% 55.5% 1e30", b, " ")
                print "budget " b[1 + int(rand() * 11)]
            } else if (r < 0.14) {  # an export, sometimes cancelled at once
                split("s.svg p.png d.dot j.json bad.txt", f, " ")
                print "export " dir "/" f[1 + int(rand() * 5)] (rand() < 0.4 ? " x" : "")
            } else if (r < 0.16) {
                print "keys r"      # replay the shown plan
            } else if (r < 0.19) {  # the picker: choose a solver by number, or leave
                print "keys a " (rand() < 0.5 ? int(1 + rand() * 9) " Enter" : "Escape")
            } else if (r < 0.21) {  # a mouse click somewhere (SGR report)
                printf "mouse %d %d\n", 1 + int(rand() * 100), 1 + int(rand() * 30)
            } else {
                m = 1 + int(rand() * 6); line = "keys"
                for (j = 0; j < m; j++)
                    line = line " " key[1 + int(rand() * nk)]
                print line
            }
            if (rand() < 0.3)
                print "pause"
        }
    }' >"$T/storm"
    while read -r what a b c; do
        case "$what" in
        resize) tm resize-window -t tui -x "$a" -y "$b" 2>/dev/null ;;
        budget) keys Escape b; keys -l -- "$a"; keys Enter ;;
        # the path is typed only into an open prompt: e while an export
        # runs is refused, and a path typed at the views is keys (a q in
        # the temporary directory's name quit the explorer mid-storm)
        export) keys Escape e
                if wait_for 'export to \(' 10; then
                    type_line "$a"; [ -n "$b" ] && keys "$b"
                fi ;;
        mouse) keys -l "$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' "$a" "$b" "$a" "$b")" ;;
        keys) keys $a $b $c 2>/dev/null ;;
        pause) sleep 0.05 ;;
        esac
    done <"$T/storm"
    # no key of the storm quits: an explorer gone by now ended on its own
    [ -s "$T/rc" ] && fail "$1: the explorer ended during the storm (status $(cat "$T/rc"), seed $3)"
    # back to a sane size, close whatever is open, let a running export end
    # (quitting under one is checked on its own below), quit
    tm resize-window -t tui -x 100 -y 30 2>/dev/null
    keys Escape Escape 2>/dev/null
    wait_io 300
    n=0
    while [ ! -s "$T/rc" ] && [ $n -lt 60 ]; do
        keys Escape Escape q 2>/dev/null
        sleep 0.5; n=$((n + 1))
    done
    wait_exit "$1: quit after $2 storm actions (seed $3)"
    if grep -qE 'Sanitizer|runtime error|Assertion' "$T/stderr" "$T"/san.* 2>/dev/null; then
        fail "$1: a sanitizer or assertion report (seed $3)"
        head -c 6000 "$T/stderr" "$T"/san.* 2>/dev/null
    fi
    rm -f "$T"/san.*
}

# quit_under_export GRAPH FILE: q while FILE is being exported: a clean
# exit (the explorer ends without the destructors that would run under a
# render it cannot stop), no sanitizer report, no temporary file and no FILE
quit_under_export() {
    start "$1"
    wait_for '\| peak .* \| cost ' 600 || { fail "$1: the explorer did not start"; return; }
    keys Escape e; type_line "$T/$2"
    wait_until "ls -A '$T' | grep -q '^\\.$2\\.'" || fail "$1: the export of $2 did not start"
    keys q
    wait_exit "$1: q during the export of $2"
    if grep -qE 'Sanitizer|runtime error|Assertion' "$T/stderr" "$T"/san.* 2>/dev/null; then
        fail "$1: a sanitizer or assertion report when quitting during an export"
        head -c 6000 "$T/stderr" "$T"/san.* 2>/dev/null
    fi
    ls -A "$T" | grep -q "^\.$2\." && fail "$1: the export's temporary file was left"
    [ -e "$T/$2" ] && [ ! -s "$T/$2" ] && fail "$1: an empty $2 was left"
    rm -f "$T"/san.* "$T/$2"
}

storm samples/unet_small.json 300 "$SEED"
# beyond 150 nodes the export is laid out by the graph view's layout; x
# cancels it half-way
storm samples/models/resnet18.json 120 $((SEED + 1))
# exports that take long enough to be seen running (resnet50's PNG 2.6 s,
# densenet121's SVG 1.7 s here; resnet18's SVG, 0.2 s, could end between
# two looks and fail the test)
quit_under_export samples/models/resnet50.json q.png
quit_under_export samples/models/densenet121.json q.svg
finish
