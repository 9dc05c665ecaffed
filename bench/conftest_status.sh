#!/bin/bash
# `ws status` on a project where a git hook runs pytest and N conftest.py are tracked (each
# importing two modules beside it), 20 ordinary modules per directory, one honest edit in
# the view: the cost of following every tracked conftest.py's imports (docs/policy.md).
# Prints, per ws binary, the median of 7 runs in ms: the kept plan (nothing changed), after
# an edit (the plan brought up to date), and after an edit with WS_PLAN_UPDATE=0 (full).
# Usage: bench/conftest_status.sh SCRATCH_DIR N WS_BINARY... (side by side in one run)
set -e
SCRATCH=$1; N=$2; shift 2
median() { # WS D [EDIT]
  local ws=$1 d=$2 view
  view=$(XDG_DATA_HOME="$d/data" XDG_RUNTIME_DIR="$d/run" "$ws" -C "$d/repo" mount 2>/dev/null)
  for i in 1 2 3 4 5 6 7; do
    [ -n "$3" ] && echo "y = $i" > "$view/pkg/d1/m1.py"
    s=$EPOCHREALTIME
    XDG_DATA_HOME="$d/data" XDG_RUNTIME_DIR="$d/run" "$ws" -C "$d/repo" status >/dev/null 2>&1
    e=$EPOCHREALTIME
    echo "($e - $s) * 1000" | bc
  done | sort -n | sed -n 4p
}
k=0
for WS in "$@"; do
  D="$SCRATCH/b$k"; k=$((k + 1))
  rm -rf "$D"; mkdir -p "$D/repo" "$D/data" "$D/run"; chmod 700 "$D/run"
  (
    cd "$D/repo"
    git init -q -b main .
    for ((i = 0; i < N; i++)); do
      mkdir -p pkg/d$i/tests
      printf 'import helpers_%d\nfrom util_%d import thing\n' $i $i > pkg/d$i/tests/conftest.py
      printf 'x = 1\n' > pkg/d$i/tests/helpers_$i.py
      printf 'thing = 1\n' > pkg/d$i/tests/util_$i.py
      printf 'def test_a():\n    pass\n' > pkg/d$i/tests/test_a.py
      for ((j = 0; j < 20; j++)); do printf 'y = %d\n' $j > pkg/d$i/m$j.py; done
    done
    git add -A && git -c user.name=T -c user.email=t@e commit -qm init
    printf '#!/bin/sh\npython3 -m pytest\n' > .git/hooks/pre-commit
    chmod +x .git/hooks/pre-commit
  )
  XDG_DATA_HOME="$D/data" XDG_RUNTIME_DIR="$D/run" "$WS" -C "$D/repo" new >/dev/null
  kept=$(median "$WS" "$D"); edit=$(median "$WS" "$D" 1)
  full=$(WS_PLAN_UPDATE=0 median "$WS" "$D" 1)
  echo "$WS: kept plan ${kept} ms, after an edit ${edit} ms, full plan ${full} ms"
  XDG_DATA_HOME="$D/data" XDG_RUNTIME_DIR="$D/run" "$WS" -C "$D/repo" umount --force >/dev/null 2>&1 || true
done
