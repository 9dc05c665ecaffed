#!/bin/sh
# Checkpoints cost what changed, with a real `npm install` (issue 13): an agent installs
# express in a view (hundreds of files in node_modules/), then a second session changes one
# file: its checkpoint adds a few kilobytes to the store, its summary speaks of that file
# alone and fits a screen, and `ws checkpoints` shows each one's size and the total.
# Skipped (77) where the npm registry or FUSE is unreachable.
# Usage: npm_checkpoint.sh WS_BINARY
set -eu
ws=$1
command -v npm >/dev/null || { echo "skipped: npm is not installed"; exit 77; }
[ -r /dev/fuse ] || { echo "skipped: no /dev/fuse"; exit 77; }
timeout 20 npm ping >/dev/null 2>&1 || { echo "skipped: the npm registry is unreachable"; exit 77; }
tmp=$(mktemp -d /var/tmp/ws-npm-ckpt.XXXXXX)
trap 'cd /; XDG_DATA_HOME=$tmp/d XDG_RUNTIME_DIR=$tmp/r "$ws" -C "$tmp/p" umount --force >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
mkdir -p "$tmp/p" "$tmp/r" && chmod 700 "$tmp/r"
cd "$tmp/p"
git init -q
printf '{ "name": "demo", "version": "1.0.0", "private": true }\n' > package.json
printf 'node_modules/\n' > .gitignore
echo "# demo" > README.md
git add -A && git -c user.name=t -c user.email=t@t commit -qm init
export XDG_DATA_HOME="$tmp/d" XDG_RUNTIME_DIR="$tmp/r"
"$ws" new >/dev/null 2>&1
"$ws" mount >/dev/null

# Session 1: the install (its cache in the sandbox's own home, thrown away with it).
"$ws" run --network=on -- npm install --no-audit --no-fund --loglevel=error express@4 \
  >"$tmp/install.out" 2>&1 || { cat "$tmp/install.out"; fail "npm install in the view"; }
files=$(find "$XDG_DATA_HOME"/ws/*/default/upper/node_modules -type f | wc -l)
[ "$files" -gt 300 ] || fail "npm install left $files files in node_modules/"

# Session 2: one file changed.
"$ws" run -- sh -c 'echo "more" >> README.md' >"$tmp/one.out" 2>&1 || {
  cat "$tmp/one.out"; fail "ws run of one edit"; }
cat "$tmp/one.out"
grep -q "^ws: 1 changed path since checkpoint 1[ :]" "$tmp/one.out" ||
  fail "the summary does not speak of the session's one change"
grep -q "node_modules/" "$tmp/one.out" && fail "the summary lists node_modules/ again"
[ "$(wc -l <"$tmp/one.out")" -le 24 ] || fail "the summary is longer than a screen"

json=$("$ws" checkpoints --json)
first=$(echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["bytes"])')
second=$(echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)[1]["bytes"])')
"$ws" checkpoints
echo "node_modules/: $files files; checkpoint 1 added $first bytes, checkpoint 2 $second"
[ "$first" -gt 1000000 ] || fail "the first checkpoint holds the install: $first bytes"
[ "$second" -le 16384 ] || fail "a one-file session's checkpoint added $second bytes"

# The first checkpoint brings the install back whole.
"$ws" run -- sh -c 'rm -rf node_modules' >/dev/null 2>&1
"$ws" restore 1 >/dev/null
"$ws" run -- node -e 'require("express"); console.log("express loads")' 2>/dev/null |
  grep -q "express loads" || fail "express does not load after ws restore 1"
echo "npm checkpoint: 1 passed, 0 failed"
