# tmux.sh — driving the explorer in a real pty (tmux on a private socket)
# for the command-line tests. Source it after lib.sh; it skips the test
# when tmux is missing. start GRAPH [OPTIONS] opens the explorer in a
# 100x30 window; screen, keys, type_line, wait_for, check, status_line,
# quit and wait_exit drive and read it.
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 0; }
case "$REMAT" in /*) ;; *) REMAT="$PWD/$REMAT" ;; esac
SOCK="remat-test-$$"
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT

screen() { tm capture-pane -p -t tui; }
keys() { tm send-keys -t tui "$@"; }
# type_line TEXT: TEXT into the open prompt, then Enter
type_line() { keys -l "$1"; keys Enter; }
# Waits are for conditions; their limits only catch a hang (60 s unless
# said), so a slow or busy machine never fails a test.
# wait_for REGEX [TENTHS]: poll the screen until it matches (default 60 s)
wait_for() {
    n=${2:-600}
    while [ "$n" -gt 0 ]; do
        screen >"$T/screen" 2>/dev/null
        grep -qE -- "$1" "$T/screen" && return 0
        sleep 0.1; n=$((n - 1))
    done
    return 1
}
check() { # REGEX WHAT [TENTHS]
    wait_for "$1" "${3:-600}" || { fail "$2: screen lacks /$1/"; cat "$T/screen"; }
}
status_line() { screen | grep -E '\| peak .* \| cost ' | head -1; }
# start GRAPH [OPTIONS]: the explorer (arguments without spaces) in a 100x30 window; its exit status lands in $T/rc
start() {
    rm -f "$T/rc"
    tm kill-server 2>/dev/null
    tm -f /dev/null new-session -d -s tui -x 100 -y 30 \
        "TERM=xterm-256color sh -c 'trap : INT; \"$REMAT\" tui $* 2>\"$T/stderr\"; echo \$? > \"$T/rc\"'"
    tm set-option -g window-size manual 2>/dev/null
}
# wait_until 'CONDITION' [TENTHS]: poll a shell condition (default 60 s)
wait_until() {
    n=${2:-600}
    while [ "$n" -gt 0 ]; do
        eval "$1" && return 0
        sleep 0.1; n=$((n - 1))
    done
    return 1
}
# quit WHAT: q, then the explorer must exit with status 0
quit() { keys q; wait_exit "$1"; }
# wait_exit WHAT [TENTHS]: the explorer must exit with status 0 (default 60 s)
wait_exit() {
    n=${2:-600}
    while [ ! -s "$T/rc" ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
    [ "$(cat "$T/rc" 2>/dev/null)" = 0 ] || {
        echo "FAIL: $1: exit status '$(cat "$T/rc" 2>/dev/null)'"
        head -c 4000 "$T/stderr" 2>/dev/null
        fails=$((fails+1))
    }
}

