#!/bin/sh
# Summaries by directory on a real `npm install` workspace (issue 13): the end-of-session
# summary of `ws run` (24 lines of 80 columns), `ws status` and the output of `ws apply` each
# fit one screen (24 lines), node_modules/ being one line with its count; `--verbose` and
# `--json` list every path. Skipped (77) without /dev/fuse, npm or the npm registry.
# Usage: npm_summaries.sh WS_BINARY
set -eu
ws=$(realpath "$1")
[ -r /dev/fuse ] || { echo "skipped: no /dev/fuse"; exit 77; }
command -v npm >/dev/null || { echo "skipped: npm is not installed"; exit 77; }
timeout 30 npm ping >/dev/null 2>&1 || { echo "skipped: the npm registry is unreachable"; exit 77; }
tmp=$(mktemp -d /var/tmp/ws-npm.XXXXXX)
trap 'cd /; XDG_DATA_HOME=$tmp/d XDG_RUNTIME_DIR=$tmp/r "$ws" -C "$tmp/p" umount --force >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/p" "$tmp/r" && chmod 700 "$tmp/r"
cd "$tmp/p" && git init -q
printf '{\n  "name": "t",\n  "version": "1.0.0",\n  "private": true\n}\n' > package.json
mkdir src && echo 'console.log(1)' > src/index.js
git add -A && git -c user.name=t -c user.email=t@t commit -qm init
export XDG_DATA_HOME="$tmp/d" XDG_RUNTIME_DIR="$tmp/r"
"$ws" new >/dev/null 2>&1
fail() { echo "FAILED: $*"; exit 1; }
screen() { # NAME FILE: at most 24 lines
  n=$(wc -l < "$2")
  [ "$n" -le 24 ] || { cat "$2"; fail "$1 takes $n lines, more than a screen"; }
}
narrow() { # NAME FILE: at most 80 columns (the session summary; ws status names paths whole)
  wide=$(awk 'length($0) > 80' "$2")
  [ -z "$wide" ] || { cat "$2"; fail "$1 has lines wider than 80 columns: $wide"; }
}

# The agent installs a package with dependencies (hundreds of files) and edits a source file.
"$ws" run --network=on -- sh -c \
  'npm install --no-audit --no-fund --loglevel=error express@4 >/dev/null && echo "console.log(2)" > src/index.js' \
  > "$tmp/run.out" 2> "$tmp/run.err" || { cat "$tmp/run.err"; fail "ws run npm install"; }
view=$("$ws" mount)
files=$(cd "$view" && find node_modules ! -type d | wc -l)
[ "$files" -gt 200 ] || fail "npm installed only $files files"
count=$(printf '%d' "$files" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') # 1234 -> 1,234

# The session summary: from "ws: session ... ended" to the line saying how to go on.
sed -n '/^ws: session .* ended/,/^review: /p' "$tmp/run.err" > "$tmp/summary"
screen "the session summary" "$tmp/summary"
narrow "the session summary" "$tmp/summary"
grep -q "^  A  node_modules/ *$count files  under node_modules/\$" "$tmp/summary" ||
  { cat "$tmp/summary"; fail "node_modules/ is not one line of $count files in the summary"; }
grep -q "^  M  src/index.js\$" "$tmp/summary" || { cat "$tmp/summary"; fail "src/index.js"; }

"$ws" status > "$tmp/status"
screen "ws status" "$tmp/status"
grep -q "^A node_modules/  $count files  (WITHHELD: under node_modules/)\$" "$tmp/status" ||
  { cat "$tmp/status"; fail "node_modules/ is not one line of ws status"; }
grep -q "^A package-lock.json  (FLAGGED: " "$tmp/status" || { cat "$tmp/status"; fail "lock file"; }
verbose=$("$ws" status --verbose | grep -c '^A node_modules/.*(WITHHELD: under node_modules/)$')
[ "$verbose" -eq "$files" ] || fail "ws status --verbose lists $verbose of $files paths"
json=$("$ws" status --json | grep -c '"path": "node_modules/')
[ "$json" -eq "$files" ] || fail "ws status --json lists $json of $files paths"
"$ws" diff --no-pager > /dev/null 2> "$tmp/diff.err"
grep -q "^#   A  node_modules/ *$count files  under node_modules/\$" "$tmp/diff.err" ||
  { cat "$tmp/diff.err"; fail "node_modules/ is not one line of ws diff's report"; }
dv=$("$ws" diff --no-pager --verbose 2>&1 >/dev/null | grep -c '^#   A  node_modules/')
[ "$dv" -eq "$files" ] || fail "ws diff --verbose lists $dv of $files paths"

"$ws" apply > "$tmp/apply" 2>&1 || { cat "$tmp/apply"; fail "ws apply"; }
screen "ws apply" "$tmp/apply"
grep -q "^  A  node_modules/ *$count files  under node_modules/\$" "$tmp/apply" ||
  { cat "$tmp/apply"; fail "node_modules/ is not one line of ws apply's report"; }
grep -q "^applied 3 changes" "$tmp/apply" || { cat "$tmp/apply"; fail "apply landed"; }
[ ! -e "$tmp/p/node_modules" ] || fail "node_modules/ landed"
grep -q '"express"' "$tmp/p/package.json" || fail "package.json did not land"
[ -z "${WS_TEST_SHOW:-}" ] || cat "$tmp/summary" "$tmp/status" "$tmp/apply"
echo "npm summaries: $files files under node_modules/, each report one screen"
