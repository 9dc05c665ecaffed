#!/usr/bin/env python3
"""Differential POSIX conformance check of a ws view against the native filesystem.

A temporary git repository gets one copy of a seed tree per scenario (files of several sizes,
an empty one, nested and empty directories, symlinks, an executable, a read-only file, a
hard-linked pair, a sparse file, a file with a user.* xattr). A plain copy of that tree, on the
same filesystem, is the native reference; a ws view of the repository is the subject. Every
scenario runs the same os.* calls in both places and records a normalized outcome per step:
the return value or the errno name; stat results as type, mode, nlink, size, uid, gid; times
only as relations ("advanced", "same", "as set"); inode numbers only as relations ("same as
before the copy-up", "hard links share one"). The two records are then compared.

This file is the command line and the run; the rest sits beside it: scenario.py (the
registry and the run order), scenarios_*.py (the scenarios, by area), harness.py (what a
scenario records with), seed.py (the seed tree and the native copy), view.py (the mounted
view), runner.py (one scenario on one side, and the comparison), libc.py (ctypes calls).

Usage: tests/conformance/posix_diff.py [--ws PATH] [--keep] [-k PATTERN] [-v] [--list]
Exit: 0 all passed (by-design differences are reported as XFAIL and do not fail), 1 a scenario
differed, 77 FUSE is not usable here, 2 the harness itself could not run.
See docs/conformance.md.
"""

import argparse
import fnmatch
import os
import shutil
import sys
import tempfile
import time

# Run by path from any directory (ctest does): the sibling modules are imported from here.
# No __pycache__ in the source tree: the run is often as root, and the tree is git's.
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

from runner import TIMEOUT, describe_diff, print_steps, run_side  # noqa: E402
from scenario import load_all  # noqa: E402
from seed import copy_tree, make_seed  # noqa: E402
from view import FUSE_UNUSABLE, View, sh  # noqa: E402


def skip(reason):
    print("posix: skipped: " + reason)
    sys.exit(77)


def parse_args():
    top = os.path.normpath(os.path.join(HERE, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ws", default=os.path.join(top, "build", "ws"), help="the ws binary")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directories")
    ap.add_argument("-k", dest="pattern", help="run only scenarios whose name matches "
                                               "(substring, or a glob with * ? [)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every step of failing scenarios")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    return ap.parse_args()


def select(scns, pat):
    if not pat:
        return scns
    glob = any(ch in pat for ch in "*?[")
    return [s for s in scns if (fnmatch.fnmatch(s.name, pat) if glob else pat in s.name)]


def private_copy(ws_src, tmp):
    """A private copy of the binary: a rebuild of build/ws during the run must not pull it
    away. Retried while a build is writing it. Returns its path, or None."""
    ws = os.path.join(tmp, "ws")
    for _ in range(50):
        try:
            shutil.copy2(ws_src, ws)
            return ws
        except OSError:
            time.sleep(0.2)
    return None


def private_env(tmp):
    """ws state, runtime dir, HOME and git config all under tmp."""
    env = dict(os.environ)
    env.update(XDG_DATA_HOME=os.path.join(tmp, "state"), XDG_RUNTIME_DIR=os.path.join(tmp, "run"),
               GIT_CONFIG_NOSYSTEM="1", HOME=tmp)
    env.pop("WS_WORKSPACE", None)
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
    return env


def seed(scns, repo, native, env):
    """One seed copy per scenario, committed: the repository's tree is the view's lower layer.
    native is the plain copy the view is compared with."""
    for s in scns:
        make_seed(os.path.join(repo, "s", s.name), s.extra)
    sh(["git", "init", "-q"], repo, env)
    sh(["git", "add", "-A"], repo, env)
    sh(["git", "-c", "user.name=posix", "-c", "user.email=posix@example.com", "commit", "-q",
        "-m", "seed"], repo, env)
    copy_tree(os.path.join(repo, "s"), os.path.join(native, "s"))


def run_all(scns, native, view, verbose):
    """Runs every scenario on both sides and prints its verdict; returns (passed, failed,
    xfails)."""
    failed = passed = 0
    xfails = []
    for s in scns:
        ts = time.monotonic()
        n_log = run_side(s, native.encode(), "native")
        tn = time.monotonic()
        v_log = run_side(s, view.path.encode(), "view", lambda: view.on_hang(TIMEOUT))
        tv = time.monotonic()
        if tv - ts > 2:
            print("SLOW  %s: native %.1f s, view %.1f s" % (s.name, tn - ts, tv - tn))
        detail = describe_diff(n_log, v_log)
        if detail is None:
            passed += 1
            print("PASS  %s%s" % (s.name, "  (XPASS: expected to differ: %s)" % s.xfail
                                  if s.xfail else ""))
            continue
        if s.xfail:
            xfails.append((s.name, s.xfail, detail))
            print("XFAIL %s: %s [expected: %s]" % (s.name, detail, s.xfail))
        else:
            failed += 1
            print("FAIL  %s: %s" % (s.name, detail))
        view.recover_if_dead(s.name)
        if verbose:
            print_steps(n_log, v_log)
    return passed, failed, xfails


def main():
    args = parse_args()
    scns = select(load_all(), args.pattern)
    if args.list:
        for s in scns:
            print(s.name + ("  (xfail: %s)" % s.xfail if s.xfail else ""))
        return 0
    if not scns:
        print("posix: no scenario matches %r" % args.pattern)
        return 2
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        skip("/dev/fuse is missing or not accessible")
    if os.geteuid() != 0:
        skip("needs root (chown, mknod, setuid children); run as root")
    ws_src = os.path.abspath(args.ws)
    if not os.access(ws_src, os.X_OK):
        print("posix: error: no ws binary at %s (build it, or pass --ws)" % ws_src)
        return 2

    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="ws-posix-", dir="/tmp")
    ws = private_copy(ws_src, tmp)
    if ws is None:
        print("posix: error: cannot copy %s" % ws_src)
        shutil.rmtree(tmp, ignore_errors=True)
        return 2
    env = private_env(tmp)
    native = os.path.join(tmp, "native")
    view = View(ws, os.path.join(tmp, "repo"), env)
    try:
        seed(scns, view.repo, native, env)
        mount_error = view.create_and_mount()
        if mount_error:
            out, log = mount_error
            if any(m in out + log for m in FUSE_UNUSABLE):
                skip("ws mount cannot use FUSE here: " + " ".join((out + " " + log).split()))
            print("posix: error: ws mount failed: " + out.strip() + "\n" + log)
            return 2
        t_setup = time.monotonic() - t0
        passed, failed, xfails = run_all(scns, native, view, args.verbose)
        t_total = time.monotonic() - t0
        if xfails:
            print("xfail (by design, not counted as failures): %d" % len(xfails))
            for name, why, _ in xfails:
                print("  - %s: %s" % (name, why))
        print("time: %.1f s (setup %.1f s); temp dir: %s%s" % (
            t_total, t_setup, tmp, " (kept)" if args.keep else ""))
        print("posix: %d passed, %d failed" % (passed, failed))
    finally:
        os.chdir("/")
        view.unmount()
        if not args.keep:
            view.remove()
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
