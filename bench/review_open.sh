#!/bin/bash
# How long `ws review` takes to open, and its peak memory (issue 10), next to
# `git status -uall` in the same view.
#   bench/review_open.sh [WS_BINARY] [NEW_FILES] [SPARSE_WITHHELD_SIZE]
# e.g. bench/review_open.sh build/ws 200000        200,000 small new files
#      bench/review_open.sh build/ws 0 2G          one 2 GB sparse withheld file
# Needs tmux (ws review needs a terminal). Everything lives in a temporary directory.
set -euo pipefail
WS=$(realpath "${1:-build/ws}")
N=${2:-200000}
BIG=${3:-}
T=$(mktemp -d)
export XDG_DATA_HOME=$T/data XDG_RUNTIME_DIR=$T/run
mkdir -p -m 700 "$T/run"
cleanup() {
  tmux -S "$T/sock" kill-server 2>/dev/null || true
  (cd "$T/repo" && "$WS" umount >/dev/null 2>&1) || true
  rm -rf "$T"
}
trap cleanup EXIT
git init -q "$T/repo"
cd "$T/repo"
echo hello >README.md
git add -A
git -c user.name=bench -c user.email=bench@example.com commit -qm init
"$WS" new >/dev/null
VIEW=$("$WS" mount | head -n 1)
if [ "$N" -gt 0 ]; then
  python3 - "$VIEW" "$N" <<'PY'
import os, sys
view, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(view, "gen", "d%04d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
        f.write("line %d\n" % i)
PY
fi
if [ -n "$BIG" ]; then
  truncate -s "$BIG" "$VIEW/big.bin"
fi
now() { date +%s.%N; }
t0=$(now)
git -C "$VIEW" status -uall --porcelain | wc -l >/dev/null
t1=$(now)
tmux -S "$T/sock" -f /dev/null new-session -d -x 120 -y 40 \
  "XDG_DATA_HOME=$XDG_DATA_HOME XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $WS review; sleep 600"
until tmux -S "$T/sock" capture-pane -p | grep -q "decided"; do sleep 0.1; done
t2=$(now)
shell=$(tmux -S "$T/sock" display-message -p '#{pane_pid}')
pid=$(ps -o pid= --ppid "$shell" | head -n 1 | tr -d ' ')
peak=$(awk '/^VmHWM/ {print $2 " " $3}' "/proc/$pid/status")
echo "new files: $N  sparse withheld: ${BIG:-none}"
echo "git status -uall in the view: $(echo "$t1 - $t0" | bc) s"
echo "ws review open:               $(echo "$t2 - $t1" | bc) s (peak RSS $peak)"
