#!/bin/sh
# Summaries by directory on real build products (issue 13), checked as a person would: the
# end-of-session summary of `ws run` fits 24 lines of 80 columns, `ws status`, the report of
# `ws diff` and `ws apply` fold what a build leaves, each fold's count is the real number of
# files (deletions said apart), and `--verbose` and `--json` list every path.
#   c:    cc and make build a multi-file C project: objects in src/ next to the sources (one
#         edited), an untracked build/ directory; the agent removes two stale objects.
#   venv: python3 -m venv .venv and pip install of a local package, offline: one line for the
#         environment, its interpreter's symlinks (leaving the project) counted in it; a
#         symlink leaving the project outside it keeps its own line.
# Skipped (77) without /dev/fuse, cc and make (c), or python3's venv and pip (venv).
# Usage: build_summaries.sh WS_BINARY c|venv
set -eu
ws=$(realpath "$1")
mode=$2
[ -r /dev/fuse ] || { echo "skipped: no /dev/fuse"; exit 77; }
tmp=$(mktemp -d /var/tmp/ws-build.XXXXXX)
trap 'cd /; XDG_DATA_HOME=$tmp/d XDG_RUNTIME_DIR=$tmp/r "$ws" -C "$tmp/p" umount --force >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/p" "$tmp/r" && chmod 700 "$tmp/r"
export XDG_DATA_HOME="$tmp/d" XDG_RUNTIME_DIR="$tmp/r"
fail() { echo "FAILED: $*"; exit 1; }
commas() { printf '%d' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; } # 1234 -> 1,234
screen() { # NAME FILE: at most 24 lines
  n=$(wc -l < "$2")
  [ "$n" -le 24 ] || { cat "$2"; fail "$1 takes $n lines, more than a screen"; }
}
narrow() { # NAME FILE: at most 80 columns (ws status and ws apply name each path whole)
  wide=$(awk 'length($0) > 80' "$2")
  [ -z "$wide" ] || { cat "$2"; fail "$1 has lines wider than 80 columns: $wide"; }
}
has() { # NAME FILE REGEX
  grep -q -- "$3" "$2" || { cat "$2"; fail "$1 has no line matching: $3"; }
}
cd "$tmp/p" && git init -q

case $mode in
c)
  command -v cc >/dev/null && command -v make >/dev/null || { echo "skipped: no cc or make"; exit 77; }
  mkdir src
  for i in $(seq 1 40); do printf 'int f%d(void) { return %d; }\n' "$i" "$i" > "src/f$i.c"; done
  printf 'int main(void) { return 0; }\n' > src/main.c
  printf 'SRCS := $(wildcard src/*.c)\nOBJS := $(SRCS:.c=.o)\nbuild/app: $(OBJS)\n' > Makefile
  printf '\tmkdir -p build/gen && $(CC) -o $@ $(OBJS)\n\tfor i in 1 2 3 4 5; do echo $$i > build/gen/g$$i.h; done\n' >> Makefile
  printf 'src/%%.o: src/%%.c\n\t$(CC) -c -o $@ $<\n' >> Makefile
  printf '*.o\n/build/\n' > .gitignore
  git add -A && git -c user.name=t -c user.email=t@t commit -qm init
  # Objects of sources removed long ago, in the person's tree: the agent cleans them up.
  echo stale > src/old1.o && echo stale > src/old2.o
  "$ws" new >/dev/null 2>&1
  long=tools/a-directory-name-long-enough-to-need-cutting/another-long-directory-name/x
  "$ws" run -- sh -c "make -s && echo 'int f1(void) { return 100; }' > src/f1.c &&
    rm src/old1.o src/old2.o && mkdir -p $long && printf '#!/bin/sh\n' > $long/generate-the-build-step.sh &&
    chmod +x $long/generate-the-build-step.sh" > "$tmp/run.out" 2> "$tmp/run.err" ||
    { cat "$tmp/run.err"; fail "ws run make"; }
  view=$("$ws" mount)
  objects=$(cd "$view" && ls src/*.o | wc -l)
  [ "$objects" -eq 41 ] || fail "make built $objects objects, not 41"
  built=$(cd "$view" && find build ! -type d | wc -l)
  counted="$((objects + 2)) files, 2 deleted"
  folded="$counted  ignored by the real repository"
  sed -n '/^ws: session .* ended/,/^review: /p' "$tmp/run.err" > "$tmp/summary"
  screen "the session summary" "$tmp/summary"
  narrow "the session summary" "$tmp/summary"
  has "the session summary" "$tmp/summary" "^  \*  src/\*\.o  *$folded\$"
  has "the session summary" "$tmp/summary" "^  A  build/  *$built files  ignored by the real repository\$"
  has "the session summary" "$tmp/summary" "^  M  src/f1\.c\$"
  has "the session summary" "$tmp/summary" "^  A  tools/a-directory.*\.\.\..*generate-the-build-step\.sh  new executable\$"

  "$ws" status > "$tmp/status"
  screen "ws status" "$tmp/status"
  has "ws status" "$tmp/status" "^\* src/\*\.o  $counted  (WITHHELD: ignored by the real repository)\$"
  has "ws status" "$tmp/status" "^A build/  $built files  (WITHHELD: ignored by the real repository)\$"
  "$ws" status --verbose > "$tmp/status.v"
  v=$(grep -c '^[AD] src/.*\.o  (WITHHELD: ignored by the real repository)$' "$tmp/status.v")
  [ "$v" -eq $((objects + 2)) ] || fail "ws status --verbose lists $v of $((objects + 2)) objects"
  grep -q '^D src/old2\.o  (WITHHELD' "$tmp/status.v" || fail "ws status --verbose: deletion"
  json=$("$ws" status --json | grep -c '"path": "src/.*\.o"')
  [ "$json" -eq $((objects + 2)) ] || fail "ws status --json lists $json of $((objects + 2)) objects"
  "$ws" diff --no-pager > /dev/null 2> "$tmp/diff.err"
  has "ws diff's report" "$tmp/diff.err" "^#   \*  src/\*\.o  *$folded\$"
  dv=$("$ws" diff --no-pager --verbose 2>&1 >/dev/null | grep -c '^#   [AD]  src/.*\.o ')
  [ "$dv" -eq $((objects + 2)) ] || fail "ws diff --verbose lists $dv of $((objects + 2)) objects"

  "$ws" apply > "$tmp/apply" 2>&1 || { cat "$tmp/apply"; fail "ws apply"; }
  screen "ws apply" "$tmp/apply"
  has "ws apply" "$tmp/apply" "^  \*  src/\*\.o  *$folded\$"
  has "ws apply" "$tmp/apply" "^applied 1 change"
  [ ! -e "$tmp/p/src/f1.o" ] && [ -e "$tmp/p/src/old1.o" ] || fail "an object landed, or a deletion"
  grep -q 'return 100' "$tmp/p/src/f1.c" || fail "src/f1.c did not land"
  ;;
venv)
  command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
  python3 -m venv "$tmp/probe" >/dev/null 2>&1 || { echo "skipped: python3 -m venv fails (python3-venv)"; exit 77; }
  rm -rf "$tmp/probe"
  # A local wheel (a zip of the package and its metadata): pip installs it with no index and
  # no build step.
  mkdir dist
  python3 - <<'PY'
import zipfile
files = {"hello/__init__.py": 'GREETING = "hello"\n',
         "hello-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: hello\nVersion: 1.0\n",
         "hello-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
files["hello-1.0.dist-info/RECORD"] = "".join(n + ",,\n" for n in files) + "hello-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile("dist/hello-1.0-py3-none-any.whl", "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
PY
  echo 'print(1)' > app.py
  printf '.venv/\n' > .gitignore
  git add -A && git -c user.name=t -c user.email=t@t commit -qm init
  "$ws" new >/dev/null 2>&1
  "$ws" run -- sh -c 'python3 -m venv .venv &&
    .venv/bin/pip install -q --no-index dist/hello-1.0-py3-none-any.whl &&
    .venv/bin/python -c "import hello" && echo "print(2)" > app.py && ln -s /etc/hostname host-link' \
    > "$tmp/run.out" 2> "$tmp/run.err" || { cat "$tmp/run.err"; fail "ws run venv"; }
  view=$("$ws" mount)
  files=$(cd "$view" && find .venv ! -type d | wc -l)
  [ "$files" -gt 500 ] || fail "the venv holds only $files files"
  out=0 # symlinks of the venv whose target leaves the project
  for l in $(cd "$view" && find .venv -type l); do
    case $(cd "$view" && readlink -m "$l") in "$view"/*) ;; *) out=$((out + 1)) ;; esac
  done
  [ "$out" -ge 1 ] || fail "no symlink of the venv leaves the project"
  count=$(commas "$files")
  sed -n '/^ws: session .* ended/,/^review: /p' "$tmp/run.err" > "$tmp/summary"
  screen "the session summary" "$tmp/summary"
  narrow "the session summary" "$tmp/summary"
  has "the session summary" "$tmp/summary" "^  A  \.venv/  $count files  under \.venv/.*; symlinks leaving the project: $out\$"
  [ "$(grep -c '\.venv/' "$tmp/summary")" -eq 1 ] || { cat "$tmp/summary"; fail "the venv takes more than a line"; }
  has "the session summary" "$tmp/summary" "^  A  host-link *symlink to an absolute path (/etc/hostname)\$"
  has "the session summary" "$tmp/summary" "^  M  app\.py\$"
  "$ws" status > "$tmp/status"
  screen "ws status" "$tmp/status"
  has "ws status" "$tmp/status" "^A \.venv/  $count files  (WITHHELD: under \.venv/ (a Python virtual environment); symlinks leaving the project: $out)\$"
  has "ws status" "$tmp/status" "^A host-link  (WITHHELD: symlink to an absolute path (/etc/hostname))\$"
  v=$("$ws" status --verbose | grep -c '^A \.venv/')
  [ "$v" -eq "$files" ] || fail "ws status --verbose lists $v of $files paths"
  json=$("$ws" status --json | grep -c '"path": "\.venv/')
  [ "$json" -eq "$files" ] || fail "ws status --json lists $json of $files paths"
  "$ws" apply > "$tmp/apply" 2>&1 || { cat "$tmp/apply"; fail "ws apply"; }
  screen "ws apply" "$tmp/apply"
  has "ws apply" "$tmp/apply" "^  A  \.venv/  *$count files  under \.venv/ (a Python virtual environment); symlinks leaving the project: $out\$"
  [ ! -e "$tmp/p/.venv" ] && [ ! -L "$tmp/p/host-link" ] || fail "the venv or the link landed"
  grep -q 'print(2)' "$tmp/p/app.py" || fail "app.py did not land"
  ;;
*) fail "mode $mode: c or venv" ;;
esac
[ -z "${WS_TEST_SHOW:-}" ] || cat "$tmp/summary" "$tmp/status" "$tmp/apply"
echo "build summaries ($mode): each report one screen"
