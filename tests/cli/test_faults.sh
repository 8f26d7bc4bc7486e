#!/bin/sh
# test_faults.sh — nothing the user had is lost when a write fails. Every
# command that writes a file (solve -o, convert, transform, export dot/svg/
# png, replay -o, fit -o) runs with a write failure injected through the
# write helper's seam (REMAT_FAULT_WRITE: the N-th write fails with ENOSPC,
# or fsync/close/rename fail with EIO), against an existing target and a
# new one: the old bytes stay, nothing new or temporary is left, and the
# error is one line naming the file and the cause. Then the same on a real
# full file system and a read-only one (a small tmpfs; skipped where mount
# is not permitted), and kill -9 in the middle of writing a large graph
# leaves the old file or the new one, never a mix.
. tests/cli/lib.sh
S=samples/kumar_fig1.json
# a forward-only graph for transform
{
    echo '{"format":"remat-graph","version":1,"name":"fwd","nodes":['
    echo '{"id":"x","phase":"input","size":1024,"cost":0}'
    p=x; i=1
    while [ $i -le 40 ]; do
        echo ",{\"id\":\"f$i\",\"phase\":\"fwd\",\"size\":$((1024 * (1 + i % 3))),\"cost\":1,\"inputs\":[\"$p\"]}"
        p=f$i; i=$((i + 1))
    done
    echo ']}'
} >"$T/fwd.json"
run "$REMAT" solve "$S" -s greedy -b 80% -o "$T/plan.json"
expect_rc 0 "a plan to replay and export"

# writer NAME OUT: the command that writes OUT
writer() {
    case "$1" in
    solve) "$REMAT" solve "$S" -s greedy -b 80% -o "$2" ;;
    convert) "$REMAT" convert samples/models/resnet50.json -o "$2" ;;  # 90 KB: two writes
    convert-dot) "$REMAT" convert samples/chain32.json --format dot -o "$2" ;;
    transform) "$REMAT" transform "$T/fwd.json" -o "$2" ;;
    export-dot) "$REMAT" export "$S" --plan "$T/plan.json" -o "$2" --format dot ;;
    export-svg) "$REMAT" export "$S" --plan "$T/plan.json" -o "$2" --format svg ;;
    export-png) "$REMAT" export "$S" -o "$2" --format png ;;
    export-big) "$REMAT" export samples/models/resnet18.json -o "$2" --format svg ;;
    replay) "$REMAT" replay "$S" "$T/plan.json" -o "$2" ;;
    fit) "$REMAT" fit samples/chain32.json --memory 100 --solver noremat -o "$2" ;;
    esac
}
WRITERS="solve convert convert-dot transform export-dot export-svg export-png export-big replay fit"

# leftovers DIR: entries other than the ones named after it
leftovers() {
    d=$1; shift
    ls -A "$d" | while read -r f; do
        keep=0
        for k in "$@"; do [ "$f" = "$k" ] && keep=1; done
        [ $keep = 1 ] || echo "$f"
    done
}

# each writer works without a fault (so the faults below are what fails)
mkdir -p "$T/ok"
for w in $WRITERS; do
    writer $w "$T/ok/out" >"$T/out" 2>"$T/err"; rc=$?
    [ "$rc" -eq 0 ] && [ -s "$T/ok/out" ] || fail "$w: no file without a fault (exit $rc): $(cat "$T/err")"
    [ -z "$(leftovers "$T/ok" out)" ] || fail "$w: left $(leftovers "$T/ok" out)"
    rm -f "$T/ok/out"
done

# check_fault WRITER SPEC CAUSE: existing and new targets under the fault
check_fault() {
    w=$1 spec=$2 cause=$3
    d="$T/f"
    rm -rf "$d"; mkdir -p "$d"
    printf 'the old bytes\n' >"$d/old.out"
    cp "$d/old.out" "$T/expect"
    REMAT_FAULT_WRITE=$spec writer $w "$d/old.out" >"$T/out" 2>"$T/err"; rc=$?
    [ "$rc" -ne 0 ] || fail "$w ($spec): exit 0 although the write failed"
    cmp -s "$d/old.out" "$T/expect" || fail "$w ($spec): the existing target lost its bytes"
    expect_one_line_err "$w ($spec)"
    grep -qF "$d/old.out: cannot write: $cause" "$T/err" ||
        fail "$w ($spec): error does not name the file and '$cause': $(cat "$T/err")"
    REMAT_FAULT_WRITE=$spec writer $w "$d/new.out" >"$T/out" 2>"$T/err"; rc=$?
    [ "$rc" -ne 0 ] || fail "$w ($spec): exit 0 for a new target"
    [ ! -e "$d/new.out" ] || fail "$w ($spec): a new target was left ($(wc -c <"$d/new.out") bytes)"
    left=$(leftovers "$d" old.out)
    [ -z "$left" ] || fail "$w ($spec): left behind: $left"
}
for w in $WRITERS; do
    check_fault $w 1 "No space left on device"
done
# a fault after the first buffers (64 KiB each): half a file must not
# count as written
check_fault convert 2 "No space left on device"
check_fault export-big 3 "No space left on device"
for step in fsync close rename; do
    check_fault solve $step "Input/output error"
done

# refused targets: one line naming the file and the cause
run "$REMAT" convert "$S" -o "$T/no/such/dir/g.json"
expect_rc 1 "missing directory"
expect_one_line_err "missing directory"
expect_err "$T/no/such/dir/g.json: cannot write: No such file or directory" "missing directory: cause"
run "$REMAT" solve "$S" -o "$T"
expect_rc 1 "a directory as the target"
expect_err "$T: cannot write: is a directory" "directory target: cause"
# '-' streams to stdout
run "$REMAT" convert "$S" -o -
expect_rc 0 "convert to stdout"
expect_out '"format":	"remat-graph"' "convert to stdout: the graph"

# ---- a real small file system: full, then read-only ------------------------
M="$T/mnt"
mkdir -p "$M"
if mount -t tmpfs -o size=64k tmpfs "$M" 2>/dev/null; then
    trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT
    "$REMAT" convert "$S" -o "$M/g.json" 2>"$T/err" || fail "tmpfs: small graph: $(cat "$T/err")"
    cp "$M/g.json" "$T/g.before"
    run "$REMAT" convert samples/models/resnet50.json -o "$M/g.json"
    expect_rc 1 "full disk: convert fails"
    expect_one_line_err "full disk"
    expect_err "$M/g.json: cannot write: No space left on device" "full disk: names file and cause"
    cmp -s "$M/g.json" "$T/g.before" || fail "full disk: g.json lost its bytes"
    run "$REMAT" info "$M/g.json"
    expect_rc 0 "full disk: the old graph still reads"
    run "$REMAT" export samples/models/resnet50.json -o "$M/r.svg"
    expect_rc 1 "full disk: export fails"
    expect_err "$M/r.svg: cannot write: No space left on device" "full disk: export names file and cause"
    [ -z "$(leftovers "$M" g.json)" ] || fail "full disk: left $(leftovers "$M" g.json)"
    if mount -o remount,ro "$M" 2>/dev/null; then
        run "$REMAT" convert "$S" -o "$M/g.json"
        expect_rc 1 "read-only: convert fails"
        expect_one_line_err "read-only"
        expect_err "$M/g.json: cannot write: Read-only file system" "read-only: names file and cause"
        cmp -s "$M/g.json" "$T/g.before" || fail "read-only: g.json changed"
    fi
    umount "$M"
else
    echo "skip: the real full-disk check (mount of a tmpfs not permitted here)"
fi

# ---- kill -9 while a large graph is written -------------------------------
# Two large graphs; the target holds one of them. A convert paused at its
# 20th write (the seam's pause:N, about 1.2 MB into the file) is killed: the
# target is still the old graph; by SIGINT, SIGTERM or SIGHUP, the temporary
# file is removed as well. Then converts killed at staggered times:
# every time the target is byte-equal to one of the two, never a mix.
awk 'BEGIN {
    for (k = 0; k < 2; k++) {
        f = k ? "B" : "A"; out = "'"$T"'/big" f ".json"
        print "{\"format\":\"remat-graph\",\"version\":1,\"name\":\"big" f "\",\"nodes\":[" > out
        print "{\"id\":\"x\",\"phase\":\"input\",\"size\":1024,\"cost\":0}" > out
        for (i = 1; i <= 40000; i++)
            printf ",{\"id\":\"n%d\",\"phase\":\"fwd\",\"size\":%d,\"cost\":1,\"inputs\":[\"%s\"]}\n",
                i, 1024 * (1 + (i + k) % 5), (i > 1 ? "n" (i - 1) : "x") > out
        print "]}" > out
        close(out)
    }
}'
mkdir -p "$T/k"
"$REMAT" convert "$T/bigA.json" -o "$T/k/A.json" || fail "kill: convert A"
"$REMAT" convert "$T/bigB.json" -o "$T/k/B.json" || fail "kill: convert B"
cmp -s "$T/k/A.json" "$T/k/B.json" && fail "kill: the two graphs are the same"
cp "$T/k/A.json" "$T/k/g.json"
# start_paused: a convert of bigB over g.json, paused at its 20th write;
# waits (a limit that only catches a hang) for its temporary file to hold
# the 19 writes before; pid and tmpf (empty when none appeared) are set
start_paused() {
    REMAT_FAULT_WRITE=pause:20 "$REMAT" convert "$T/bigB.json" -o "$T/k/g.json" 2>"$T/err" &
    pid=$!
    n=0; tmpf=
    while [ $n -lt 600 ]; do
        tmpf=$(ls -A "$T/k" | grep '^\.g\.json\.' | head -1)
        [ -n "$tmpf" ] && [ "$(wc -c <"$T/k/$tmpf")" -ge $((19 * 65536)) ] && break
        sleep 0.1; n=$((n + 1))
    done
}
start_paused
[ -n "$tmpf" ] || fail "kill: no temporary file appeared while writing"
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
cmp -s "$T/k/g.json" "$T/k/A.json" || fail "kill -9 mid-write: the target is not the old graph"
rm -f "$T/k"/.g.json.*
# Ctrl-C, a kill or a hang-up in the middle of a write: the same, and the
# temporary file is gone too (kill -9 leaves it; nothing else may)
for sig in INT TERM HUP; do
    start_paused
    [ -n "$tmpf" ] || fail "SIG$sig: no temporary file appeared while writing"
    kill -s $sig $pid 2>/dev/null; wait $pid 2>/dev/null
    rc=$?
    [ $rc -gt 128 ] || fail "SIG$sig mid-write: the process ended with $rc, not by the signal"
    cmp -s "$T/k/g.json" "$T/k/A.json" || fail "SIG$sig mid-write: the target is not the old graph"
    [ -z "$(ls -A "$T/k" | grep '^\.g\.json\.')" ] || fail "SIG$sig mid-write: the temporary file was left"
    rm -f "$T/k"/.g.json.*
done
i=0
while [ $i -lt 12 ]; do
    src=$([ $((i % 2)) = 0 ] && echo B || echo A)
    "$REMAT" convert "$T/big$src.json" -o "$T/k/g.json" 2>/dev/null &
    pid=$!
    # staggered: 0, 0.05, ... 0.55 s after the start, through load and write
    sleep "$(awk -v i=$i 'BEGIN { printf "%.2f", i * 0.05 }')"
    kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
    if ! cmp -s "$T/k/g.json" "$T/k/A.json" && ! cmp -s "$T/k/g.json" "$T/k/B.json"; then
        fail "kill -9 at $i: the target is neither graph ($(wc -c <"$T/k/g.json") bytes)"
    fi
    rm -f "$T/k"/.g.json.*
    i=$((i + 1))
done
finish
