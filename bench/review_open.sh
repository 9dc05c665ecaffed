#!/bin/bash
# How long `ws review` takes to open, and its peak memory (issues 10 and 13), next to
# `git status -uall` and `ws status` in the same workspace and the same run.
#   bench/review_open.sh [WS_BINARY] [NEW_FILES] [SPARSE_WITHHELD_SIZE]
#   bench/review_open.sh WS_BINARY --withheld N --changed M [--dir DIR]
# e.g. bench/review_open.sh build/ws 50000                          50,000 small new files
#      bench/review_open.sh build/ws 0 2G                           one 2 GB sparse withheld file
#      bench/review_open.sh build/ws --withheld 100000 --changed 1000
#           100,000 files under node_modules/ (withheld) and 1,000 tracked text files edited
# --dir DIR keeps the workspace in DIR and reuses it next time (making 100,000 files through
# the view takes minutes). Reported:
#   first screen  the review's screen is up and takes keys (they are kept while it loads)
#   list          the file list is shown (every change has its verdict)
#   keys          three keys typed right after starting were applied, in order
#   expand        Enter on the largest folded directory lists what is below it
# with the review's CPU time when the list was shown (wall times move with the machine's
# load; read the ratios). Needs tmux (ws review needs a terminal).
set -euo pipefail
WS=$(realpath "${1:-build/ws}")
shift || true
N=0 BIG="" WITHHELD=0 CHANGED=0 DIR=""
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
secs() { echo "$2 - $1" | bc; }
screen() { tmux -S "$SOCK" capture-pane -p; }
t0=$(now)
git -C "$VIEW" status -uall --porcelain | wc -l >/dev/null
t1=$(now)
"$WS" status >/dev/null
t2=$(now)
# The review, with three keys typed as soon as its screen is up: down, down, reject (the
# third file). They must come out applied in order, whenever the list appears.
tmux -S "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
  "XDG_DATA_HOME=$XDG_DATA_HOME XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $WS review; sleep 600"
t3=$(now)
until screen | grep -q "ws review"; do sleep 0.02; done
t4=$(now)
tmux -S "$SOCK" send-keys j j r
until screen | grep -q "decided"; do sleep 0.05; done
t5=$(now)
shell=$(tmux -S "$SOCK" display-message -p '#{pane_pid}')
pid=$(ps -o pid= --ppid "$shell" | head -n 1 | tr -d ' ')
cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f s user, %.2f s sys", $14/hz, $15/hz}' "/proc/$pid/stat")
keys="not applied"
if [ "$N" -gt 0 ] || [ "$CHANGED" -gt 0 ]; then
  sleep 0.5
  screen | grep -q '^>\[-\]\|^ \[-\]' && keys="applied in order (third file rejected)"
fi
# Expanding the largest folded directory: bottom of the list, up to its row, Enter.
expand="no folded directory"
tmux -S "$SOCK" send-keys G
sleep 0.5
if screen | grep -q ' +  *[0-9,]* files'; then
  until screen | grep -q '^>.* +  *[0-9,]* files'; do tmux -S "$SOCK" send-keys k; sleep 0.1; done
  t6=$(now)
  tmux -S "$SOCK" send-keys Enter
  until screen | grep -q '^>.* -  *[0-9,]* files'; do sleep 0.02; done
  expand="$(secs "$t6" "$(now)") s"
fi
peak=$(awk '/^VmHWM/ {print $2 " " $3}' "/proc/$pid/status")
echo "new files: $N  withheld: $WITHHELD  changed text files: $CHANGED  sparse withheld: ${BIG:-none}"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "git status -uall in the view:  $(secs "$t0" "$t1") s"
echo "ws status:                     $(secs "$t1" "$t2") s"
echo "ws review first screen:        $(secs "$t3" "$t4") s"
echo "ws review list:                $(secs "$t3" "$t5") s ($cpu; peak RSS $peak)"
echo "keys typed while loading:      $keys"
echo "expand the largest directory:  $expand"
