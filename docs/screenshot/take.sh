#!/usr/bin/env bash
# Takes docs/lsp-hints.png: examples/app/main.tf without its warning comments, in Neovim
# (tmux, 100x28) with override-guard lsp's hints and diagnostics, rendered to PNG.
#   docs/screenshot/take.sh [BINARY]      (default: target/release/override-guard)
# Needs nvim, tmux, git, Python 3 with Pillow, and the DejaVu Sans Mono font.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-target/release/override-guard}")
work=$(mktemp -d)
trap 'tmux kill-session -t og-shot 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/app"
cp examples/app/*.tf "$work/app/"
grep -v '^# WARNING' examples/app/main.tf >"$work/app/main.tf"
git -C "$work" init -q && git -C "$work" add -A && git -C "$work" -c user.name=x -c user.email=x@x commit -qm app
tmux new-session -d -s og-shot -x 100 -y 28 \
  "cd '$work/app' && TERM=xterm-256color OG_BIN='$bin' nvim --clean -u '$PWD/docs/screenshot/hints.lua' main.tf"
sleep 4
tmux capture-pane -t og-shot -e -p >"$work/screen.ansi"
python3 docs/screenshot/render.py "$work/screen.ansi" docs/lsp-hints.png
echo "wrote docs/lsp-hints.png"
