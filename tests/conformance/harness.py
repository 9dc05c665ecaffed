"""What a scenario runs with: the recording context Ctx, the normalization that makes a
native outcome and a view outcome comparable, and child processes whose result comes back
as text.

An outcome is recorded as a string per step: the return value or the errno name; stat
results as type, mode, nlink, size, uid, gid; times only as relations ("advanced", "same");
inode numbers only as relations ("same ino"). Raw inode, device and time numbers differ
between any two filesystems, so recording one would make every scenario differ."""

import contextlib
import errno
import hashlib
import os
import stat
import time

# ----------------------------------------------------------------------------------------------
# normalization

TYPES = {stat.S_IFREG: "reg", stat.S_IFDIR: "dir", stat.S_IFLNK: "lnk", stat.S_IFIFO: "fifo",
         stat.S_IFSOCK: "sock", stat.S_IFCHR: "chr", stat.S_IFBLK: "blk"}


def errname(e):
    if isinstance(e, OSError) and e.errno is not None:
        return errno.errorcode.get(e.errno, "errno%d" % e.errno)
    return "EXC " + type(e).__name__


def nstat(st):
    """A stat result without inode, device or time numbers. Directory sizes are left out:
    they are a property of the directory format, not of POSIX."""
    kind = TYPES.get(stat.S_IFMT(st.st_mode), "?")
    s = "%s %04o n%d u%d g%d" % (kind, stat.S_IMODE(st.st_mode), st.st_nlink, st.st_uid,
                                 st.st_gid)
    if kind != "dir":
        s += " s%d" % st.st_size
    if kind in ("chr", "blk"):
        s += " rdev%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
    return s


def summ(b):
    if b is None:
        return "None"
    if len(b) <= 48:
        return repr(b)
    return "<%d bytes sha1 %s>" % (len(b), hashlib.sha1(b).hexdigest()[:12])


def rel(before, after):
    if after > before:
        return "advanced"
    if after == before:
        return "same"
    return "went back"


def b(x):
    return x if isinstance(x, bytes) else str(x).encode()


# ----------------------------------------------------------------------------------------------
# small helpers scenario bodies share


def as_is(r):
    """show= for c.do when the result itself is the outcome."""
    return r


def near_now(ns):
    """A time set to "now" by one side is compared as "within 5 s of now": the two sides run
    at different moments."""
    return abs(ns - time.time_ns()) < 5 * 10**9


def got_value(r):
    """Whether c.do returned the call's value: not None (the call failed) nor True (it
    returned None)."""
    return r not in (None, True)


@contextlib.contextmanager
def kept_cwd():
    """Scenarios that chdir (relative paths, AF_UNIX names) must give the next scenario back
    the working directory they found."""
    old = os.open(".", os.O_PATH)
    try:
        yield
    finally:
        os.fchdir(old)
        os.close(old)


# ----------------------------------------------------------------------------------------------
# child processes: fork, run fn, send str(result) back through a pipe


def spawn(fn, *a):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(r)
            try:
                out = fn(*a)
            except OSError as e:
                out = errname(e)
            except BaseException as e:  # noqa: BLE001 - reported, never raised in the child
                out = "EXC " + type(e).__name__
            os.write(w, str(out).encode())
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def read_all(r):
    """Reads the pipe to its end and closes it."""
    chunks = []
    while True:
        d = os.read(r, 65536)
        if not d:
            break
        chunks.append(d)
    os.close(r)
    return b"".join(chunks).decode(errors="replace")


def collect(pid, r):
    out = read_all(r)
    os.waitpid(pid, 0)
    return out


def run_child(fn, *a):
    return collect(*spawn(fn, *a))


def run_parallel(worker, n):
    """Runs worker(0) .. worker(n-1) in n processes at once and returns their results."""
    kids = [spawn(worker, i) for i in range(n)]
    return [collect(*k) for k in kids]


# ----------------------------------------------------------------------------------------------
# the recording context a scenario runs with


class Ctx:
    TICK = 0.012  # longer than a kernel timestamp tick (HZ >= 100)

    def __init__(self, root, side):
        self.root = root  # bytes
        self.side = side  # "native" or "view"
        self.log = []
        self.fds = []

    # paths
    def p(self, *names):
        out = self.root
        for n in names:
            out = out + b"/" + b(n)
        return out

    # recording
    def rec(self, label, outcome):
        self.log.append((label, str(outcome)))

    def val(self, label, v):
        self.rec(label, v)
        return v

    def do(self, label, fn, *a, show=None, **kw):
        try:
            r = fn(*a, **kw)
        except OSError as e:
            self.rec(label, errname(e))
            return None
        self.rec(label, "ok" if show is None else "ok " + str(show(r)))
        return r if r is not None else True

    def err(self, label, fn, *a, **kw):
        """Like do, but the result is the errno name or 'ok' (for checks on failures)."""
        try:
            fn(*a, **kw)
        except OSError as e:
            self.rec(label, errname(e))
            return errname(e)
        self.rec(label, "ok")
        return "ok"

    # files
    def open(self, label, path, flags, mode=0o644):
        fd = self.do(label, os.open, path, flags, mode)
        if fd is not None and fd is not True:
            self.fds.append(fd)
            return fd
        return None

    def close(self, fd, label=None):
        if fd in self.fds:
            self.fds.remove(fd)
        if label:
            self.do(label, os.close, fd)
        else:
            try:
                os.close(fd)
            except OSError:
                pass

    def close_all(self):
        for fd in list(self.fds):
            self.close(fd)

    def write(self, label, fd, data):
        return self.do(label, os.write, fd, data, show=lambda n: n)

    def pwrite(self, label, fd, data, off):
        return self.do(label, os.pwrite, fd, data, off, show=lambda n: n)

    def read(self, label, fd, n):
        return self.do(label, os.read, fd, n, show=summ)

    def pread(self, label, fd, n, off):
        return self.do(label, os.pread, fd, n, off, show=summ)

    def content(self, label, path):
        def rd():
            with open(path, "rb") as f:
                return f.read()
        return self.do(label, rd, show=summ)

    def put(self, label, path, data, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode=0o644):
        def wr():
            fd = os.open(path, flags, mode)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        return self.do(label, wr)

    # metadata
    def stat(self, label, path, follow=False):
        return self.do(label, os.stat, path, follow_symlinks=follow, show=nstat)

    def attrs(self, label, path):
        """Type, mode and owner only: for scenarios about chmod/chown of directories, whose
        nlink is checked by the nlink scenarios."""
        def f():
            st = os.stat(path, follow_symlinks=False)
            return "%s %04o u%d g%d" % (TYPES.get(stat.S_IFMT(st.st_mode), "?"),
                                        stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid)
        return self.do(label, f, show=as_is)

    def fstat(self, label, fd):
        return self.do(label, os.fstat, fd, show=nstat)

    def ls(self, label, path):
        return self.do(label, lambda: sorted(os.listdir(path)), show=as_is)

    def exists(self, label, path):
        try:
            os.lstat(path)
            self.rec(label, "exists")
            return True
        except OSError as e:
            self.rec(label, errname(e))
            return False

    def raw(self, path, follow=False):
        """A stat result that is not recorded (for relations)."""
        try:
            return os.stat(path, follow_symlinks=follow)
        except OSError:
            return None

    def snap(self, path, follow=False):
        st = self.raw(path, follow)
        time.sleep(self.TICK)
        return st

    def times(self, label, path, before, fields=("mtime", "ctime"), follow=False):
        st = self.raw(path, follow)
        if st is None or before is None:
            return self.rec(label, "no stat")
        out = []
        for f in fields:
            out.append("%s=%s" % (f, rel(getattr(before, "st_%s_ns" % f),
                                         getattr(st, "st_%s_ns" % f))))
        self.rec(label, " ".join(out))

    def same_ino(self, label, a, b_):
        self.rec(label, "same ino" if a is not None and a == b_ else "different ino")

    def ino(self, path, follow=False):
        st = self.raw(path, follow)
        return st.st_ino if st else None

    # processes
    def child(self, label, fn, *a):
        out = run_child(fn, *a)
        self.rec(label, out)
        return out

    def as_nobody(self, label, fn):
        """Runs fn(dirfd) as uid/gid 65534; dirfd is an O_PATH fd on the scenario's root,
        opened before dropping privileges (the temp directories are 0700)."""
        dfd = os.open(self.root, os.O_PATH | os.O_DIRECTORY)
        try:
            def body():
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                return fn(dfd)
            return self.child(label, body)
        finally:
            os.close(dfd)
