#!/bin/sh
# git's own t0001-init.sh (61 tests, #28 is "init creates a new deep directory (umask vs.
# shared)") run by an agent in a view, against the installed git. Needs a git source tree
# whose test helpers are built, in $WS_GIT_SOURCE (default /var/cache/ws-tests/git): skipped
# (77) without one. To make one (Debian's source of the installed git; a few minutes):
#   apt-get source git   (with a deb-src line for Debian's mirror), then in its directory:
#   make NO_GETTEXT=1 NO_TCLTK=1 NO_CURL=1 NO_PERL=1 NO_PYTHON=1 t/helper/test-tool \
#        GIT-BUILD-OPTIONS && make -C templates
# Usage: git_t0001.sh WS_BINARY
set -eu
ws=$1
src=${WS_GIT_SOURCE:-/var/cache/ws-tests/git}
if [ ! -x "$src/t/helper/test-tool" ] || [ ! -f "$src/GIT-BUILD-OPTIONS" ]; then
  echo "skipped: no built git source tree in $src (see this script's header)"
  exit 77
fi
[ -r /dev/fuse ] || { echo "skipped: no /dev/fuse"; exit 77; }
tmp=$(mktemp -d /var/tmp/ws-t0001.XXXXXX)
trap 'cd /; XDG_DATA_HOME=$tmp/d XDG_RUNTIME_DIR=$tmp/r "$ws" -C "$tmp/p" umount --force >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/p" "$tmp/r" && chmod 700 "$tmp/r"
cd "$tmp/p" && git init -q && git commit -q --allow-empty -m init
export XDG_DATA_HOME="$tmp/d" XDG_RUNTIME_DIR="$tmp/r"
"$ws" new >/dev/null 2>&1
out=$("$ws" run --read "$src" -- sh -c \
  "cd '$src/t' && GIT_TEST_INSTALLED=/usr/bin sh t0001-init.sh --root='$tmp/p/trash' 2>&1" 2>&1) || true
echo "$out" | grep -v '^ok ' | grep -v 'test-results' || true
echo "$out" | grep -q '^# passed all 61 test(s)' || { echo "FAILED: t0001-init.sh in a view"; exit 1; }
echo "t0001: 1 passed, 0 failed"
