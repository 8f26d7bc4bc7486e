#!/bin/sh
# deps.sh — install the Debian packages the build and tests need, if absent.
# Checks first (dpkg -s), so on a prepared machine it does nothing; otherwise
# runs apt-get (through sudo when not root).
set -e
PKGS="build-essential pkg-config libcjson-dev libgraphviz-dev graphviz libcmocka-dev libglpk-dev coinor-libcbc-dev libncurses-dev tmux clang python3-torch python3-torchvision python3-onnx"
missing=""
for p in $PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
