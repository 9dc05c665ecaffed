#!/bin/bash
# How long `ws review` takes to open, and its peak memory (issues 10 and 13), next to
# `git status -uall` and `ws status` in the same workspace and the same run.
#   bench/review_open.sh [WS_BINARY] [NEW_FILES] [SPARSE_WITHHELD_SIZE]
#   bench/review_open.sh WS_BINARY --withheld N --changed M [--dir DIR] [--before OLD_WS] [--runs R]
# e.g. bench/review_open.sh build/ws 50000                          50,000 small new files
#      bench/review_open.sh build/ws 0 2G                           one 2 GB sparse withheld file
#      bench/review_open.sh build/ws --withheld 100000 --changed 1000
#           100,000 files under node_modules/ (withheld) and 1,000 tracked text files edited
# --dir DIR keeps the workspace in DIR and reuses it next time (making 100,000 files through
# the view takes minutes). --before OLD_WS opens the same workspace with another build too,
# alternating with WS_BINARY, --runs times each (default 1): before/after in the same run.
# Each binary opens the review three times per run:
#   kept   right after its own `ws status`: the kept plan (docs/transfer.md, "The plan
#          cache") is the plan of now
#   stale  after the agent wrote one file since: the kept plan is out of date, the review
#          brings it up to date by name or plans in full (and shows the kept list meanwhile,
#          where it does)
#   none   with no kept plan at all (as after a session, or a new binary): the review plans
#          in full (and shows the changes found before their verdicts meanwhile, where it
#          does)
# Reported, per open:
#   screen  the review's screen is up and takes keys (they are kept while it loads)
#   list    a list of the changes is on screen (the kept one while planning, or the final)
#   final   the list of now is shown (every change has its verdict; decisions may be made)
#   cpu     the review's CPU time (user+sys) when each was shown
#   keys    three keys typed right after the first screen (j j r) came out in order: the
#           third file rejected; or, where the row the cursor was on is not in the list of
#           now (a directory found before the verdicts, whose files transfer), not applied
#           and the person told so (never applied to another row)
# and once per binary, expanding the largest folded directory (Enter). Wall times move with
# the machine's load; read the CPU times and the ratios within one run. Needs tmux.
set -euo pipefail
WS=$(realpath "${1:-build/ws}")
shift || true
N=0 BIG="" WITHHELD=0 CHANGED=0 DIR="" BEFORE="" RUNS=1
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  N=$1
  shift
  if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
    BIG=$1
    shift
  fi
elif [ $# -eq 0 ]; then
  N=200000
fi
while [ $# -gt 0 ]; do
  case $1 in
  --withheld) WITHHELD=$2; shift 2 ;;
  --changed) CHANGED=$2; shift 2 ;;
  --dir) DIR=$2; shift 2 ;;
  --before) BEFORE=$(realpath "$2"); shift 2 ;;
  --runs) RUNS=$2; shift 2 ;;
  *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -n "$DIR" ]; then
  T=$(realpath -m "$DIR")
  mkdir -p "$T"
else
  T=$(mktemp -d)
fi
export XDG_DATA_HOME=$T/data XDG_RUNTIME_DIR=$T/run
mkdir -p -m 700 "$T/run"
SOCK=$T/tmux.sock
cleanup() {
  tmux -S "$SOCK" kill-server 2>/dev/null || true
  (cd "$T/repo" && "$WS" umount >/dev/null 2>&1) || true
  [ -n "$DIR" ] || rm -rf "$T"
}
trap cleanup EXIT

if [ ! -d "$T/repo" ]; then
  git init -q "$T/repo"
  cd "$T/repo"
  echo hello >README.md
  python3 - "$CHANGED" <<'PY'
import os, sys
for i in range(int(sys.argv[1])):
    d = "src/m%03d" % (i // 100)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.c" % i), "w") as f:
        f.write("".join("line %d of file %d\n" % (k, i) for k in range(60)))
PY
  git add -A
  git -c user.name=bench -c user.email=bench@example.com commit -qm init
  "$WS" new >/dev/null
  VIEW=$("$WS" mount | head -n 1)
  python3 - "$VIEW" "$N" "$WITHHELD" "$CHANGED" <<'PY'
import os, sys
view, n, withheld, changed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for i in range(n):
    d = os.path.join(view, "gen", "d%04d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
        f.write("line %d\n" % i)
for i in range(changed):
    p = os.path.join(view, "src/m%03d" % (i // 100), "f%05d.c" % i)
    lines = open(p).read().splitlines(True)
    lines[10] = "changed line in file %d\n" % i
    lines[40] = "another change %d\n" % i
    open(p, "w").write("".join(lines))
for i in range(withheld):
    d = os.path.join(view, "node_modules", "pkg%03d" % (i // 1000), "lib", "d%02d" % ((i // 100) % 10))
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.js" % i), "w") as f:
        f.write("module.exports = %d;\n" % i)
PY
  if [ -n "$BIG" ]; then
    truncate -s "$BIG" "$VIEW/big.bin"
  fi
fi
cd "$T/repo"
VIEW=$("$WS" mount | head -n 1)
rm -f "$XDG_DATA_HOME"/ws/*/default/review-decisions

now() { date +%s.%N; }
secs() { printf '%.2f' "$(echo "$2 - $1" | bc)"; }
screen() { tmux -S "$SOCK" capture-pane -p; }
t0=$(now)
git -C "$VIEW" status -uall --porcelain | wc -l >/dev/null
t1=$(now)
"$WS" status >/dev/null
t2=$(now)
echo "new files: $N  withheld: $WITHHELD  changed text files: $CHANGED  sparse withheld: ${BIG:-none}"
echo "git status -uall in the view:  $(secs "$t0" "$t1") s"
echo "ws status:                     $(secs "$t1" "$t2") s"

# One open of the review by binary $1 in state $2 (kept, stale or none); prints one line.
touched=0
open_review() {
  local bin=$1 state=$2 expand=${3:-}
  rm -f "$XDG_DATA_HOME"/ws/*/default/review-decisions
  "$bin" status >/dev/null # the plan of now, kept under the daemon's token
  if [ "$state" = none ]; then
    rm -f "$XDG_DATA_HOME"/ws/*/default/plan-cache
  fi
  if [ "$state" = stale ]; then
    touched=$((touched + 1))
    echo "written by the agent $touched" >"$VIEW/agent-wrote-this.txt"
  fi
  tmux -S "$SOCK" kill-server 2>/dev/null || true
  local t3 t4 t5 t6 pid shell cpu keys list=""
  # Three keys typed as soon as the screen is up: down, down, reject (the third file).
  # They must come out applied in order, whenever the list appears.
  tmux -S "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
    "XDG_DATA_HOME=$XDG_DATA_HOME XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $bin review; sleep 600"
  t3=$(now)
  until screen | grep -q "ws review"; do sleep 0.01; done
  t4=$(now)
  tmux -S "$SOCK" send-keys j j r
  shell=$(tmux -S "$SOCK" display-message -p '#{pane_pid}')
  until pid=$(ps -o pid= --ppid "$shell" | head -n 1 | tr -d ' ') && [ -n "$pid" ]; do sleep 0.01; done
  local hz list_cpu=""
  hz=$(getconf CLK_TCK)
  for (( ; ; )); do
    s=$(screen)
    if [ -z "$list" ] && grep -q "decided\|as last planned\|the changes found" <<<"$s"; then
      list=$(now)
      list_cpu=$(awk -v hz="$hz" '{printf "%.2f", ($14+$15)/hz}' "/proc/$pid/stat")
    fi
    grep -q "decided" <<<"$s" && break
    sleep 0.01
  done
  t5=$(now)
  cpu=$(awk -v hz="$hz" '{printf "%.2f", ($14+$15)/hz}' "/proc/$pid/stat")
  keys="NOT applied"
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    if screen | grep -q '^>\[-\]\|^ \[-\]'; then keys="in order"; break; fi
    if screen | grep -q 'not applied: the row you were on'; then keys="not applied, said"; break; fi
    sleep 0.1
  done
  printf '%-7s %-6s screen %5s s  list %5s s (cpu %4s s)  final %5s s (cpu %4s s)  keys %s  load %s\n' \
    "$(basename "$(dirname "$bin")")" "$state" "$(secs "$t3" "$t4")" "$(secs "$t3" "$list")" \
    "$list_cpu" "$(secs "$t3" "$t5")" "$cpu" "$keys" "$(cut -d' ' -f1 /proc/loadavg)"
  if [ -n "$expand" ]; then
    # Expanding the largest folded directory: bottom of the list, up to its row, Enter.
    local how="no folded directory"
    tmux -S "$SOCK" send-keys G
    sleep 0.5
    if screen | grep -q ' +  *[0-9,]* files'; then
      until screen | grep -q '^>.* +  *[0-9,]* files'; do tmux -S "$SOCK" send-keys k; sleep 0.1; done
      t6=$(now)
      tmux -S "$SOCK" send-keys Enter
      until screen | grep -q '^>.* -  *[0-9,]* files'; do sleep 0.01; done
      how="$(secs "$t6" "$(now)") s"
    fi
    echo "        expand the largest directory: $how; peak RSS $(awk '/^VmHWM/ {print $2 " " $3}' "/proc/$pid/status")"
  fi
  tmux -S "$SOCK" kill-server 2>/dev/null || true
}

BINS=("$WS")
if [ -n "$BEFORE" ]; then
  mkdir -p "$T/bin/before" "$T/bin/after"
  cp "$BEFORE" "$T/bin/before/ws"
  cp "$WS" "$T/bin/after/ws"
  BINS=("$T/bin/before/ws" "$T/bin/after/ws")
fi
for ((run = 1; run <= RUNS; run++)); do
  for bin in "${BINS[@]}"; do
    expand=""
    [ "$run" = 1 ] && expand="expand"
    open_review "$bin" kept "$expand"
    open_review "$bin" stale
    open_review "$bin" none
  done
done
rm -f "$VIEW/agent-wrote-this.txt"
