"""The ws view under test: a workspace of the seed repository, mounted for the run, checked
for life after a failing scenario, aborted when a call into it hangs, and unmounted and
removed at the end. Every ws command runs with the run's private environment (state, runtime
dir and HOME under the temp directory), so the run never touches the user's workspaces."""

import os
import signal
import subprocess
import time

from harness import read_all, spawn

# words in ws mount's output or daemon.log that mean FUSE is unusable here (a skip, not a
# failure of the view)
FUSE_UNUSABLE = ("/dev/fuse", "fuse: device not found", "fusermount", "fuse: mount failed")


def sh(cmd, cwd, env, check=True):
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if check and r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s%s" % (" ".join(cmd), r.returncode, r.stdout,
                                                     r.stderr))
    return r


def tail(paths, n):
    out = []
    for p in paths:
        try:
            with open(p, errors="replace") as f:
                out += f.read().splitlines()[-n:]
        except OSError:
            pass
    return out


def fuse_conn_dir(st_dev):
    major, minor = os.major(st_dev), os.minor(st_dev)
    return "/sys/fs/fuse/connections/%d" % ((major << 20) | minor)


def view_alive(view):
    """Whether the daemon answers a statfs within 5 s (stat could be answered from the
    kernel's cache; checked in a child: a hung view would block this process)."""
    pid, r = spawn(lambda: "ok %d" % os.statvfs(view).f_namemax)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            out = read_all(r)
            return out.startswith("ok")
        time.sleep(0.05)
    os.close(r)
    return False


def abort_view(conn_dir, state_dir):
    """Aborts the view's FUSE connection, then kills its daemon if it does not exit (only the
    daemon this run started: the pid in its lock file, whose command line names our state)."""
    try:
        with open(os.path.join(conn_dir, "abort"), "w") as f:
            f.write("1")
    except OSError as e:
        print("!!    cannot abort %s: %s" % (conn_dir, e))
    for dp, _, fn in os.walk(state_dir):
        if "daemon.lock" not in fn:
            continue
        try:
            with open(os.path.join(dp, "daemon.lock")) as f:
                pid = int((f.read().split() or ["0"])[0])  # its pid, then its build
            time.sleep(1)
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                if state_dir.encode() not in f.read():
                    continue
            os.kill(pid, signal.SIGKILL)
            print("!!    killed the hung daemon (pid %d)" % pid)
        except (OSError, ValueError):
            pass


class View:
    """The workspace "default" of repo, served by the ws binary at ws."""

    def __init__(self, ws, repo, env):
        self.ws, self.repo, self.env = ws, repo, env
        self.state_dir = env["XDG_DATA_HOME"]
        self.path = None  # where the view is mounted
        self.conn = None  # its /sys/fs/fuse/connections entry, to abort it
        self.mounted = False

    def daemon_logs(self):
        return [os.path.join(dp, "daemon.log")
                for dp, _, fn in os.walk(self.state_dir) if "daemon.log" in fn]

    def create_and_mount(self):
        """Returns None once mounted, or what ws mount and daemon.log said when it failed."""
        sh([self.ws, "new"], self.repo, self.env)
        r = sh([self.ws, "mount"], self.repo, self.env, check=False)
        if r.returncode != 0:
            return r.stdout + r.stderr, "\n".join(tail(self.daemon_logs(), 5))
        self.mounted = True
        self.path = r.stdout.strip().splitlines()[-1]
        self.conn = fuse_conn_dir(os.stat(self.path).st_dev)
        return None

    def abort(self):
        abort_view(self.conn, self.state_dir)

    def on_hang(self, timeout):
        """The watchdog's action when a call into the view has not returned for timeout s."""
        print("!!    a view call hung for %d s; aborting the connection" % timeout)
        for ln in tail(self.daemon_logs(), 10):
            print("!!      " + ln)
        self.abort()

    def recover_if_dead(self, during):
        """After a failing scenario: if the view no longer answers, shows why, aborts it and
        mounts it again, so that one hang does not fail every later scenario."""
        if view_alive(self.path):
            return
        print("!!    the view stopped answering during %s; daemon.log ends with:" % during)
        for ln in tail(self.daemon_logs(), 15):
            print("!!      " + ln)
        self.abort()
        r = sh([self.ws, "mount"], self.repo, self.env, check=False)
        print("!!    remounted: %s" % (r.stdout.strip() or r.stderr.strip()))
        if view_alive(self.path):
            self.conn = fuse_conn_dir(os.stat(self.path).st_dev)

    def unmount(self):
        if self.mounted:
            sh([self.ws, "umount", "--force"], self.repo, self.env, check=False)

    def remove(self):
        if os.path.isdir(self.repo):
            sh([self.ws, "rm", "--force", "default"], self.repo, self.env, check=False)
