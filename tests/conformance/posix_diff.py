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

Usage: tests/conformance/posix_diff.py [--ws PATH] [--keep] [-k PATTERN] [-v]
Exit: 0 all passed (by-design differences are reported as XFAIL and do not fail), 1 a scenario
differed, 77 FUSE is not usable here, 2 the harness itself could not run.
See docs/conformance.md.
"""

import argparse
import ctypes
import errno
import fcntl
import fnmatch
import hashlib
import mmap
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

# ----------------------------------------------------------------------------------------------
# libc helpers that the os module does not expose

_libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
AT_SYMLINK_NOFOLLOW = 0x100
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
UTIME_NOW = (1 << 30) - 1
UTIME_OMIT = (1 << 30) - 2
FALLOC_FL_KEEP_SIZE = 0x01
FALLOC_FL_PUNCH_HOLE = 0x02
SEEK_DATA = getattr(os, "SEEK_DATA", 3)
SEEK_HOLE = getattr(os, "SEEK_HOLE", 4)


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def _check(rc):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return rc


def renameat2(old, new, flags):
    f = _libc.renameat2
    f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return _check(f(AT_FDCWD, old, AT_FDCWD, new, flags))


def linkat_follow(src, dst):
    """linkat(AT_SYMLINK_FOLLOW): os.link() without dir_fd calls link(2), which never follows."""
    f = _libc.linkat
    f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    return _check(f(AT_FDCWD, b(src), AT_FDCWD, b(dst), 0x400))


def utimensat(path, atime, mtime, nofollow=False):
    """atime/mtime: (sec, nsec), or UTIME_NOW / UTIME_OMIT."""
    ts = (_Timespec * 2)()
    for i, t in enumerate((atime, mtime)):
        if isinstance(t, tuple):
            ts[i].tv_sec, ts[i].tv_nsec = t
        else:
            ts[i].tv_sec, ts[i].tv_nsec = 0, t
    f = _libc.utimensat
    f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_Timespec), ctypes.c_int]
    return _check(f(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW if nofollow else 0))


def fallocate(fd, mode, offset, length):
    f = _libc.fallocate
    f.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    return _check(f(fd, mode, offset, length))


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


TIMEOUT = int(os.environ.get("WS_POSIX_TIMEOUT", "60"))  # seconds, per scenario and side


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
        return self.do(label, f, show=lambda r: r)

    def fstat(self, label, fd):
        return self.do(label, os.fstat, fd, show=nstat)

    def ls(self, label, path):
        return self.do(label, lambda: sorted(os.listdir(path)), show=lambda r: r)

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


def collect(pid, r):
    chunks = []
    while True:
        d = os.read(r, 65536)
        if not d:
            break
        chunks.append(d)
    os.close(r)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode(errors="replace")


def run_child(fn, *a):
    return collect(*spawn(fn, *a))


# ----------------------------------------------------------------------------------------------
# the seed tree

def _pattern(n, salt):
    block = hashlib.sha256(salt).digest() * 2048  # 64 KiB
    return (block * (n // len(block) + 1))[:n]


SMALL = b"hello world\n"
PAGE = _pattern(4097, b"page")
MEDIUM = _pattern(70000, b"medium")
BIG = _pattern(300001, b"big")
SPARSE_SIZE = 1 << 20
SPARSE_DATA = [(0, _pattern(4096, b"s0")), (512 << 10, _pattern(4096, b"s1"))]


def make_seed(d, extra=None):
    os.makedirs(d)

    def w(name, data, mode=0o644):
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, mode)

    w("empty", b"")
    w("small.txt", SMALL)
    w("page.bin", PAGE)
    w("medium.bin", MEDIUM)
    w("big.bin", BIG)
    with open(os.path.join(d, "sparse.bin"), "wb") as f:
        for off, data in SPARSE_DATA:
            f.seek(off)
            f.write(data)
        f.truncate(SPARSE_SIZE)
    w("exec.sh", b"#!/bin/sh\necho exec-ok\n", 0o755)
    w("readonly.txt", b"read only\n", 0o444)
    w("hard1", b"shared\n")
    os.link(os.path.join(d, "hard1"), os.path.join(d, "hard2"))
    os.symlink("small.txt", os.path.join(d, "link"))
    os.symlink("missing-target", os.path.join(d, "dangling"))
    os.symlink("/dev/null", os.path.join(d, "abslink"))
    os.makedirs(os.path.join(d, "dir", "sub", "deeper"))
    w("dir/a.txt", b"a\n")
    w("dir/sub/b.txt", b"b\n")
    w("dir/sub/deeper/c.txt", b"c\n")
    os.makedirs(os.path.join(d, "dir2"))
    w("dir2/x.txt", b"x\n")
    os.makedirs(os.path.join(d, "emptydir"))
    w("xattr.txt", b"with xattr\n")
    try:
        os.setxattr(os.path.join(d, "xattr.txt"), "user.seed", b"lower")
    except OSError:
        pass
    if extra:
        extra(d)


def copy_tree(src, dst):
    """A plain copy keeping modes, owners, times, holes, user.* xattrs and hard links."""
    links = {}
    dirs = []
    for base, dnames, fnames in os.walk(src):
        rel_ = os.path.relpath(base, src)
        tb = os.path.normpath(os.path.join(dst, rel_))
        st = os.lstat(base)
        os.makedirs(tb, exist_ok=True)
        dirs.append((tb, st))
        for n in list(dnames):
            if os.path.islink(os.path.join(base, n)):
                dnames.remove(n)
                fnames.append(n)
        for n in fnames:
            s, t = os.path.join(base, n), os.path.join(tb, n)
            sst = os.lstat(s)
            key = (sst.st_dev, sst.st_ino)
            if not stat.S_ISDIR(sst.st_mode) and sst.st_nlink > 1 and key in links:
                os.link(links[key], t)
                continue
            links[key] = t
            if stat.S_ISLNK(sst.st_mode):
                os.symlink(os.readlink(s), t)
            elif stat.S_ISREG(sst.st_mode):
                _copy_sparse(s, t, sst.st_size)
                for name in os.listxattr(s):
                    if name.startswith("user."):
                        os.setxattr(t, name, os.getxattr(s, name))
                os.chmod(t, stat.S_IMODE(sst.st_mode))
            else:
                os.mknod(t, sst.st_mode, sst.st_rdev)
            os.chown(t, sst.st_uid, sst.st_gid, follow_symlinks=False)
            os.utime(t, ns=(sst.st_atime_ns, sst.st_mtime_ns), follow_symlinks=False)
    for tb, st in reversed(dirs):
        os.chmod(tb, stat.S_IMODE(st.st_mode))
        os.chown(tb, st.st_uid, st.st_gid)
        os.utime(tb, ns=(st.st_atime_ns, st.st_mtime_ns))


def _copy_sparse(s, t, size):
    fi = os.open(s, os.O_RDONLY)
    fo = os.open(t, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        pos = 0
        while pos < size:
            try:
                data = os.lseek(fi, pos, SEEK_DATA)
            except OSError as e:
                if e.errno == errno.ENXIO:
                    break
                raise
            hole = os.lseek(fi, data, SEEK_HOLE)
            os.lseek(fi, data, os.SEEK_SET)
            os.lseek(fo, data, os.SEEK_SET)
            left = hole - data
            while left > 0:
                chunk = os.read(fi, min(left, 1 << 20))
                if not chunk:
                    break
                os.write(fo, chunk)
                left -= len(chunk)
            pos = hole
        os.ftruncate(fo, size)
    finally:
        os.close(fi)
        os.close(fo)


# ----------------------------------------------------------------------------------------------
# scenarios

SCENARIOS = []
RD, WR, RW = os.O_RDONLY, os.O_WRONLY, os.O_RDWR
CR, EX, TR, AP = os.O_CREAT, os.O_EXCL, os.O_TRUNC, os.O_APPEND


class Scenario:
    def __init__(self, name, fn, xfail=None, extra=None):
        self.name, self.fn, self.xfail, self.extra = name, fn, xfail, extra


def sc(xfail=None, extra=None):
    def deco(fn):
        SCENARIOS.append(Scenario(fn.__name__.removeprefix("t_"), fn, xfail, extra))
        return fn
    return deco


# --- open / creat ------------------------------------------------------------------------------

@sc()
def t_open_creat_excl_existing_lower(c):
    c.open("O_CREAT|O_EXCL small.txt", c.p("small.txt"), WR | CR | EX)
    c.open("O_CREAT|O_EXCL dir", c.p("dir"), RD | CR | EX)
    c.open("O_CREAT|O_EXCL symlink", c.p("link"), WR | CR | EX)
    c.open("O_CREAT|O_EXCL dangling symlink", c.p("dangling"), WR | CR | EX)
    c.content("small.txt unchanged", c.p("small.txt"))
    c.exists("dangling target still missing", c.p("missing-target"))


@sc()
def t_open_creat_excl_new(c):
    fd = c.open("O_CREAT|O_EXCL new", c.p("new"), RW | CR | EX, 0o640)
    c.stat("stat new", c.p("new"))
    c.write("write", fd, b"fresh")
    c.pread("pread", fd, 100, 0)
    c.open("again O_EXCL", c.p("new"), RW | CR | EX)
    c.content("content", c.p("new"))


@sc()
def t_open_creat_existing_no_excl(c):
    ino = c.ino(c.p("medium.bin"))
    fd = c.open("O_CREAT on existing lower", c.p("medium.bin"), RW | CR, 0o600)
    c.fstat("fstat keeps mode", fd)
    c.pread("reads lower data", fd, 64, 1000)
    c.same_ino("ino unchanged", ino, c.ino(c.p("medium.bin")))


@sc()
def t_open_creat_mode_umask(c):
    old = os.umask(0o027)
    try:
        c.open("create 0777 with umask 027", c.p("f"), WR | CR | EX, 0o777)
        c.do("mkdir 0777 with umask 027", os.mkdir, c.p("d"), 0o777)
        c.do("mkfifo 0666", os.mkfifo, c.p("p"), 0o666)
    finally:
        os.umask(old)
    c.stat("file mode", c.p("f"))
    c.stat("dir mode", c.p("d"))
    c.stat("fifo mode", c.p("p"))


@sc()
def t_open_creat_mode_zero(c):
    fd = c.open("create mode 0", c.p("zero"), RW | CR | EX, 0)
    c.write("write via creating fd", fd, b"x")
    c.stat("mode 0", c.p("zero"))
    c.open("root reopens mode-0 file rw", c.p("zero"), RW)


@sc()
def t_open_trunc_lower(c):
    before = c.snap(c.p("medium.bin"))
    ino = c.ino(c.p("medium.bin"))
    fd = c.open("O_WRONLY|O_TRUNC", c.p("medium.bin"), WR | TR)
    c.fstat("fstat after trunc", fd)
    c.stat("stat after trunc", c.p("medium.bin"))
    c.times("times after O_TRUNC", c.p("medium.bin"), before)
    c.same_ino("ino same after copy-up", ino, c.ino(c.p("medium.bin")))
    c.content("content empty", c.p("medium.bin"))


@sc()
def t_open_trunc_rdonly(c):
    fd = c.open("O_RDONLY|O_TRUNC on lower", c.p("small.txt"), RD | TR)
    c.read("read", fd, 100)
    c.stat("stat", c.p("small.txt"))


@sc()
def t_open_trunc_empty_file(c):
    before = c.snap(c.p("empty"))
    c.open("O_TRUNC on empty lower", c.p("empty"), WR | TR)
    c.stat("stat", c.p("empty"))
    c.times("times", c.p("empty"), before, ("mtime",))


@sc()
def t_open_append(c):
    fd = c.open("O_WRONLY|O_APPEND lower", c.p("small.txt"), WR | AP)
    c.write("append", fd, b"more\n")
    c.do("lseek 0", os.lseek, fd, 0, os.SEEK_SET, show=lambda r: r)
    c.write("append again after seek", fd, b"end\n")
    c.pwrite("pwrite at 0 with O_APPEND", fd, b"P", 0)
    c.do("offset", os.lseek, fd, 0, os.SEEK_CUR, show=lambda r: r)
    c.content("content", c.p("small.txt"))
    c.do("F_GETFL has O_APPEND", fcntl.fcntl, fd, fcntl.F_GETFL,
         show=lambda r: bool(r & os.O_APPEND))


@sc()
def t_open_append_two_fds(c):
    a = c.open("fd a O_APPEND", c.p("log"), WR | CR | AP)
    bb = c.open("fd b O_APPEND", c.p("log"), WR | CR | AP)
    for i in range(5):
        c.write("a %d" % i, a, b"a%d" % i)
        c.write("b %d" % i, bb, b"b%d" % i)
    c.content("interleaved", c.p("log"))


@sc()
def t_open_rdonly_write_ebadf(c):
    fd = c.open("O_RDONLY", c.p("small.txt"), RD)
    c.write("write", fd, b"x")
    c.pwrite("pwrite", fd, b"x", 3)
    c.do("ftruncate", os.ftruncate, fd, 1)
    c.content("unchanged", c.p("small.txt"))


@sc()
def t_open_wronly_read_ebadf(c):
    fd = c.open("O_WRONLY", c.p("small.txt"), WR)
    c.read("read", fd, 10)
    c.pread("pread", fd, 10, 0)


@sc()
def t_open_directory_flag(c):
    c.open("O_DIRECTORY on file", c.p("small.txt"), RD | os.O_DIRECTORY)
    c.open("O_DIRECTORY on symlink to file", c.p("link"), RD | os.O_DIRECTORY)
    c.open("O_DIRECTORY on dir", c.p("dir"), RD | os.O_DIRECTORY)
    c.open("O_DIRECTORY|O_CREAT new", c.p("nd"), RD | os.O_DIRECTORY | CR)
    c.exists("nd", c.p("nd"))


@sc()
def t_open_nofollow(c):
    c.open("O_NOFOLLOW on symlink", c.p("link"), RD | os.O_NOFOLLOW)
    c.open("O_NOFOLLOW on dangling", c.p("dangling"), RD | os.O_NOFOLLOW)
    c.open("O_NOFOLLOW|O_CREAT on dangling", c.p("dangling"), WR | CR | os.O_NOFOLLOW)
    c.open("O_NOFOLLOW on file", c.p("small.txt"), RD | os.O_NOFOLLOW)
    fd = c.open("O_PATH|O_NOFOLLOW on symlink", c.p("link"), os.O_PATH | os.O_NOFOLLOW)
    c.fstat("fstat of O_PATH symlink fd", fd)


@sc()
def t_open_creat_through_dangling_symlink(c):
    fd = c.open("O_CREAT via dangling symlink", c.p("dangling"), WR | CR)
    c.write("write", fd, b"via link")
    c.stat("target created", c.p("missing-target"))
    c.stat("link still a link", c.p("dangling"))
    c.content("read via link", c.p("dangling"))


@sc()
def t_open_dir_for_write(c):
    c.open("O_WRONLY on dir", c.p("dir"), WR)
    c.open("O_RDWR on dir", c.p("dir"), RW)
    c.open("O_CREAT on dir", c.p("dir"), RD | CR)
    fd = c.open("O_RDONLY on dir", c.p("dir"), RD)
    c.read("read on dir fd", fd, 10)


@sc()
def t_open_missing_paths(c):
    c.open("missing", c.p("nope"), RD)
    c.open("in missing dir", c.p("nodir", "f"), RD)
    c.open("create in missing dir", c.p("nodir", "f"), WR | CR)
    c.open("through a file", c.p("small.txt", "x"), RD)
    c.open("create through a file", c.p("small.txt", "x"), WR | CR)
    c.open("trailing slash on file", c.p("small.txt") + b"/", RD)
    c.open("create with trailing slash", c.p("newslash") + b"/", WR | CR)


@sc(xfail="a directory merging the real tree and the workspace reports nlink 1 (its true count is unknown without listing both layers), as kernel overlayfs does; find and fts treat 1 as unknown")
def t_open_create_in_lower_subdir(c):
    ino = c.ino(c.p("dir", "sub", "deeper"))
    c.put("create deep in lower tree", c.p("dir", "sub", "deeper", "new.txt"), b"new\n")
    c.ls("listing merges", c.p("dir", "sub", "deeper"))
    c.ls("parent listing", c.p("dir", "sub"))
    c.content("old file", c.p("dir", "sub", "deeper", "c.txt"))
    c.same_ino("dir ino stable", ino, c.ino(c.p("dir", "sub", "deeper")))
    c.stat("dir stat", c.p("dir", "sub", "deeper"))


@sc()
def t_open_o_path(c):
    fd = c.open("O_PATH file", c.p("small.txt"), os.O_PATH)
    c.fstat("fstat", fd)
    c.read("read on O_PATH", fd, 10)
    fd2 = c.open("O_PATH dir", c.p("dir"), os.O_PATH | os.O_DIRECTORY)
    c.do("openat via O_PATH dir", lambda: os.close(os.open("a.txt", RD, dir_fd=fd2)))
    c.do("stat via dir_fd", os.stat, "sub", dir_fd=fd2, show=nstat)


@sc(xfail="libfuse 3.14 (the Debian 12 library ws builds on) has no tmpfile operation: "
            "O_TMPFILE gets EOPNOTSUPP, the answer of any filesystem without it")
def t_open_tmpfile(c):
    fd = c.open("O_TMPFILE in dir", c.p("dir"), RW | os.O_TMPFILE, 0o600)
    if fd is not None:
        c.write("write", fd, b"anon")
        c.fstat("fstat", fd)
        c.do("linkat via /proc", linkat_follow, "/proc/self/fd/%d" % fd, c.p("dir", "named"))
        c.content("named", c.p("dir", "named"))
    c.ls("listing", c.p("dir"))


@sc()
def t_open_cloexec_and_flags(c):
    fd = c.open("O_RDWR|O_CLOEXEC|O_NONBLOCK|O_NOATIME", c.p("small.txt"),
                RW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOATIME)
    c.do("FD_CLOEXEC set", fcntl.fcntl, fd, fcntl.F_GETFD, show=lambda r: bool(r & 1))
    c.do("F_GETFL access mode", fcntl.fcntl, fd, fcntl.F_GETFL, show=lambda r: r & 3)
    c.do("F_SETFL O_APPEND", fcntl.fcntl, fd, fcntl.F_SETFL, os.O_APPEND)
    c.write("write now appends", fd, b"!")
    c.content("content", c.p("small.txt"))


@sc()
def t_open_direct(c):
    fd = c.open("O_DIRECT on lower", c.p("page.bin"), RD | os.O_DIRECT)
    if fd is not None:
        buf = mmap.mmap(-1, 4096)
        c.do("aligned readv", os.readv, fd, [buf], show=lambda r: r)
        c.val("data", summ(buf[:4096]))
        buf.close()


# --- read / write ------------------------------------------------------------------------------

@sc()
def t_read_all_seed_files(c):
    for n in ("empty", "small.txt", "page.bin", "medium.bin", "big.bin", "sparse.bin", "exec.sh",
              "readonly.txt", "hard1", "hard2", "link", "xattr.txt", "dir/sub/deeper/c.txt"):
        c.content(n, c.p(n))
    c.content("abslink -> /dev/null", c.p("abslink"))
    c.content("dangling", c.p("dangling"))


@sc()
def t_read_chunks(c):
    fd = c.open("open big", c.p("big.bin"), RD)
    got = []
    for _ in range(40):
        d = os.read(fd, 7919)
        if not d:
            break
        got.append(d)
    c.val("chunked read equals", summ(b"".join(got)))
    c.read("read at EOF", fd, 10)
    c.read("read at EOF again", fd, 10)


@sc()
def t_pread_offsets(c):
    fd = c.open("open medium", c.p("medium.bin"), RD)
    for off in (0, 1, 4095, 4096, 65535, 69990, 70000, 70001, 1 << 30):
        c.pread("pread 16 at %d" % off, fd, 16, off)
    c.do("offset untouched", os.lseek, fd, 0, os.SEEK_CUR, show=lambda r: r)
    c.pread("pread negative", fd, 1, -1)


@sc()
def t_pwrite_middle_lower(c):
    ino = c.ino(c.p("medium.bin"))
    fd = c.open("open rw", c.p("medium.bin"), RW)
    c.pwrite("pwrite at 5000", fd, b"MIDDLE", 5000)
    c.pwrite("pwrite across page", fd, b"X" * 100, 4090)
    c.pread("read back", fd, 20, 4995)
    c.stat("size same", c.p("medium.bin"))
    c.content("content", c.p("medium.bin"))
    c.same_ino("ino same", ino, c.ino(c.p("medium.bin")))


@sc()
def t_pwrite_beyond_eof_hole(c):
    fd = c.open("open small rw", c.p("small.txt"), RW)
    c.pwrite("pwrite at 1 MiB", fd, b"tail", 1 << 20)
    c.fstat("fstat size", fd)
    c.pread("hole reads zeros", fd, 16, 100)
    c.pread("tail", fd, 16, (1 << 20) - 2)
    c.do("SEEK_DATA from 64k", os.lseek, fd, 65536, SEEK_DATA, show=lambda r: r)
    c.do("SEEK_HOLE from 0", os.lseek, fd, 0, SEEK_HOLE, show=lambda r: r)
    c.content("content", c.p("small.txt"))


@sc()
def t_write_new_sequential(c):
    fd = c.open("create", c.p("seq"), WR | CR | EX)
    for i in range(20):
        os.write(fd, b"line %d\n" % i)
    c.fstat("fstat", fd)
    c.do("lseek cur", os.lseek, fd, 0, os.SEEK_CUR, show=lambda r: r)
    c.content("content", c.p("seq"))


@sc()
def t_write_read_same_fd(c):
    fd = c.open("O_RDWR lower", c.p("page.bin"), RW)
    c.write("write at 0", fd, b"HEAD")
    c.read("read continues at 4", fd, 8)
    c.do("lseek end", os.lseek, fd, 0, os.SEEK_END, show=lambda r: r)
    c.write("write at end", fd, b"TAIL")
    c.do("lseek -8 from end", os.lseek, fd, -8, os.SEEK_END, show=lambda r: r)
    c.read("read last 8", fd, 100)
    c.do("lseek before 0", os.lseek, fd, -1, os.SEEK_SET)
    c.content("content", c.p("page.bin"))


@sc()
def t_write_large(c):
    data = _pattern(3 * (1 << 20) + 17, b"large")
    fd = c.open("create", c.p("large"), WR | CR)
    c.write("write 3 MiB", fd, data)
    c.close(fd, "close")
    c.content("read back", c.p("large"))
    c.stat("stat", c.p("large"))


@sc()
def t_readv_writev(c):
    fd = c.open("open rw", c.p("page.bin"), RW)
    c.do("writev", os.writev, fd, [b"aa", b"bbb", b"", b"cccc"], show=lambda r: r)
    c.do("lseek 0", os.lseek, fd, 0, os.SEEK_SET)
    bufs = [bytearray(3), bytearray(5), bytearray(4)]
    c.do("readv", os.readv, fd, bufs, show=lambda r: r)
    c.val("buffers", [bytes(x) for x in bufs])
    c.do("preadv at 4090", os.preadv, fd, [bytearray(4), bytearray(10)], 4090,
         show=lambda r: r)
    c.do("pwritev at 4095", os.pwritev, fd, [b"X", b"YZ"], 4095, show=lambda r: r)
    c.content("content", c.p("page.bin"))


@sc()
def t_write_zero_length(c):
    before = c.snap(c.p("small.txt"))
    fd = c.open("open lower rw", c.p("small.txt"), RW)
    c.write("write 0 bytes", fd, b"")
    c.stat("stat", c.p("small.txt"))
    c.times("zero write does not move mtime", c.p("small.txt"), before, ("mtime",))


@sc()
def t_read_sees_other_fd_write(c):
    r = c.open("open lower read-only first", c.p("medium.bin"), RD)
    c.pread("read before", r, 8, 0)
    w = c.open("open rw (copy-up)", c.p("medium.bin"), RW)
    c.pwrite("write via second fd", w, b"CHANGED!", 0)
    c.pread("read via first fd", r, 8, 0)
    c.fstat("fstat first fd", r)
    c.pwrite("append via second fd", w, b"++", 70000)
    c.pread("first fd sees growth", r, 8, 69996)


@sc()
def t_read_after_other_fd_truncate(c):
    r = c.open("open lower read-only", c.p("big.bin"), RD)
    c.do("truncate path to 10", os.truncate, c.p("big.bin"), 10)
    c.pread("read first fd", r, 32, 0)
    c.fstat("fstat first fd", r)


@sc()
def t_sendfile_copy_file_range(c):
    src = c.open("open src", c.p("medium.bin"), RD)
    dst = c.open("open dst", c.p("copy1"), WR | CR)
    c.do("copy_file_range", os.copy_file_range, src, dst, 70000, 0, 0, show=lambda r: r)
    c.content("copy1", c.p("copy1"))
    dst2 = c.open("open dst2", c.p("copy2"), WR | CR)
    c.do("sendfile", os.sendfile, dst2, src, 100, 5000, show=lambda r: r)
    c.content("copy2", c.p("copy2"))


@sc()
def t_read_dir_eisdir(c):
    fd = c.open("open dir", c.p("dir"), RD | os.O_DIRECTORY)
    c.read("read", fd, 10)
    c.pread("pread", fd, 10, 0)
    c.content("open()+read on dir", c.p("dir"))


# --- truncate ----------------------------------------------------------------------------------

@sc()
def t_ftruncate_grow_lower(c):
    ino = c.ino(c.p("small.txt"))
    fd = c.open("open rw", c.p("small.txt"), RW)
    c.do("ftruncate to 10000", os.ftruncate, fd, 10000)
    c.fstat("fstat", fd)
    c.pread("zeros", fd, 8, 5000)
    c.content("content", c.p("small.txt"))
    c.same_ino("ino", ino, c.ino(c.p("small.txt")))


@sc()
def t_ftruncate_shrink_lower(c):
    fd = c.open("open rw", c.p("big.bin"), RW)
    c.do("ftruncate to 1000", os.ftruncate, fd, 1000)
    c.fstat("fstat", fd)
    c.pread("read past new end", fd, 10, 995)
    c.do("ftruncate grow back", os.ftruncate, fd, 2000)
    c.pread("regrown part is zero", fd, 10, 1000)
    c.content("content", c.p("big.bin"))


@sc()
def t_truncate_path(c):
    before = c.snap(c.p("page.bin"))
    c.do("truncate page.bin 100", os.truncate, c.p("page.bin"), 100)
    c.stat("stat", c.p("page.bin"))
    c.times("times", c.p("page.bin"), before)
    c.do("truncate empty 5000", os.truncate, c.p("empty"), 5000)
    c.content("empty grown", c.p("empty"))
    c.do("truncate via symlink", os.truncate, c.p("link"), 3)
    c.content("small through link", c.p("small.txt"))
    c.do("truncate negative", os.truncate, c.p("empty"), -1)
    c.do("truncate missing", os.truncate, c.p("missing"), 0)
    c.do("truncate dir", os.truncate, c.p("dir"), 0)


@sc()
def t_truncate_new_to_zero(c):
    c.put("create", c.p("n"), b"0123456789")
    c.do("truncate 0", os.truncate, c.p("n"), 0)
    c.stat("stat", c.p("n"))
    c.do("truncate same size", os.truncate, c.p("n"), 0)


@sc()
def t_ftruncate_rdonly_fd(c):
    fd = c.open("O_RDONLY", c.p("small.txt"), RD)
    c.do("ftruncate on read-only fd", os.ftruncate, fd, 0)
    c.stat("unchanged", c.p("small.txt"))


@sc()
def t_truncate_readonly_file_as_root(c):
    c.do("truncate 0444 file as root", os.truncate, c.p("readonly.txt"), 4)
    c.content("content", c.p("readonly.txt"))
    c.open("open 0444 for write as root", c.p("readonly.txt"), WR)
    c.stat("mode kept", c.p("readonly.txt"))


# --- unlink ------------------------------------------------------------------------------------

@sc()
def t_unlink_lower_file(c):
    c.do("unlink", os.unlink, c.p("small.txt"))
    c.stat("stat", c.p("small.txt"))
    c.do("unlink again", os.unlink, c.p("small.txt"))
    c.ls("listing", c.root)
    c.content("symlink to it now dangles", c.p("link"))


@sc()
def t_unlink_dir(c):
    c.do("unlink lower dir", os.unlink, c.p("dir"))
    c.do("unlink empty lower dir", os.unlink, c.p("emptydir"))
    c.do("mkdir", os.mkdir, c.p("nd"))
    c.do("unlink new dir", os.unlink, c.p("nd"))
    c.exists("dir still there", c.p("dir"))


@sc()
def t_unlink_missing(c):
    c.do("unlink missing", os.unlink, c.p("nope"))
    c.do("unlink in missing dir", os.unlink, c.p("nodir", "x"))
    c.do("unlink through file", os.unlink, c.p("small.txt", "x"))
    c.do("unlink with trailing slash", os.unlink, c.p("small.txt") + b"/")


@sc()
def t_unlink_symlink_not_target(c):
    c.do("unlink link", os.unlink, c.p("link"))
    c.exists("link gone", c.p("link"))
    c.content("target intact", c.p("small.txt"))
    c.do("unlink dangling", os.unlink, c.p("dangling"))
    c.ls("listing", c.root)


@sc()
def t_unlink_then_recreate(c):
    ino = c.ino(c.p("medium.bin"))
    c.do("unlink", os.unlink, c.p("medium.bin"))
    c.put("recreate", c.p("medium.bin"), b"new content", WR | CR | EX)
    c.content("new content", c.p("medium.bin"))
    c.stat("stat", c.p("medium.bin"))
    # Whether the new file reuses the old inode number is the allocator's business (ext4
    # often reuses it at once); POSIX promises nothing, so it is not compared.
    del ino


@sc(xfail="known limitation: two names of one real-tree file come apart when one is first written (copy-up copies one name), as in kernel overlayfs without index=on; docs/filesystem.md")
def t_unlink_hardlink_one_of_pair(c):
    c.stat("hard1 before", c.p("hard1"))
    c.do("unlink hard1", os.unlink, c.p("hard1"))
    c.stat("hard2 after", c.p("hard2"))
    c.content("hard2 content", c.p("hard2"))


@sc()
def t_unlink_nested_lower(c):
    c.do("unlink dir/sub/deeper/c.txt", os.unlink, c.p("dir", "sub", "deeper", "c.txt"))
    c.ls("deeper", c.p("dir", "sub", "deeper"))
    c.ls("sub", c.p("dir", "sub"))
    c.ls("dir", c.p("dir"))


@sc()
def t_unlink_readonly_file(c):
    c.do("unlink 0444 file", os.unlink, c.p("readonly.txt"))
    c.exists("gone", c.p("readonly.txt"))


# --- rmdir / mkdir -----------------------------------------------------------------------------

@sc()
def t_rmdir_nonempty_lower(c):
    c.do("rmdir dir", os.rmdir, c.p("dir"))
    c.do("rmdir dir/sub/deeper", os.rmdir, c.p("dir", "sub", "deeper"))
    c.ls("dir intact", c.p("dir"))


@sc()
def t_rmdir_empty_lower(c):
    c.do("rmdir emptydir", os.rmdir, c.p("emptydir"))
    c.exists("gone", c.p("emptydir"))
    c.do("rmdir again", os.rmdir, c.p("emptydir"))
    c.ls("listing", c.root)


@sc()
def t_rmdir_after_deleting_lower_children(c):
    c.do("unlink c.txt", os.unlink, c.p("dir", "sub", "deeper", "c.txt"))
    c.do("rmdir deeper", os.rmdir, c.p("dir", "sub", "deeper"))
    c.do("rmdir sub (b.txt left)", os.rmdir, c.p("dir", "sub"))
    c.do("unlink b.txt", os.unlink, c.p("dir", "sub", "b.txt"))
    c.do("rmdir sub", os.rmdir, c.p("dir", "sub"))
    c.do("unlink a.txt", os.unlink, c.p("dir", "a.txt"))
    c.do("rmdir dir", os.rmdir, c.p("dir"))
    c.exists("dir gone", c.p("dir"))
    c.ls("listing", c.root)


@sc()
def t_rmdir_then_mkdir_is_empty(c):
    c.do("unlink dir2/x.txt", os.unlink, c.p("dir2", "x.txt"))
    c.do("rmdir dir2", os.rmdir, c.p("dir2"))
    c.do("mkdir dir2", os.mkdir, c.p("dir2"))
    c.ls("new dir2 is empty", c.p("dir2"))
    c.stat("x.txt stays gone", c.p("dir2", "x.txt"))
    c.stat("stat dir2", c.p("dir2"))


@sc()
def t_rmdir_on_file(c):
    c.do("rmdir file", os.rmdir, c.p("small.txt"))
    c.do("rmdir symlink", os.rmdir, c.p("link"))
    c.do("rmdir missing", os.rmdir, c.p("nope"))
    c.do("rmdir dir/.", os.rmdir, c.p("emptydir", "."))
    c.do("rmdir dir/..", os.rmdir, c.p("dir", "sub", ".."))
    c.exists("file intact", c.p("small.txt"))


@sc()
def t_rmdir_new_dir(c):
    c.do("mkdir", os.mkdir, c.p("n"))
    c.do("mkdir n/m", os.mkdir, c.p("n", "m"))
    c.do("rmdir n (has m)", os.rmdir, c.p("n"))
    c.do("rmdir n/m", os.rmdir, c.p("n", "m"))
    c.do("rmdir n", os.rmdir, c.p("n"))
    c.ls("listing", c.root)


@sc()
def t_rmdir_lower_dir_after_rename_out(c):
    c.do("rename dir2/x.txt out", os.rename, c.p("dir2", "x.txt"), c.p("x-moved"))
    c.do("rmdir dir2", os.rmdir, c.p("dir2"))
    c.content("moved file", c.p("x-moved"))


@sc()
def t_mkdir_existing(c):
    c.do("mkdir lower dir", os.mkdir, c.p("dir"))
    c.do("mkdir over file", os.mkdir, c.p("small.txt"))
    c.do("mkdir over symlink", os.mkdir, c.p("link"))
    c.do("mkdir over dangling symlink", os.mkdir, c.p("dangling"))
    c.do("mkdir missing parent", os.mkdir, c.p("no", "such"))
    c.do("mkdir under a file", os.mkdir, c.p("small.txt", "d"))


@sc(xfail="a directory merging the real tree and the workspace reports nlink 1 (its true count is unknown without listing both layers), as kernel overlayfs does; find and fts treat 1 as unknown")
def t_mkdir_new_nlink(c):
    c.stat("root before", c.root)
    c.do("mkdir 0700", os.mkdir, c.p("n"), 0o700)
    c.stat("new dir", c.p("n"))
    c.stat("root after", c.root)
    c.do("mkdir n/a", os.mkdir, c.p("n", "a"))
    c.stat("n after subdir", c.p("n"))


@sc(xfail="a directory merging the real tree and the workspace reports nlink 1 (its true count is unknown without listing both layers), as kernel overlayfs does; find and fts treat 1 as unknown")
def t_mkdir_in_lower_dir_nlink(c):
    c.stat("dir before (has sub)", c.p("dir"))
    c.do("mkdir dir/new", os.mkdir, c.p("dir", "new"))
    c.stat("dir after", c.p("dir"))
    c.do("rmdir dir/new", os.rmdir, c.p("dir", "new"))
    c.stat("dir after rmdir", c.p("dir"))


@sc(xfail="a directory merging the real tree and the workspace reports nlink 1 (its true count is unknown without listing both layers), as kernel overlayfs does; find and fts treat 1 as unknown")
def t_stat_lower_dirs_nlink_after_copyup(c):
    c.put("create file in dir (copies dir up)", c.p("dir", "f"), b"f")
    c.stat("dir", c.p("dir"))
    c.stat("root", c.root)
    c.stat("dir/sub", c.p("dir", "sub"))


@sc()
def t_mkdir_nested_in_lower(c):
    c.do("mkdir dir/sub/deeper/n1", os.mkdir, c.p("dir", "sub", "deeper", "n1"))
    c.do("mkdir n1/n2", os.mkdir, c.p("dir", "sub", "deeper", "n1", "n2"))
    c.put("file", c.p("dir", "sub", "deeper", "n1", "n2", "f"), b"deep")
    c.ls("deeper", c.p("dir", "sub", "deeper"))
    c.content("file", c.p("dir", "sub", "deeper", "n1", "n2", "f"))


@sc()
def t_mkdir_trailing_slash(c):
    c.do("mkdir with trailing slash", os.mkdir, c.p("ts") + b"/")
    c.stat("stat with slash", c.p("ts") + b"/")
    c.do("rmdir with trailing slash", os.rmdir, c.p("ts") + b"/")


# --- rename ------------------------------------------------------------------------------------

@sc()
def t_rename_file_to_new(c):
    ino = c.ino(c.p("medium.bin"))
    c.do("rename", os.rename, c.p("medium.bin"), c.p("moved.bin"))
    c.exists("old gone", c.p("medium.bin"))
    c.content("new content", c.p("moved.bin"))
    c.stat("stat", c.p("moved.bin"))
    c.same_ino("ino follows the file", ino, c.ino(c.p("moved.bin")))
    c.ls("listing", c.root)


@sc()
def t_rename_file_over_file(c):
    ino = c.ino(c.p("small.txt"))
    c.do("rename small over medium", os.rename, c.p("small.txt"), c.p("medium.bin"))
    c.content("medium now small's", c.p("medium.bin"))
    c.exists("small gone", c.p("small.txt"))
    c.same_ino("ino of moved", ino, c.ino(c.p("medium.bin")))
    c.ls("listing", c.root)


@sc()
def t_rename_file_over_dir(c):
    c.do("file over lower dir", os.rename, c.p("small.txt"), c.p("dir"))
    c.do("file over empty dir", os.rename, c.p("small.txt"), c.p("emptydir"))
    c.do("file over dir with trailing slash", os.rename, c.p("small.txt"),
         c.p("emptydir") + b"/")
    c.exists("file intact", c.p("small.txt"))


@sc()
def t_rename_dir_over_file(c):
    c.do("lower dir over file", os.rename, c.p("dir"), c.p("small.txt"))
    c.do("empty dir over file", os.rename, c.p("emptydir"), c.p("small.txt"))
    c.do("dir to name with trailing slash", os.rename, c.p("emptydir"), c.p("ed2") + b"/")
    c.exists("ed2", c.p("ed2"))


@sc()
def t_rename_dir_over_empty_dir(c):
    ino = c.ino(c.p("dir2"))
    c.do("dir2 over emptydir", os.rename, c.p("dir2"), c.p("emptydir"))
    c.ls("emptydir now has x.txt", c.p("emptydir"))
    c.content("x.txt", c.p("emptydir", "x.txt"))
    c.exists("dir2 gone", c.p("dir2"))
    c.same_ino("dir ino follows", ino, c.ino(c.p("emptydir")))
    c.do("mkdir n", os.mkdir, c.p("n"))
    c.do("emptydir over new empty dir", os.rename, c.p("emptydir"), c.p("n"))
    c.ls("n", c.p("n"))


@sc()
def t_rename_dir_over_emptied_lower_dir(c):
    c.do("unlink dir2/x.txt", os.unlink, c.p("dir2", "x.txt"))
    c.do("rename dir over emptied dir2", os.rename, c.p("dir"), c.p("dir2"))
    c.ls("dir2 shows dir's entries", c.p("dir2"))
    c.ls("dir2/sub", c.p("dir2", "sub"))


@sc()
def t_rename_dir_over_nonempty(c):
    c.do("emptydir over dir", os.rename, c.p("emptydir"), c.p("dir"))
    c.do("dir2 over dir", os.rename, c.p("dir2"), c.p("dir"))
    c.do("mkdir n, n/f", lambda: (os.mkdir(c.p("n")), open(c.p("n", "f"), "w").close()))
    c.do("emptydir over new non-empty", os.rename, c.p("emptydir"), c.p("n"))
    c.ls("dir intact", c.p("dir"))


@sc()
def t_rename_dir_into_own_subdir(c):
    c.do("dir into dir/sub/x", os.rename, c.p("dir"), c.p("dir", "sub", "x"))
    c.do("dir onto dir/sub", os.rename, c.p("dir"), c.p("dir", "sub"))
    c.do("dir/sub onto dir (parent)", os.rename, c.p("dir", "sub"), c.p("dir"))
    c.do("dir into itself", os.rename, c.p("dir"), c.p("dir", "x"))
    c.ls("intact", c.p("dir"))


@sc()
def t_rename_lower_dir_with_contents(c):
    ino = c.ino(c.p("dir"))
    ino_c = c.ino(c.p("dir", "sub", "deeper", "c.txt"))
    c.do("rename dir -> moved", os.rename, c.p("dir"), c.p("moved"))
    c.exists("old gone", c.p("dir"))
    c.exists("old child gone", c.p("dir", "a.txt"))
    c.ls("moved", c.p("moved"))
    c.ls("moved/sub", c.p("moved", "sub"))
    c.content("moved/a.txt", c.p("moved", "a.txt"))
    c.content("moved/sub/deeper/c.txt", c.p("moved", "sub", "deeper", "c.txt"))
    c.stat("stat moved", c.p("moved"))
    c.same_ino("dir ino", ino, c.ino(c.p("moved")))
    c.same_ino("child ino", ino_c, c.ino(c.p("moved", "sub", "deeper", "c.txt")))
    c.do("mkdir dir again", os.mkdir, c.p("dir"))
    c.ls("new dir empty", c.p("dir"))


@sc()
def t_rename_dir_then_back(c):
    c.do("rename dir -> d2", os.rename, c.p("dir"), c.p("d2"))
    c.do("rename d2 -> dir", os.rename, c.p("d2"), c.p("dir"))
    c.ls("dir", c.p("dir"))
    c.ls("dir/sub", c.p("dir", "sub"))
    c.content("a.txt", c.p("dir", "a.txt"))


@sc()
def t_rename_same_name(c):
    before = c.snap(c.root)
    c.do("rename file to itself", os.rename, c.p("small.txt"), c.p("small.txt"))
    c.do("rename dir to itself", os.rename, c.p("dir"), c.p("dir"))
    c.do("rename missing to itself", os.rename, c.p("nope"), c.p("nope"))
    c.content("file intact", c.p("small.txt"))
    c.ls("dir intact", c.p("dir"))
    c.times("parent unchanged", c.root, before)


@sc()
def t_rename_hardlink_onto_sibling(c):
    c.do("rename hard1 onto hard2", os.rename, c.p("hard1"), c.p("hard2"))
    c.exists("hard1 still there", c.p("hard1"))
    c.exists("hard2 still there", c.p("hard2"))
    c.stat("hard2", c.p("hard2"))
    c.ls("listing", c.root)


@sc()
def t_rename_new_hardlink_onto_sibling(c):
    c.put("create a", c.p("a"), b"a")
    c.do("link a b", os.link, c.p("a"), c.p("b"))
    c.do("rename a onto b", os.rename, c.p("a"), c.p("b"))
    c.exists("a still there", c.p("a"))
    c.stat("b", c.p("b"))


@sc()
def t_rename_across_dirs(c):
    c.do("dir/a.txt -> dir2/a.txt", os.rename, c.p("dir", "a.txt"), c.p("dir2", "a.txt"))
    c.do("dir2/x.txt -> dir/sub/deeper/x.txt", os.rename, c.p("dir2", "x.txt"),
         c.p("dir", "sub", "deeper", "x.txt"))
    c.ls("dir", c.p("dir"))
    c.ls("dir2", c.p("dir2"))
    c.ls("deeper", c.p("dir", "sub", "deeper"))
    c.content("moved", c.p("dir", "sub", "deeper", "x.txt"))


@sc()
def t_rename_symlink(c):
    c.do("rename link", os.rename, c.p("link"), c.p("dir", "link2"))
    c.do("readlink", os.readlink, c.p("dir", "link2"), show=lambda r: r)
    c.content("now resolves relative to dir", c.p("dir", "link2"))
    c.stat("lstat", c.p("dir", "link2"))


@sc()
def t_rename_then_create_old_name(c):
    c.do("rename small -> s2", os.rename, c.p("small.txt"), c.p("s2"))
    c.put("create small again", c.p("small.txt"), b"second", WR | CR | EX)
    c.content("small", c.p("small.txt"))
    c.content("s2", c.p("s2"))
    c.ls("listing", c.root)


@sc()
def t_rename_file_and_back(c):
    ino = c.ino(c.p("page.bin"))
    c.do("a->b", os.rename, c.p("page.bin"), c.p("tmp"))
    c.do("b->a", os.rename, c.p("tmp"), c.p("page.bin"))
    c.content("content", c.p("page.bin"))
    c.same_ino("ino", ino, c.ino(c.p("page.bin")))
    c.stat("stat", c.p("page.bin"))


@sc()
def t_rename_new_over_lower(c):
    c.put("create new", c.p("n"), b"new data")
    c.do("rename new over lower", os.rename, c.p("n"), c.p("big.bin"))
    c.content("big.bin", c.p("big.bin"))
    c.exists("n gone", c.p("n"))
    c.do("rename lower over lower in subdir", os.rename, c.p("dir", "a.txt"),
         c.p("dir", "sub", "b.txt"))
    c.content("b.txt", c.p("dir", "sub", "b.txt"))


@sc()
def t_rename_missing(c):
    c.do("missing src", os.rename, c.p("nope"), c.p("x"))
    c.do("into missing dir", os.rename, c.p("small.txt"), c.p("nodir", "x"))
    c.do("through a file", os.rename, c.p("small.txt"), c.p("medium.bin", "x"))
    c.do("empty name target dir", os.rename, c.p("small.txt"), c.p("dir", "sub", ""))
    c.exists("intact", c.p("small.txt"))


@sc()
def t_rename_open_file(c):
    fd = c.open("open rw", c.p("small.txt"), RW)
    c.do("rename", os.rename, c.p("small.txt"), c.p("renamed"))
    c.pwrite("write via fd after rename", fd, b"HELLO", 0)
    c.content("read via new name", c.p("renamed"))
    c.fstat("fstat", fd)


@sc()
def t_rename_over_open_file(c):
    fd = c.open("open target", c.p("medium.bin"), RD)
    c.do("rename small over it", os.rename, c.p("small.txt"), c.p("medium.bin"))
    c.pread("old fd reads old data", fd, 16, 0)
    c.fstat("old fd nlink 0", fd)
    c.content("name has new data", c.p("medium.bin"))


@sc()
def t_rename_ino_stable(c):
    names = ["small.txt", "dir", "link", "exec.sh"]
    inos = [c.ino(c.p(n)) for n in names]
    for n in names:
        c.do("rename " + n, os.rename, c.p(n), c.p(n + ".moved"))
    for n, i in zip(names, inos):
        c.same_ino("ino of " + n, i, c.ino(c.p(n + ".moved")))


@sc()
def t_rename_parent_times(c):
    b1 = c.snap(c.p("dir"))
    b2 = c.snap(c.p("dir2"))
    bf = c.snap(c.p("dir", "a.txt"))
    c.do("rename dir/a.txt -> dir2/a.txt", os.rename, c.p("dir", "a.txt"), c.p("dir2", "a.txt"))
    c.times("src parent", c.p("dir"), b1)
    c.times("dst parent", c.p("dir2"), b2)
    c.times("moved file: mtime same, ctime advanced", c.p("dir2", "a.txt"), bf)


@sc(xfail="a directory merging the real tree and the workspace reports nlink 1 (its true count is unknown without listing both layers), as kernel overlayfs does; find and fts treat 1 as unknown")
def t_rename_dir_parent_nlink(c):
    c.stat("root before", c.root)
    c.stat("dir2 before", c.p("dir2"))
    c.do("move emptydir into dir2", os.rename, c.p("emptydir"), c.p("dir2", "e"))
    c.stat("root after", c.root)
    c.stat("dir2 after", c.p("dir2"))


@sc()
def t_rename_dir_dotdot(c):
    c.do("rename dir/sub -> dir2/sub", os.rename, c.p("dir", "sub"), c.p("dir2", "sub"))
    c.do("stat dir2/sub/..", lambda: os.path.samestat(os.stat(c.p("dir2", "sub", "..")),
                                                      os.stat(c.p("dir2"))), show=lambda r: r)
    c.content("via ..", c.p("dir2", "sub", "..", "x.txt"))


@sc()
def t_rename_file_into_new_dir_then_rmdir_old(c):
    c.do("mkdir n", os.mkdir, c.p("n"))
    c.do("mv dir2/x.txt n/", os.rename, c.p("dir2", "x.txt"), c.p("n", "x.txt"))
    c.do("rmdir dir2", os.rmdir, c.p("dir2"))
    c.do("mv n dir2", os.rename, c.p("n"), c.p("dir2"))
    c.ls("dir2", c.p("dir2"))
    c.content("x", c.p("dir2", "x.txt"))


# --- renameat2 ---------------------------------------------------------------------------------

@sc()
def t_renameat2_noreplace(c):
    c.do("NOREPLACE onto existing lower", renameat2, c.p("small.txt"), c.p("medium.bin"),
         RENAME_NOREPLACE)
    c.do("NOREPLACE onto dir", renameat2, c.p("small.txt"), c.p("dir"), RENAME_NOREPLACE)
    c.do("NOREPLACE onto dangling symlink", renameat2, c.p("small.txt"), c.p("dangling"),
         RENAME_NOREPLACE)
    c.do("NOREPLACE to new", renameat2, c.p("small.txt"), c.p("fresh"), RENAME_NOREPLACE)
    c.content("fresh", c.p("fresh"))
    c.do("NOREPLACE onto itself", renameat2, c.p("fresh"), c.p("fresh"), RENAME_NOREPLACE)
    c.do("NOREPLACE missing src", renameat2, c.p("nope"), c.p("nope2"), RENAME_NOREPLACE)
    c.content("medium intact", c.p("medium.bin"))


@sc()
def t_renameat2_exchange_files(c):
    i1, i2 = c.ino(c.p("small.txt")), c.ino(c.p("page.bin"))
    c.do("EXCHANGE small <-> page", renameat2, c.p("small.txt"), c.p("page.bin"),
         RENAME_EXCHANGE)
    c.content("small now page", c.p("small.txt"))
    c.content("page now small", c.p("page.bin"))
    c.same_ino("inos swapped (a)", i1, c.ino(c.p("page.bin")))
    c.same_ino("inos swapped (b)", i2, c.ino(c.p("small.txt")))
    c.put("new file", c.p("n"), b"new")
    c.do("EXCHANGE new <-> lower", renameat2, c.p("n"), c.p("small.txt"), RENAME_EXCHANGE)
    c.content("small", c.p("small.txt"))
    c.content("n", c.p("n"))


@sc()
def t_renameat2_exchange_dir_file(c):
    c.do("EXCHANGE dir <-> file", renameat2, c.p("dir"), c.p("small.txt"), RENAME_EXCHANGE)
    c.stat("dir is a file", c.p("dir"))
    c.stat("small.txt is a dir", c.p("small.txt"))
    c.ls("small.txt lists", c.p("small.txt"))
    c.content("dir content", c.p("dir"))
    c.content("nested", c.p("small.txt", "sub", "b.txt"))


@sc()
def t_renameat2_exchange_dirs(c):
    c.do("EXCHANGE dir <-> dir2", renameat2, c.p("dir"), c.p("dir2"), RENAME_EXCHANGE)
    c.ls("dir", c.p("dir"))
    c.ls("dir2", c.p("dir2"))
    c.ls("dir2/sub/deeper", c.p("dir2", "sub", "deeper"))
    c.do("EXCHANGE dir2/sub <-> emptydir", renameat2, c.p("dir2", "sub"), c.p("emptydir"),
         RENAME_EXCHANGE)
    c.ls("emptydir", c.p("emptydir"))
    c.ls("dir2", c.p("dir2"))


@sc()
def t_renameat2_exchange_missing(c):
    c.do("EXCHANGE with missing dst", renameat2, c.p("small.txt"), c.p("nope"),
         RENAME_EXCHANGE)
    c.do("EXCHANGE missing src", renameat2, c.p("nope"), c.p("small.txt"), RENAME_EXCHANGE)
    c.do("EXCHANGE|NOREPLACE", renameat2, c.p("small.txt"), c.p("page.bin"),
         RENAME_EXCHANGE | RENAME_NOREPLACE)
    c.do("EXCHANGE with itself", renameat2, c.p("small.txt"), c.p("small.txt"), RENAME_EXCHANGE)
    c.do("EXCHANGE dir with own child", renameat2, c.p("dir"), c.p("dir", "sub"),
         RENAME_EXCHANGE)
    c.content("intact", c.p("small.txt"))


@sc()
def t_renameat2_unknown_flag(c):
    c.do("unknown flag", renameat2, c.p("small.txt"), c.p("w"), 1 << 10)
    c.do("EXCHANGE|WHITEOUT", renameat2, c.p("small.txt"), c.p("page.bin"), 4 | RENAME_EXCHANGE)
    c.exists("intact", c.p("small.txt"))


@sc(xfail="RENAME_WHITEOUT leaves a 0:0 character device at the old name; device nodes are "
          "refused in a workspace (EINVAL), by design")
def t_renameat2_whiteout(c):
    c.do("RENAME_WHITEOUT", renameat2, c.p("small.txt"), c.p("w"), 4)
    c.stat("whiteout left behind", c.p("small.txt"))
    c.content("moved", c.p("w"))


# --- link --------------------------------------------------------------------------------------

@sc()
def t_link_to_lower_file(c):
    ino = c.ino(c.p("small.txt"))
    c.do("link small.txt -> l", os.link, c.p("small.txt"), c.p("l"))
    c.stat("small nlink", c.p("small.txt"))
    c.stat("l nlink", c.p("l"))
    c.same_ino("both names share ino", c.ino(c.p("small.txt")), c.ino(c.p("l")))
    c.same_ino("ino as before", ino, c.ino(c.p("l")))
    c.put("write via l", c.p("l"), b"via l", WR | TR)
    c.content("read via small", c.p("small.txt"))


@sc()
def t_link_write_then_stat_other(c):
    c.put("create a", c.p("a"), b"")
    c.do("link a b", os.link, c.p("a"), c.p("b"))
    c.stat("b before", c.p("b"))
    c.content("read b before", c.p("b"))
    c.put("append to a", c.p("a"), b"0123456789", WR | AP)
    c.stat("b after write to a", c.p("b"))
    c.content("read b after", c.p("b"))
    c.do("chmod a 600", os.chmod, c.p("a"), 0o600)
    c.stat("b after chmod a", c.p("b"))


@sc()
def t_link_to_dir(c):
    c.do("link lower dir", os.link, c.p("dir"), c.p("dl"))
    c.do("link new dir", lambda: (os.mkdir(c.p("nd")), os.link(c.p("nd"), c.p("ndl"))))
    c.exists("no dl", c.p("dl"))


@sc()
def t_link_existing_target(c):
    c.do("link onto existing file", os.link, c.p("small.txt"), c.p("medium.bin"))
    c.do("link onto dir", os.link, c.p("small.txt"), c.p("dir"))
    c.do("link onto dangling symlink", os.link, c.p("small.txt"), c.p("dangling"))
    c.do("link missing src", os.link, c.p("nope"), c.p("x"))
    c.do("link into missing dir", os.link, c.p("small.txt"), c.p("nodir", "x"))
    c.stat("small nlink unchanged", c.p("small.txt"))


@sc()
def t_link_nlink_counts(c):
    c.put("create", c.p("f"), b"data")
    for i in range(3):
        c.do("link %d" % i, os.link, c.p("f"), c.p("f%d" % i))
        c.stat("nlink after link %d" % i, c.p("f"))
    c.do("unlink f1", os.unlink, c.p("f1"))
    c.stat("f0 after unlink", c.p("f0"))
    c.do("unlink f", os.unlink, c.p("f"))
    c.stat("f2 after unlink", c.p("f2"))
    c.val("all share ino", c.ino(c.p("f0")) == c.ino(c.p("f2")))


@sc(xfail="known limitation: two names of one real-tree file come apart when one is first written (copy-up copies one name), as in kernel overlayfs without index=on; docs/filesystem.md")
def t_link_lower_pair_nlink(c):
    c.stat("hard1", c.p("hard1"))
    c.stat("hard2", c.p("hard2"))
    c.same_ino("pair shares ino", c.ino(c.p("hard1")), c.ino(c.p("hard2")))
    c.do("link hard1 -> hard3", os.link, c.p("hard1"), c.p("hard3"))
    c.stat("hard1 after", c.p("hard1"))
    c.stat("hard2 after", c.p("hard2"))
    c.stat("hard3", c.p("hard3"))
    c.same_ino("hard3 shares ino with hard2", c.ino(c.p("hard3")), c.ino(c.p("hard2")))


@sc(xfail="known limitation: two names of one real-tree file come apart when one is first written (copy-up copies one name), as in kernel overlayfs without index=on; docs/filesystem.md")
def t_hardlink_lower_write_shared(c):
    c.put("write via hard1", c.p("hard1"), b"changed\n", WR | TR)
    c.content("read hard2", c.p("hard2"))
    c.same_ino("still one ino", c.ino(c.p("hard1")), c.ino(c.p("hard2")))


@sc(xfail="known limitation: two names of one real-tree file come apart when one is first written (copy-up copies one name), as in kernel overlayfs without index=on; docs/filesystem.md")
def t_hardlink_lower_chmod_shared(c):
    c.do("chmod hard1 600", os.chmod, c.p("hard1"), 0o600)
    c.stat("hard2 mode", c.p("hard2"))


@sc()
def t_link_symlink(c):
    c.do("link symlink itself (no follow)", os.link, c.p("link"), c.p("l2"),
         follow_symlinks=False)
    c.stat("l2 is a symlink", c.p("l2"))
    c.do("readlink l2", os.readlink, c.p("l2"), show=lambda r: r)
    c.do("link following symlink", linkat_follow, c.p("link"), c.p("l3"))
    c.stat("l3 is the file", c.p("l3"))
    c.stat("small nlink", c.p("small.txt"))
    c.do("link dangling (follow)", linkat_follow, c.p("dangling"), c.p("l4"))


@sc()
def t_link_ino_stable_after_copyup(c):
    c.do("link small -> l", os.link, c.p("small.txt"), c.p("l"))
    i = c.ino(c.p("l"))
    c.put("write via small", c.p("small.txt"), b"x", WR | AP)
    c.same_ino("ino after write", i, c.ino(c.p("small.txt")))
    c.same_ino("names share", c.ino(c.p("small.txt")), c.ino(c.p("l")))
    c.content("l sees write", c.p("l"))


# --- symlink / readlink ------------------------------------------------------------------------

@sc()
def t_symlink_dangling(c):
    c.do("symlink dangling", os.symlink, "no/such/target", c.p("s"))
    c.stat("lstat", c.p("s"))
    c.stat("stat follows", c.p("s"), follow=True)
    c.do("readlink", os.readlink, c.p("s"), show=lambda r: r)
    c.content("open", c.p("s"))


@sc()
def t_symlink_relative(c):
    c.do("symlink ../small.txt in dir", os.symlink, "../small.txt", c.p("dir", "up"))
    c.content("read through", c.p("dir", "up"))
    c.do("symlink to dir", os.symlink, "dir/sub", c.p("sublink"))
    c.ls("list through", c.p("sublink"))
    c.content("path through", c.p("sublink", "b.txt"))
    c.stat("stat through", c.p("sublink"), follow=True)


@sc()
def t_symlink_absolute(c):
    c.do("symlink /dev/null", os.symlink, "/dev/null", c.p("abs"))
    c.do("readlink", os.readlink, c.p("abs"), show=lambda r: r)
    c.content("read through", c.p("abs"))
    c.do("symlink /nonexistent/x", os.symlink, "/nonexistent/x", c.p("abs2"))
    c.content("dangling absolute", c.p("abs2"))
    c.do("readlink lower abslink", os.readlink, c.p("abslink"), show=lambda r: r)


@sc()
def t_readlink_lower(c):
    for n in ("link", "dangling", "abslink"):
        c.do("readlink " + n, os.readlink, c.p(n), show=lambda r: r)
        c.stat("lstat " + n, c.p(n))
    c.do("readlink on file", os.readlink, c.p("small.txt"))
    c.do("readlink on dir", os.readlink, c.p("dir"))
    c.do("readlink missing", os.readlink, c.p("nope"))


@sc()
def t_symlink_existing(c):
    c.do("symlink over file", os.symlink, "x", c.p("small.txt"))
    c.do("symlink over symlink", os.symlink, "x", c.p("link"))
    c.do("symlink over dir", os.symlink, "x", c.p("dir"))
    c.do("symlink in missing dir", os.symlink, "x", c.p("nodir", "s"))
    c.do("symlink empty target", os.symlink, "", c.p("s"))


@sc()
def t_symlink_long_target(c):
    t = "x/" * 2000 + "end"
    c.do("symlink 4003-byte target", os.symlink, t, c.p("long"))
    c.do("readlink", os.readlink, c.p("long"), show=lambda r: (len(r), r == t))
    c.stat("lstat size", c.p("long"))
    c.do("symlink 4096-byte target", os.symlink, "y" * 4096, c.p("toolong"))


@sc()
def t_symlink_loop(c):
    c.do("a -> b", os.symlink, "b", c.p("a"))
    c.do("b -> a", os.symlink, "a", c.p("b"))
    c.content("open a", c.p("a"))
    c.stat("stat a follows", c.p("a"), follow=True)
    c.do("self -> self", os.symlink, "self", c.p("self"))
    c.open("open self", c.p("self"), RD)


@sc()
def t_symlink_ops_through(c):
    c.do("chmod through link", os.chmod, c.p("link"), 0o600)
    c.stat("target mode", c.p("small.txt"))
    c.stat("link itself", c.p("link"))
    c.put("write through link", c.p("link"), b"through\n", WR | TR)
    c.content("target content", c.p("small.txt"))


# --- chmod / chown / utime ---------------------------------------------------------------------

@sc()
def t_chmod_lower_file(c):
    ino = c.ino(c.p("small.txt"))
    before = c.snap(c.p("small.txt"))
    c.do("chmod 0600", os.chmod, c.p("small.txt"), 0o600)
    c.stat("mode", c.p("small.txt"))
    c.times("mtime same, ctime advanced", c.p("small.txt"), before)
    c.same_ino("ino", ino, c.ino(c.p("small.txt")))
    c.content("content intact", c.p("small.txt"))
    c.do("chmod 07777", os.chmod, c.p("small.txt"), 0o7777)
    c.stat("all bits", c.p("small.txt"))
    c.do("chmod 0", os.chmod, c.p("small.txt"), 0)
    c.stat("no bits", c.p("small.txt"))


@sc()
def t_chmod_dir(c):
    c.do("chmod dir 0700", os.chmod, c.p("dir"), 0o700)
    c.attrs("dir mode", c.p("dir"))
    c.ls("still listable", c.p("dir"))
    c.do("chmod dir 1777", os.chmod, c.p("dir"), 0o1777)
    c.attrs("sticky", c.p("dir"))


@sc()
def t_chmod_symlink_nofollow(c):
    try:
        os.chmod(c.p("link"), 0o600, follow_symlinks=False)
        c.rec("lchmod", "ok")
    except NotImplementedError:
        c.rec("lchmod", "not implemented")
    except OSError as e:
        c.rec("lchmod", errname(e))
    c.stat("link", c.p("link"))
    c.stat("target", c.p("small.txt"))


@sc()
def t_fchmod_via_rdonly_fd(c):
    fd = c.open("open lower O_RDONLY", c.p("small.txt"), RD)
    c.do("fchmod 0640", os.fchmod, fd, 0o640)
    c.fstat("fstat", fd)
    c.stat("stat", c.p("small.txt"))
    c.read("read still works", fd, 100)


@sc()
def t_chown_lower_to_nobody(c):
    before = c.snap(c.p("small.txt"))
    c.do("chown 65534:65534", os.chown, c.p("small.txt"), 65534, 65534)
    c.stat("owner", c.p("small.txt"))
    c.times("ctime", c.p("small.txt"), before)
    c.do("chown gid only", os.chown, c.p("medium.bin"), -1, 65534)
    c.stat("gid only", c.p("medium.bin"))
    c.do("chown dir", os.chown, c.p("dir"), 65534, 0)
    c.attrs("dir owner", c.p("dir"))
    c.do("chown -1 -1", os.chown, c.p("page.bin"), -1, -1)
    c.stat("unchanged", c.p("page.bin"))


@sc()
def t_chown_symlink_nofollow(c):
    c.do("lchown link", os.lchown, c.p("link"), 65534, 65534)
    c.stat("link owner", c.p("link"))
    c.stat("target owner", c.p("small.txt"))
    c.do("chown through link", os.chown, c.p("link"), 123, 456)
    c.stat("target owner after", c.p("small.txt"))


@sc()
def t_chown_clears_setid(c):
    c.do("chmod 06755", os.chmod, c.p("exec.sh"), 0o6755)
    c.stat("mode before", c.p("exec.sh"))
    c.do("chown 65534", os.chown, c.p("exec.sh"), 65534, 65534)
    c.stat("mode after chown", c.p("exec.sh"))
    c.do("chmod 02755 dir", os.chmod, c.p("dir"), 0o2755)
    c.do("chown dir", os.chown, c.p("dir"), 65534, 65534)
    c.attrs("dir keeps setgid", c.p("dir"))


@sc()
def t_setgid_dir_inheritance(c):
    c.do("chown dir2 :65534", os.chown, c.p("dir2"), 0, 65534)
    c.do("chmod dir2 2775", os.chmod, c.p("dir2"), 0o2775)
    c.put("create in setgid dir", c.p("dir2", "f"), b"f")
    c.stat("file gid", c.p("dir2", "f"))
    c.do("mkdir in setgid dir", os.mkdir, c.p("dir2", "d"))
    c.attrs("subdir gid and setgid", c.p("dir2", "d"))


@sc()
def t_utime_ns(c):
    a, m = 1_000_000_123_456_789, 1_100_000_987_654_321
    before = c.snap(c.p("small.txt"))
    c.do("utime ns", os.utime, c.p("small.txt"), ns=(a, m))
    st = c.raw(c.p("small.txt"))
    c.val("atime as set", st.st_atime_ns == a)
    c.val("mtime as set", st.st_mtime_ns == m)
    c.times("ctime advanced", c.p("small.txt"), before, ("ctime",))
    c.do("utime negative ns", os.utime, c.p("medium.bin"), ns=(-10**9, -1))
    st = c.raw(c.p("medium.bin"))
    c.val("negative times", (st.st_atime_ns, st.st_mtime_ns))


@sc()
def t_utime_now(c):
    c.do("set old times", os.utime, c.p("small.txt"), ns=(10**18, 10**18))
    before = c.snap(c.p("small.txt"))
    c.do("utime(None) = now", os.utime, c.p("small.txt"))
    st = c.raw(c.p("small.txt"))
    c.val("atime near now", abs(st.st_atime_ns - time.time_ns()) < 5 * 10**9)
    c.val("mtime near now", abs(st.st_mtime_ns - time.time_ns()) < 5 * 10**9)
    c.times("ctime", c.p("small.txt"), before, ("ctime",))


@sc()
def t_utimensat_now_omit(c):
    c.do("set known", os.utime, c.p("small.txt"), ns=(10**18, 2 * 10**18))
    c.do("atime OMIT, mtime NOW", utimensat, c.p("small.txt"), UTIME_OMIT, UTIME_NOW)
    st = c.raw(c.p("small.txt"))
    c.val("atime kept", st.st_atime_ns == 10**18)
    c.val("mtime now", abs(st.st_mtime_ns - time.time_ns()) < 5 * 10**9)
    c.do("set known again", os.utime, c.p("small.txt"), ns=(10**18, 2 * 10**18))
    c.do("atime NOW, mtime OMIT", utimensat, c.p("small.txt"), UTIME_NOW, UTIME_OMIT)
    st = c.raw(c.p("small.txt"))
    c.val("atime now", abs(st.st_atime_ns - time.time_ns()) < 5 * 10**9)
    c.val("mtime kept", st.st_mtime_ns == 2 * 10**18)
    before = c.snap(c.p("medium.bin"))
    c.do("both OMIT on lower", utimensat, c.p("medium.bin"), UTIME_OMIT, UTIME_OMIT)
    c.times("both OMIT changes nothing", c.p("medium.bin"), before, ("mtime", "ctime", "atime"))
    c.do("bad nsec", utimensat, c.p("small.txt"), (0, 2 * 10**9), UTIME_OMIT)


@sc()
def t_utime_symlink_nofollow(c):
    t = c.raw(c.p("small.txt"))
    c.do("utime link nofollow", os.utime, c.p("link"), ns=(5 * 10**17, 6 * 10**17),
         follow_symlinks=False)
    st = c.raw(c.p("link"))
    c.val("link mtime as set", st.st_mtime_ns == 6 * 10**17)
    c.val("target mtime unchanged", c.raw(c.p("small.txt")).st_mtime_ns == t.st_mtime_ns)
    c.do("utime through link", os.utime, c.p("link"), ns=(7 * 10**17, 8 * 10**17))
    c.val("target mtime set", c.raw(c.p("small.txt")).st_mtime_ns == 8 * 10**17)


@sc()
def t_utime_dir(c):
    c.do("utime dir", os.utime, c.p("dir"), ns=(3 * 10**17, 4 * 10**17))
    st = c.raw(c.p("dir"))
    c.val("dir mtime as set", st.st_mtime_ns == 4 * 10**17)
    c.ls("contents intact", c.p("dir"))
    before = c.snap(c.p("dir"))
    c.put("create in dir", c.p("dir", "n"), b"")
    c.times("mtime advanced after create", c.p("dir"), before)


@sc()
def t_futimens_rdonly_fd(c):
    fd = c.open("open lower O_RDONLY", c.p("page.bin"), RD)
    c.do("futimes", os.utime, fd, ns=(10**17, 2 * 10**17))
    c.val("mtime set", c.raw(c.p("page.bin")).st_mtime_ns == 2 * 10**17)
    c.content("content intact", c.p("page.bin"))


# --- access ------------------------------------------------------------------------------------

@sc()
def t_access_root(c):
    for n in ("small.txt", "exec.sh", "readonly.txt", "dir", "link", "dangling", "nope"):
        for m, mn in ((os.F_OK, "F"), (os.R_OK, "R"), (os.W_OK, "W"), (os.X_OK, "X")):
            c.val("access %s %s" % (n, mn), os.access(c.p(n), m))
    c.do("chmod small 0", os.chmod, c.p("small.txt"), 0)
    c.val("root R on mode 0", os.access(c.p("small.txt"), os.R_OK))
    c.val("root X on mode 0", os.access(c.p("small.txt"), os.X_OK))


@sc()
def t_access_nobody(c):
    def body(d):
        out = []
        for n in ("small.txt", "exec.sh", "readonly.txt", "dir", "nope"):
            for m, mn in ((os.R_OK, "R"), (os.W_OK, "W"), (os.X_OK, "X")):
                out.append("%s:%s=%s" % (n, mn, os.access(n, m, dir_fd=d)))
        return " ".join(out)
    c.as_nobody("access as 65534", body)


@sc()
def t_perm_nobody_write_denied(c):
    def body(d):
        out = []
        for what, fn in (
                ("open readonly.txt w", lambda: os.open("readonly.txt", WR, dir_fd=d)),
                ("open small.txt w", lambda: os.open("small.txt", WR, dir_fd=d)),
                ("open small.txt r", lambda: os.open("small.txt", RD, dir_fd=d)),
                ("create in root-owned dir", lambda: os.open("new", WR | CR, 0o644, dir_fd=d)),
                ("unlink in root-owned dir", lambda: os.unlink("small.txt", dir_fd=d)),
                ("mkdir", lambda: os.mkdir("nd", dir_fd=d)),
                ("chmod not owner", lambda: os.chmod("small.txt", 0o777, dir_fd=d)),
                ("utime now not owner", lambda: os.utime("small.txt", dir_fd=d)),
                ("rename", lambda: os.rename("small.txt", "x", src_dir_fd=d, dst_dir_fd=d))):
            try:
                r = fn()
                if isinstance(r, int):
                    os.close(r)
                out.append(what + ":ok")
            except OSError as e:
                out.append(what + ":" + errname(e))
        return " ".join(out)
    c.as_nobody("as 65534", body)
    c.exists("small.txt still there", c.p("small.txt"))


@sc()
def t_perm_nobody_owned_dir(c):
    c.do("chown dir2 to 65534", os.chown, c.p("dir2"), 65534, 65534)
    c.do("chmod dir 0700", os.chmod, c.p("dir"), 0o700)

    def body(d):
        out = []
        for what, fn in (
                ("create in own dir", lambda: os.close(os.open("dir2/n", WR | CR, 0o600,
                                                               dir_fd=d))),
                ("stat own file", lambda: nstat(os.stat("dir2/n", dir_fd=d))),
                ("unlink root's file in own dir", lambda: os.unlink("dir2/x.txt", dir_fd=d)),
                ("list 0700 root dir", lambda: os.listdir(os.open("dir", RD, dir_fd=d))),
                ("stat in 0700 root dir", lambda: os.stat("dir/a.txt", dir_fd=d)),
                ("chmod own file", lambda: os.chmod("dir2/n", 0o644, dir_fd=d))):
            try:
                r = fn()
                out.append("%s:ok %s" % (what, r if isinstance(r, str) else ""))
            except OSError as e:
                out.append(what + ":" + errname(e))
        return " | ".join(out)
    c.as_nobody("as 65534", body)
    c.ls("dir2", c.p("dir2"))


@sc()
def t_perm_sticky_dir(c):
    c.do("chmod dir2 1777", os.chmod, c.p("dir2"), 0o1777)

    def body(d):
        out = []
        for what, fn in (("unlink root's file in sticky dir",
                          lambda: os.unlink("dir2/x.txt", dir_fd=d)),
                         ("create own", lambda: os.close(os.open("dir2/mine", WR | CR, 0o644,
                                                                 dir_fd=d))),
                         ("unlink own", lambda: os.unlink("dir2/mine", dir_fd=d))):
            try:
                fn()
                out.append(what + ":ok")
            except OSError as e:
                out.append(what + ":" + errname(e))
        return " ".join(out)
    c.as_nobody("as 65534", body)


# --- statvfs -----------------------------------------------------------------------------------

@sc()
def t_statvfs_sanity(c):
    def check(v):
        return ("bsize>0=%s frsize>0=%s blocks>0=%s bfree<=blocks=%s bavail<=bfree=%s "
                "files>0=%s ffree<=files=%s namemax=%d" % (
                    v.f_bsize > 0, v.f_frsize > 0, v.f_blocks > 0, v.f_bfree <= v.f_blocks,
                    v.f_bavail <= v.f_bfree, v.f_files > 0, v.f_ffree <= v.f_files,
                    v.f_namemax))
    c.do("statvfs root", os.statvfs, c.root, show=check)
    fd = c.open("open", c.p("small.txt"), RD)
    c.do("fstatvfs", os.fstatvfs, fd, show=check)
    c.do("statvfs missing", os.statvfs, c.p("nope"))


# --- directories -------------------------------------------------------------------------------

@sc()
def t_listdir_seed(c):
    c.ls("root", c.root)
    c.ls("dir", c.p("dir"))
    c.ls("dir/sub", c.p("dir", "sub"))
    c.ls("emptydir", c.p("emptydir"))
    c.do("listdir on file", os.listdir, c.p("small.txt"))
    c.do("listdir missing", os.listdir, c.p("nope"))


@sc()
def t_listdir_after_mixed_ops(c):
    os.unlink(c.p("small.txt"))
    os.rename(c.p("medium.bin"), c.p("renamed.bin"))
    os.mkdir(c.p("newdir"))
    open(c.p("newfile"), "w").close()
    os.rmdir(c.p("emptydir"))
    os.symlink("x", c.p("newlink"))
    os.unlink(c.p("hard2"))
    os.rename(c.p("dir2"), c.p("dir", "dir2"))
    open(c.p("small.txt"), "w").close()
    os.unlink(c.p("newfile"))
    c.ls("root", c.root)
    c.ls("dir", c.p("dir"))
    c.ls("dir/dir2", c.p("dir", "dir2"))


@sc()
def t_scandir_types_and_inodes(c):
    def dtypes():
        out = []
        for e in sorted(os.scandir(c.root), key=lambda e: e.name):
            kind = ("lnk" if e.is_symlink() else "dir" if e.is_dir(follow_symlinks=False)
                    else "reg" if e.is_file(follow_symlinks=False) else "other")
            out.append("%s:%s" % (e.name, kind))
        return out
    c.do("d_type of seed", dtypes, show=lambda r: r)

    def inos_match(path):
        bad = []
        for e in os.scandir(path):
            if e.inode() != os.lstat(e.path).st_ino:
                bad.append(e.name)
        return sorted(bad)
    c.do("d_ino == st_ino (lower)", inos_match, c.root, show=lambda r: r)
    open(c.p("new"), "w").close()
    os.mkdir(c.p("newd"))
    with open(c.p("small.txt"), "a") as f:
        f.write("x")
    os.rename(c.p("page.bin"), c.p("page2.bin"))
    c.do("d_ino == st_ino (after changes)", inos_match, c.root, show=lambda r: r)
    c.do("d_ino == st_ino (dir)", inos_match, c.p("dir"), show=lambda r: r)


def _many(n, prefix="f"):
    def extra(d):
        os.makedirs(os.path.join(d, "many"))
        for i in range(n):
            open(os.path.join(d, "many", "%s%04d" % (prefix, i)), "w").close()
    return extra


@sc(extra=_many(300))
def t_readdir_while_modifying(c):
    d = c.p("many")
    pre = set(os.listdir(d))

    def walk():
        seen = []
        deleted = set()
        it = os.scandir(d)
        try:
            for i, e in enumerate(it):
                seen.append(e.name)
                if i == 5:
                    for j in range(20):
                        open(os.path.join(d, b"new%02d" % j), "w").close()
                    for name in sorted(pre)[150:170]:
                        os.unlink(os.path.join(d, name))
                        deleted.add(name)
                    if e.name not in deleted:
                        os.unlink(os.path.join(d, e.name))
                        deleted.add(e.name)
        finally:
            it.close()
        kept = pre - deleted
        got = set(seen)
        return ("all kept entries seen=%s no duplicates=%s nothing invented=%s" % (
            kept <= got, len(seen) == len(got),
            got <= pre | {b"new%02d" % j for j in range(20)}))
    c.do("scandir with concurrent changes", walk, show=lambda r: r)
    c.do("final listing", lambda: len(os.listdir(d)), show=lambda r: r)
    c.ls("final names", d)


@sc()
def t_readdir_new_dir_while_modifying(c):
    d = c.p("n")
    os.mkdir(d)
    for i in range(300):
        open(os.path.join(d, b"f%04d" % i), "w").close()
    pre = set(os.listdir(d))

    def walk():
        seen = []
        it = os.scandir(d)
        try:
            for i, e in enumerate(it):
                seen.append(e.name)
                if i == 0:
                    for name in sorted(pre)[200:250]:
                        os.unlink(os.path.join(d, name))
                    for j in range(30):
                        open(os.path.join(d, b"g%02d" % j), "w").close()
        finally:
            it.close()
        kept = pre - set(sorted(pre)[200:250])
        return "kept seen=%s no dups=%s" % (kept <= set(seen), len(seen) == len(set(seen)))
    c.do("scandir", walk, show=lambda r: r)
    c.do("final count", lambda: len(os.listdir(d)), show=lambda r: r)


@sc()
def t_rewinddir_sees_changes(c):
    fd = c.open("open dir", c.p("dir2"), RD | os.O_DIRECTORY)

    def listfd():
        os.lseek(fd, 0, os.SEEK_SET)
        return sorted(os.listdir(fd))
    c.do("list via fd", listfd, show=lambda r: r)
    open(c.p("dir2", "new"), "w").close()
    os.unlink(c.p("dir2", "x.txt"))
    c.do("list via fd after rewind", listfd, show=lambda r: r)


@sc()
def t_many_entries(c):
    d = c.p("many")
    c.do("mkdir", os.mkdir, d)

    def mk():
        for i in range(2000):
            os.close(os.open(os.path.join(d, b"entry-%05d" % i), WR | CR | EX, 0o644))
    c.do("create 2000", mk)
    c.do("listdir count", lambda: len(os.listdir(d)), show=lambda r: r)
    c.do("names complete", lambda: sorted(os.listdir(d)) == sorted(b"entry-%05d" % i
                                                                 for i in range(2000)),
         show=lambda r: r)
    c.stat("stat one", os.path.join(d, b"entry-01234"))

    def rm_half():
        for i in range(0, 2000, 2):
            os.unlink(os.path.join(d, b"entry-%05d" % i))
    c.do("unlink 1000", rm_half)
    c.do("count after", lambda: len(os.listdir(d)), show=lambda r: r)


@sc(extra=_many(1000, "lower"))
def t_many_entries_lower(c):
    d = c.p("many")
    c.do("lower count", lambda: len(os.listdir(d)), show=lambda r: r)

    def mix():
        for i in range(0, 1000, 3):
            os.unlink(os.path.join(d, b"lower%04d" % i))
        for i in range(500):
            open(os.path.join(d, b"upper%04d" % i), "w").close()
    c.do("delete 334 lower, add 500", mix)
    c.do("count", lambda: len(os.listdir(d)), show=lambda r: r)
    c.do("names", lambda: hashlib.sha1(b"\n".join(sorted(os.listdir(d)))).hexdigest()[:12],
         show=lambda r: r)


@sc()
def t_dir_fsync_and_readdir_dotdot(c):
    fd = c.open("open dir", c.p("dir"), RD | os.O_DIRECTORY)
    c.do("fsync dir", os.fsync, fd)
    c.do("stat dir/..", lambda: os.path.samestat(os.stat(c.p("dir", "..")), os.stat(c.root)),
         show=lambda r: r)
    c.do("stat dir/sub/../a.txt", os.stat, c.p("dir", "sub", "..", "a.txt"), show=nstat)


@sc()
def t_chdir_relative_ops(c):
    old = os.open(".", os.O_PATH)
    try:
        c.do("chdir dir", os.chdir, c.p("dir"))
        c.content("relative read", b"a.txt")
        c.put("relative create", b"sub/rel", b"rel")
        c.do("relative rename", os.rename, b"sub/rel", b"rel2")
        c.ls("listing .", b".")
        c.do("chdir ..", os.chdir, b"..")
        c.ls("listing dir", b"dir")
    finally:
        os.fchdir(old)
        os.close(old)


@sc()
def t_rmdir_cwd(c):
    old = os.open(".", os.O_PATH)
    try:
        c.do("chdir emptydir", os.chdir, c.p("emptydir"))
        c.do("rmdir cwd", os.rmdir, c.p("emptydir"))
        c.do("listdir .", os.listdir, b".")
        c.open("create in removed cwd", b"f", WR | CR)
        c.do("stat .", os.stat, b".", show=nstat)
    finally:
        os.fchdir(old)
        os.close(old)


# --- special files -----------------------------------------------------------------------------

@sc()
def t_mkfifo(c):
    c.do("mkfifo", os.mkfifo, c.p("fifo"), 0o640)
    c.stat("stat", c.p("fifo"))
    r = c.open("open read nonblock", c.p("fifo"), RD | os.O_NONBLOCK)
    w = c.open("open write nonblock", c.p("fifo"), WR | os.O_NONBLOCK)
    c.write("write", w, b"through the pipe")
    c.read("read", r, 100)
    c.do("mkfifo existing", os.mkfifo, c.p("fifo"))
    c.do("mkfifo over lower file", os.mkfifo, c.p("small.txt"))
    c.do("mknod S_IFIFO", os.mknod, c.p("fifo2"), stat.S_IFIFO | 0o600)
    c.stat("fifo2", c.p("fifo2"))
    c.open("open write nonblock without reader", c.p("fifo2"), WR | os.O_NONBLOCK)


@sc()
def t_fifo_rename_and_chmod(c):
    c.do("mkfifo", os.mkfifo, c.p("dir", "fifo"))
    c.do("rename fifo", os.rename, c.p("dir", "fifo"), c.p("dir2", "fifo"))
    c.do("chmod fifo", os.chmod, c.p("dir2", "fifo"), 0o600)
    c.stat("stat", c.p("dir2", "fifo"))
    c.do("link fifo", os.link, c.p("dir2", "fifo"), c.p("fifo-link"))
    c.stat("nlink", c.p("fifo-link"))


@sc()
def t_socket_bind_connect(c):
    old = os.open(".", os.O_PATH)
    srv = cl = conn = None
    try:
        os.chdir(c.root)
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.do("bind", srv.bind, b"sock")
        c.do("listen", srv.listen, 1)
        c.stat("stat socket", c.p("sock"))
        cl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.do("connect", cl.connect, b"sock")
        conn = c.do("accept", lambda: srv.accept()[0])
        c.do("send", cl.sendall, b"ping")
        c.do("recv", conn.recv, 10, show=lambda r: r)
        s2 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.do("bind existing", s2.bind, b"sock")
        s2.close()
        s3 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.do("connect to regular file", s3.connect, b"small.txt")
        s3.close()
        s4 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.do("connect to missing", s4.connect, b"nope")
        s4.close()
        c.do("rename socket", os.rename, b"sock", b"dir/sock2")
        s5 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.do("connect via new name", s5.connect, b"dir/sock2")
        s5.close()
        c.do("unlink socket", os.unlink, b"dir/sock2")
    finally:
        for s in (conn, cl, srv):
            if s not in (None, True):
                s.close()
        os.fchdir(old)
        os.close(old)


@sc()
def t_socket_dgram(c):
    old = os.open(".", os.O_PATH)
    a = bb = None
    try:
        os.chdir(c.p("dir"))
        a = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        bb = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        c.do("bind a", a.bind, b"a.sock")
        c.do("bind b", bb.bind, b"b.sock")
        c.do("sendto a", bb.sendto, b"dgram", b"a.sock")
        c.do("recvfrom", lambda: a.recvfrom(100)[0], show=lambda r: r)
    finally:
        for s in (a, bb):
            if s is not None:
                s.close()
        os.fchdir(old)
        os.close(old)


@sc(xfail="device nodes are refused in a workspace (EPERM), by design")
def t_mknod_char_device(c):
    c.do("mknod char 1:3", os.mknod, c.p("null"), stat.S_IFCHR | 0o666, os.makedev(1, 3))
    c.stat("stat", c.p("null"))


@sc(xfail="device nodes are refused in a workspace (EPERM), by design")
def t_mknod_block_device(c):
    c.do("mknod block 7:0", os.mknod, c.p("loop"), stat.S_IFBLK | 0o600, os.makedev(7, 0))
    c.stat("stat", c.p("loop"))


@sc()
def t_mknod_regular_and_errors(c):
    c.do("mknod S_IFREG", os.mknod, c.p("reg"), stat.S_IFREG | 0o640)
    c.stat("stat", c.p("reg"))
    c.do("mknod existing", os.mknod, c.p("small.txt"), stat.S_IFREG | 0o640)
    c.do("mknod type 0 (regular)", os.mknod, c.p("reg0"), 0o600)
    c.stat("stat reg0", c.p("reg0"))
    c.do("mknod S_IFSOCK", os.mknod, c.p("sock"), stat.S_IFSOCK | 0o600)
    c.stat("stat sock", c.p("sock"))
    c.do("mknod bad type", os.mknod, c.p("bad"), 0o170000 | 0o600)


# --- xattrs ------------------------------------------------------------------------------------

@sc()
def t_xattr_user_new_file(c):
    c.put("create", c.p("f"), b"x")
    c.do("set user.a", os.setxattr, c.p("f"), b"user.a", b"1")
    c.do("set user.b", os.setxattr, c.p("f"), b"user.b", b"")
    c.do("get user.a", os.getxattr, c.p("f"), b"user.a", show=lambda r: r)
    c.do("get user.b (empty)", os.getxattr, c.p("f"), b"user.b", show=lambda r: r)
    c.do("list", os.listxattr, c.p("f"), show=sorted)
    c.do("remove user.a", os.removexattr, c.p("f"), b"user.a")
    c.do("list after remove", os.listxattr, c.p("f"), show=sorted)
    c.do("get removed", os.getxattr, c.p("f"), b"user.a")
    c.do("remove missing", os.removexattr, c.p("f"), b"user.zzz")


@sc()
def t_xattr_user_lower_copyup(c):
    ino = c.ino(c.p("small.txt"))
    before = c.snap(c.p("small.txt"))
    c.do("set on lower file", os.setxattr, c.p("small.txt"), b"user.k", b"v")
    c.do("get", os.getxattr, c.p("small.txt"), b"user.k", show=lambda r: r)
    c.content("content intact", c.p("small.txt"))
    c.same_ino("ino", ino, c.ino(c.p("small.txt")))
    c.times("mtime same, ctime advanced", c.p("small.txt"), before)
    c.stat("stat", c.p("small.txt"))


@sc()
def t_xattr_seeded_lower(c):
    c.do("list seeded", os.listxattr, c.p("xattr.txt"), show=sorted)
    c.do("get seeded", os.getxattr, c.p("xattr.txt"), b"user.seed", show=lambda r: r)
    c.put("write (copy-up)", c.p("xattr.txt"), b"more", WR | AP)
    c.do("kept after copy-up", os.getxattr, c.p("xattr.txt"), b"user.seed", show=lambda r: r)
    c.do("remove seeded", os.removexattr, c.p("xattr.txt"), b"user.seed")
    c.do("list", os.listxattr, c.p("xattr.txt"), show=sorted)


@sc()
def t_xattr_flags(c):
    c.do("XATTR_REPLACE missing", os.setxattr, c.p("small.txt"), b"user.a", b"1",
         os.XATTR_REPLACE)
    c.do("XATTR_CREATE new", os.setxattr, c.p("small.txt"), b"user.a", b"1", os.XATTR_CREATE)
    c.do("XATTR_CREATE existing", os.setxattr, c.p("small.txt"), b"user.a", b"2",
         os.XATTR_CREATE)
    c.do("XATTR_REPLACE existing", os.setxattr, c.p("small.txt"), b"user.a", b"3",
         os.XATTR_REPLACE)
    c.do("get", os.getxattr, c.p("small.txt"), b"user.a", show=lambda r: r)
    c.do("get missing", os.getxattr, c.p("medium.bin"), b"user.none")
    c.do("get on missing file", os.getxattr, c.p("nope"), b"user.a")


@sc()
def t_xattr_large_value(c):
    v = _pattern(4000, b"xv")
    c.do("set 4000-byte value", os.setxattr, c.p("page.bin"), b"user.big", v)
    c.do("get", os.getxattr, c.p("page.bin"), b"user.big", show=summ)
    c.do("set 70000-byte value", os.setxattr, c.p("page.bin"), b"user.huge", b"x" * 70000)
    c.do("name of 255 bytes", os.setxattr, c.p("medium.bin"), b"user." + b"n" * 250, b"1")
    c.do("list", os.listxattr, c.p("medium.bin"), show=lambda r: [len(x) for x in r])
    c.do("name of 256 bytes", os.setxattr, c.p("medium.bin"), b"user." + b"n" * 251, b"1")
    buf = ctypes.create_string_buffer(4)
    f = _libc.getxattr
    f.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
    f.restype = ctypes.c_ssize_t
    rc = f(c.p("page.bin"), b"user.big", buf, 4)
    c.val("getxattr with small buffer", rc if rc >= 0 else errno.errorcode[ctypes.get_errno()])
    c.val("getxattr size query", f(c.p("page.bin"), b"user.big", None, 0))


@sc()
def t_xattr_on_dir_and_symlink(c):
    c.do("set on lower dir", os.setxattr, c.p("dir"), b"user.d", b"dv")
    c.do("get on dir", os.getxattr, c.p("dir"), b"user.d", show=lambda r: r)
    c.ls("dir contents intact", c.p("dir"))
    c.do("set on symlink (nofollow)", os.setxattr, c.p("link"), b"user.l", b"lv",
         follow_symlinks=False)
    c.do("list symlink (nofollow)", os.listxattr, c.p("link"), follow_symlinks=False,
         show=sorted)
    c.do("set through symlink", os.setxattr, c.p("link"), b"user.t", b"tv")
    c.do("get on target", os.getxattr, c.p("small.txt"), b"user.t", show=lambda r: r)


@sc()
def t_xattr_fd_ops(c):
    fd = c.open("open lower O_RDONLY", c.p("medium.bin"), RD)
    c.do("fsetxattr on ro fd", os.setxattr, fd, b"user.fd", b"1")
    c.do("fgetxattr", os.getxattr, fd, b"user.fd", show=lambda r: r)
    c.do("flistxattr", os.listxattr, fd, show=sorted)
    c.do("get via path", os.getxattr, c.p("medium.bin"), b"user.fd", show=lambda r: r)


@sc()
def t_xattr_system_and_unknown(c):
    c.do("get security.selinux", os.getxattr, c.p("small.txt"), b"security.selinux")
    c.do("get system.posix_acl_access", os.getxattr, c.p("small.txt"),
         b"system.posix_acl_access")
    c.do("set unknown namespace", os.setxattr, c.p("small.txt"), b"bogus.x", b"1")
    c.do("set no namespace", os.setxattr, c.p("small.txt"), b"plain", b"1")


@sc(xfail="only user.* xattrs are kept; trusted.* is refused with EOPNOTSUPP, by design")
def t_xattr_trusted(c):
    c.do("set trusted.x", os.setxattr, c.p("small.txt"), b"trusted.x", b"1")
    c.do("get trusted.x", os.getxattr, c.p("small.txt"), b"trusted.x", show=lambda r: r)
    c.do("list", os.listxattr, c.p("small.txt"), show=sorted)


@sc(xfail="only user.* xattrs are kept; security.* is refused with EOPNOTSUPP, by design")
def t_xattr_security(c):
    c.do("set security.x", os.setxattr, c.p("small.txt"), b"security.x", b"1")
    c.do("get security.x", os.getxattr, c.p("small.txt"), b"security.x", show=lambda r: r)


@sc(xfail="POSIX ACLs are system.* xattrs, not kept in a workspace, by design")
def t_xattr_posix_acl(c):
    # version 2; ACL_USER_OBJ rw-, ACL_USER 65534 r--, ACL_GROUP_OBJ r--, ACL_MASK r--,
    # ACL_OTHER r--
    import struct
    acl = struct.pack("<I", 2)
    for tag, perm, uid in ((1, 6, 0xFFFFFFFF), (2, 4, 65534), (4, 4, 0xFFFFFFFF),
                           (0x10, 4, 0xFFFFFFFF), (0x20, 4, 0xFFFFFFFF)):
        acl += struct.pack("<HHI", tag, perm, uid)
    c.do("set system.posix_acl_access", os.setxattr, c.p("small.txt"),
         b"system.posix_acl_access", acl)
    c.do("get", os.getxattr, c.p("small.txt"), b"system.posix_acl_access", show=len)


# --- fsync / fallocate / sparse ----------------------------------------------------------------

@sc()
def t_fsync_fdatasync(c):
    fd = c.open("create", c.p("f"), RW | CR)
    c.write("write", fd, b"data")
    c.do("fsync", os.fsync, fd)
    c.do("fdatasync", os.fdatasync, fd)
    r = c.open("open lower ro", c.p("small.txt"), RD)
    c.do("fsync ro lower fd", os.fsync, r)
    c.do("fdatasync ro lower fd", os.fdatasync, r)
    c.do("sync_file_range", lambda: os.sync())


@sc()
def t_posix_fallocate(c):
    fd = c.open("create", c.p("f"), RW | CR)
    c.do("posix_fallocate 0..1MiB", os.posix_fallocate, fd, 0, 1 << 20)
    c.fstat("size grown", fd)
    c.pread("zeros", fd, 8, 500000)
    c.val("blocks allocated", os.fstat(fd).st_blocks * 512 >= 1 << 20)
    c.do("posix_fallocate inside", os.posix_fallocate, fd, 100, 100)
    c.fstat("size same", fd)


@sc()
def t_posix_fallocate_lower(c):
    fd = c.open("open lower rw", c.p("small.txt"), RW)
    c.do("posix_fallocate to 64k", os.posix_fallocate, fd, 0, 65536)
    c.stat("size", c.p("small.txt"))
    c.pread("original data", fd, 12, 0)
    r = c.open("open ro", c.p("medium.bin"), RD)
    c.do("posix_fallocate on ro fd", os.posix_fallocate, r, 0, 100000)


@sc()
def t_fallocate_modes(c):
    fd = c.open("open big rw", c.p("big.bin"), RW)
    c.do("KEEP_SIZE beyond EOF", fallocate, fd, FALLOC_FL_KEEP_SIZE, 300001, 1 << 20)
    c.fstat("size unchanged", fd)
    c.do("PUNCH_HOLE", fallocate, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8192, 16384)
    c.pread("punched reads zeros", fd, 16, 10000)
    c.pread("data after hole", fd, 16, 24576)
    c.do("SEEK_HOLE", os.lseek, fd, 0, SEEK_HOLE, show=lambda r: r)
    c.do("PUNCH_HOLE without KEEP_SIZE", fallocate, fd, FALLOC_FL_PUNCH_HOLE, 0, 4096)
    c.do("fallocate len 0", fallocate, fd, 0, 0, 0)
    c.content("content", c.p("big.bin"))


@sc()
def t_seek_data_hole_new_sparse(c):
    fd = c.open("create", c.p("sp"), RW | CR)
    c.pwrite("write at 0", fd, b"a" * 4096, 0)
    c.pwrite("write at 1 MiB", fd, b"b" * 4096, 1 << 20)
    c.do("ftruncate 4 MiB", os.ftruncate, fd, 4 << 20)
    for off in (0, 100, 4096, 8192, 1 << 20, (1 << 20) + 4095, (1 << 20) + 4096, (4 << 20) - 1):
        c.do("SEEK_DATA %d" % off, os.lseek, fd, off, SEEK_DATA, show=lambda r: r)
        c.do("SEEK_HOLE %d" % off, os.lseek, fd, off, SEEK_HOLE, show=lambda r: r)
    c.do("SEEK_DATA at EOF", os.lseek, fd, 4 << 20, SEEK_DATA)
    c.do("SEEK_HOLE beyond EOF", os.lseek, fd, 5 << 20, SEEK_HOLE)
    c.val("sparse (allocated < size)", os.fstat(fd).st_blocks * 512 < 4 << 20)


@sc()
def t_seek_data_hole_lower_sparse(c):
    fd = c.open("open lower sparse", c.p("sparse.bin"), RD)
    for off in (0, 4096, 5000, 512 << 10, (512 << 10) + 4096, SPARSE_SIZE - 1):
        c.do("SEEK_DATA %d" % off, os.lseek, fd, off, SEEK_DATA, show=lambda r: r)
        c.do("SEEK_HOLE %d" % off, os.lseek, fd, off, SEEK_HOLE, show=lambda r: r)
    c.do("SEEK_DATA past EOF", os.lseek, fd, SPARSE_SIZE + 1, SEEK_DATA)
    c.stat("stat", c.p("sparse.bin"))
    c.val("lower sparse", c.raw(c.p("sparse.bin")).st_blocks * 512 < SPARSE_SIZE)


@sc()
def t_sparse_lower_copyup_keeps_holes(c):
    fd = c.open("open rw (copy-up)", c.p("sparse.bin"), RW)
    c.pwrite("write 1 byte", fd, b"Z", 100)
    c.do("SEEK_HOLE 0", os.lseek, fd, 0, SEEK_HOLE, show=lambda r: r)
    c.do("SEEK_DATA 4096", os.lseek, fd, 4096, SEEK_DATA, show=lambda r: r)
    c.val("still sparse", os.fstat(fd).st_blocks * 512 < SPARSE_SIZE)
    c.content("content", c.p("sparse.bin"))


@sc()
def t_seek_misc(c):
    fd = c.open("open small", c.p("small.txt"), RD)
    c.do("SEEK_END", os.lseek, fd, 0, os.SEEK_END, show=lambda r: r)
    c.do("SEEK_CUR +5", os.lseek, fd, 5, os.SEEK_CUR, show=lambda r: r)
    c.read("read beyond EOF", fd, 5)
    c.do("SEEK_SET huge", os.lseek, fd, 1 << 40, os.SEEK_SET, show=lambda r: r)
    c.do("bad whence", os.lseek, fd, 0, 99)
    e = c.open("open empty", c.p("empty"), RD)
    c.do("SEEK_DATA on empty file", os.lseek, e, 0, SEEK_DATA)


# --- mmap --------------------------------------------------------------------------------------

@sc()
def t_mmap_shared_write_then_read(c):
    fd = c.open("open lower rw", c.p("medium.bin"), RW)
    m = c.do("mmap shared rw", mmap.mmap, fd, 0, mmap.MAP_SHARED,
             mmap.PROT_READ | mmap.PROT_WRITE)
    if m not in (None, True):
        m[100:105] = b"MMAPW"
        m[69990:70000] = b"0123456789"
        c.do("msync", m.flush)
        c.pread("read() sees mmap write", fd, 10, 98)
        c.pread("read() sees write at end", fd, 10, 69990)
        m.close()
    c.content("content via path", c.p("medium.bin"))
    c.stat("stat", c.p("medium.bin"))


@sc()
def t_mmap_shared_without_msync(c):
    fd = c.open("create", c.p("f"), RW | CR)
    c.do("ftruncate 8192", os.ftruncate, fd, 8192)
    m = c.do("mmap", mmap.mmap, fd, 8192, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    if m not in (None, True):
        m[0:5] = b"hello"
        c.pread("read() without msync", fd, 5, 0)
        m.close()
    c.content("after munmap", c.p("f"))


@sc()
def t_mmap_write_then_mmap_read(c):
    fd = c.open("open lower rw", c.p("page.bin"), RW)
    m = c.do("mmap", mmap.mmap, fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    c.pwrite("pwrite", fd, b"WRITTEN", 10)
    if m not in (None, True):
        c.val("mmap sees write()", bytes(m[10:17]))
        m.close()


@sc()
def t_mmap_private(c):
    fd = c.open("open lower ro", c.p("medium.bin"), RD)
    m = c.do("mmap private", mmap.mmap, fd, 0, mmap.MAP_PRIVATE,
             mmap.PROT_READ | mmap.PROT_WRITE)
    if m not in (None, True):
        c.val("mapped data", summ(m[:]))
        m[0:4] = b"PRIV"
        c.val("private change visible in map", bytes(m[0:4]))
        m.close()
    c.content("file unchanged", c.p("medium.bin"))


@sc()
def t_mmap_ro_fd_shared_write(c):
    fd = c.open("open ro", c.p("medium.bin"), RD)
    c.do("mmap shared rw on ro fd", mmap.mmap, fd, 0, mmap.MAP_SHARED,
         mmap.PROT_READ | mmap.PROT_WRITE)
    m = c.do("mmap shared ro", mmap.mmap, fd, 0, mmap.MAP_SHARED, mmap.PROT_READ)
    if m not in (None, True):
        c.val("data", summ(m[:]))
        m.close()


@sc()
def t_mmap_lower_ro_then_copyup(c):
    r = c.open("open lower ro", c.p("medium.bin"), RD)
    m = c.do("mmap ro shared", mmap.mmap, r, 0, mmap.MAP_SHARED, mmap.PROT_READ)
    w = c.open("open rw (copy-up)", c.p("medium.bin"), RW)
    c.pwrite("write via rw fd", w, b"NEWDATA!", 0)
    if m not in (None, True):
        c.val("ro mapping of lower sees write", bytes(m[0:8]))
        m.close()


@sc()
def t_mmap_extend_sigbus_free(c):
    fd = c.open("create", c.p("f"), RW | CR)
    c.do("ftruncate 100", os.ftruncate, fd, 100)
    m = c.do("mmap 100", mmap.mmap, fd, 100, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    if m not in (None, True):
        c.do("resize to 10000", m.resize, 10000)
        m[9990:10000] = b"X" * 10
        m.flush()
        m.close()
    c.stat("size", c.p("f"))
    c.content("content", c.p("f"))


# --- deleted while open ------------------------------------------------------------------------

@sc()
def t_unlink_open_lower_file(c):
    fd = c.open("open lower ro", c.p("medium.bin"), RD)
    c.do("unlink", os.unlink, c.p("medium.bin"))
    c.pread("read via fd", fd, 16, 1000)
    c.fstat("fstat via fd", fd)
    c.exists("name gone", c.p("medium.bin"))


@sc()
def t_unlink_open_rw_file(c):
    fd = c.open("open lower rw", c.p("small.txt"), RW)
    c.do("unlink", os.unlink, c.p("small.txt"))
    c.pwrite("write after unlink", fd, b"ghost", 0)
    c.pread("read back", fd, 20, 0)
    c.fstat("fstat", fd)
    c.do("ftruncate after unlink", os.ftruncate, fd, 3)
    c.fstat("fstat after truncate", fd)
    c.do("fchmod after unlink", os.fchmod, fd, 0o600)
    c.fstat("fstat after fchmod", fd)


@sc()
def t_unlink_open_new_file(c):
    fd = c.open("create", c.p("n"), RW | CR)
    c.write("write", fd, b"before")
    c.do("unlink", os.unlink, c.p("n"))
    c.write("write after", fd, b" after")
    c.pread("read", fd, 100, 0)
    c.fstat("fstat", fd)
    c.do("fsetxattr after unlink", os.setxattr, fd, b"user.x", b"1")
    c.do("fgetxattr after unlink", os.getxattr, fd, b"user.x", show=lambda r: r)


@sc()
def t_unlink_open_then_recreate(c):
    fd = c.open("open lower", c.p("small.txt"), RD)
    ino = c.ino(c.p("small.txt"))
    c.do("unlink", os.unlink, c.p("small.txt"))
    c.put("recreate", c.p("small.txt"), b"brand new\n", WR | CR | EX)
    c.pread("old fd reads old", fd, 100, 0)
    c.content("name reads new", c.p("small.txt"))
    c.fstat("old fstat", fd)
    c.stat("new stat", c.p("small.txt"))
    c.val("inos differ", ino != c.ino(c.p("small.txt")))
    fd2 = c.open("open new", c.p("small.txt"), RD)
    c.val("fstat inos differ", fd2 is not None and fd is not None and
          os.fstat(fd).st_ino != os.fstat(fd2).st_ino)


@sc()
def t_rmdir_open_dir(c):
    fd = c.open("open emptydir", c.p("emptydir"), RD | os.O_DIRECTORY)
    c.do("rmdir", os.rmdir, c.p("emptydir"))
    c.fstat("fstat", fd)
    c.do("listdir via fd", lambda: os.listdir(fd), show=lambda r: r)
    c.do("create via dead dir fd", lambda: os.close(os.open("x", WR | CR, 0o644, dir_fd=fd)))
    c.do("mkdir same name", os.mkdir, c.p("emptydir"))
    c.ls("new dir", c.p("emptydir"))


@sc()
def t_rename_open_dir(c):
    fd = c.open("open dir", c.p("dir"), RD | os.O_DIRECTORY)
    c.do("rename dir", os.rename, c.p("dir"), c.p("moved"))
    c.do("openat via old fd", lambda: os.close(os.open("a.txt", RD, dir_fd=fd)))
    c.do("create via old fd", lambda: os.close(os.open("n", WR | CR, 0o644, dir_fd=fd)))
    c.ls("moved", c.p("moved"))


@sc()
def t_open_fd_survives_parent_rename(c):
    fd = c.open("open dir/sub/b.txt rw", c.p("dir", "sub", "b.txt"), RW)
    c.do("rename dir", os.rename, c.p("dir"), c.p("d2"))
    c.pwrite("write via fd", fd, b"BB", 0)
    c.content("via new path", c.p("d2", "sub", "b.txt"))


# --- names ------------------------------------------------------------------------------------

@sc()
def t_long_names(c):
    n255, n256 = b"a" * 255, b"b" * 256
    c.put("create 255", c.p(n255), b"ok", WR | CR | EX)
    c.stat("stat 255", c.p(n255))
    c.open("create 256", c.p(n256), WR | CR)
    c.stat("stat 256", c.p(n256))
    c.do("mkdir 255", os.mkdir, c.p(b"d" * 255))
    c.do("mkdir 256", os.mkdir, c.p(b"d" * 256))
    c.do("rename to 256", os.rename, c.p(n255), c.p(n256))
    c.do("symlink 256", os.symlink, "x", c.p(n256))
    c.do("link 256", os.link, c.p("small.txt"), c.p(n256))
    c.do("unlink 256", os.unlink, c.p(n256))
    c.do("create 1100", os.open, c.p(b"c" * 1100), WR | CR)
    c.ls("listing", c.root)


@sc()
def t_weird_names(c):
    names = [b"new\nline", b"bad\xff\xfe", b" space ", b"-dash", b"tab\tx", b"\xe2\x98\x83",
             b"back\\slash", b"star*?", b"..."]
    for n in names:
        c.put("create %r" % n, c.p(n), n)
    c.ls("listing", c.root)
    for n in names:
        c.content("read %r" % n, c.p(n))
    c.do("rename newline name", os.rename, c.p(b"new\nline"), c.p(b"renamed\n"))
    c.do("mkdir non-utf8", os.mkdir, c.p(b"d\xff"))
    c.put("file in non-utf8 dir", c.p(b"d\xff", b"f\n"), b"x")
    c.ls("non-utf8 dir", c.p(b"d\xff"))
    c.do("unlink non-utf8", os.unlink, c.p(b"bad\xff\xfe"))
    c.ls("listing after", c.root)


def _weird_lower(d):
    for n in (b"lower\nnl", b"lower\xff", b"lower \xe2\x98\x83"):
        with open(os.path.join(d.encode(), n), "wb") as f:
            f.write(n)


@sc(extra=_weird_lower)
def t_weird_names_lower(c):
    c.do("listing", lambda: sorted(n for n in os.listdir(c.root) if n.startswith(b"lower")),
         show=lambda r: r)
    for n in (b"lower\nnl", b"lower\xff", b"lower \xe2\x98\x83"):
        c.content("read %r" % n, c.p(n))
    c.put("append (copy-up)", c.p(b"lower\xff"), b"+", WR | AP)
    c.content("after", c.p(b"lower\xff"))
    c.do("rename", os.rename, c.p(b"lower\nnl"), c.p(b"x\ny"))
    c.do("unlink", os.unlink, c.p(b"lower \xe2\x98\x83"))
    c.do("listing after", lambda: sorted(os.listdir(c.root)), show=lambda r: r)


@sc()
def t_deep_paths(c):
    parts = [b"level%02d" % i for i in range(60)]
    d = c.root
    ok = True
    for p in parts:
        d = d + b"/" + p
        try:
            os.mkdir(d)
        except OSError as e:
            c.rec("mkdir chain", errname(e))
            ok = False
            break
    if ok:
        c.rec("mkdir chain", "ok")
    c.put("file at depth 60", d + b"/leaf", b"deep")
    c.content("read", d + b"/leaf")
    c.stat("stat", d + b"/leaf")
    c.do("rename top of chain", os.rename, c.p(parts[0]), c.p(b"top"))
    c.content("read after rename", c.p(b"top", *parts[1:], b"leaf"))


@sc()
def t_path_max_relative(c):
    old = os.open(".", os.O_PATH)
    try:
        os.chdir(c.root)
        comp = b"p" * 200
        rel_ = b""
        for i in range(19):
            rel_ = rel_ + comp + b"/" if rel_ else comp + b"/"
            os.mkdir(rel_)
        c.do("len so far", lambda: len(rel_), show=lambda r: r)
        c.put("create at ~3800 bytes", rel_ + b"f", b"x")
        c.do("mkdir past PATH_MAX", os.mkdir, rel_ + b"q" * 255)
        longp = rel_ + b"q" * 255 + b"/" + b"r" * 200
        c.do("open > 4096 bytes", os.open, longp, WR | CR)
        c.do("chdir deep then relative create", lambda: (os.chdir(rel_), os.mkdir(b"x" * 250),
                                                          os.chdir(b"x" * 250),
                                                          os.close(os.open(b"y", WR | CR))))
        c.do("stat relative", os.stat, b"y", show=nstat)
    finally:
        os.fchdir(old)
        os.close(old)


# --- concurrency -------------------------------------------------------------------------------

def _excl_race(c, sub, rounds=40):
    d = c.p(sub)
    gate_r, gate_w = os.pipe()

    def worker(idx):
        os.close(gate_w)
        os.read(gate_r, 1)
        won, other = [], set()
        for i in range(rounds):
            try:
                fd = os.open(os.path.join(d, b"race%03d" % i), WR | CR | EX, 0o644)
                os.write(fd, b"%d" % idx)
                os.close(fd)
                won.append(i)
            except OSError as e:
                if e.errno != errno.EEXIST:
                    other.add(errname(e))
        return "%s|%s" % (",".join(map(str, won)), ",".join(sorted(other)))
    kids = [spawn(worker, i) for i in range(2)]
    os.close(gate_r)
    os.write(gate_w, b"go")
    os.close(gate_w)
    results = [collect(*k) for k in kids]
    wins = [set(int(x) for x in r.split("|")[0].split(",") if x) for r in results]
    others = set()
    for r in results:
        others |= set(x for x in r.split("|")[1].split(",") if x)
    one = sum(1 for i in range(rounds) if (i in wins[0]) != (i in wins[1]))
    c.val("rounds with exactly one winner", "%d/%d" % (one, rounds))
    c.val("loser errors other than EEXIST", sorted(others))
    good = 0
    for i in range(rounds):
        try:
            with open(os.path.join(d, b"race%03d" % i), "rb") as f:
                data = f.read()
            if data == b"%d" % (0 if i in wins[0] else 1):
                good += 1
        except OSError:
            pass
    c.val("content written by the winner", "%d/%d" % (good, rounds))


@sc()
def t_excl_race_two_processes(c):
    os.mkdir(c.p("r"))
    _excl_race(c, "r")


@sc()
def t_excl_race_in_lower_dir(c):
    _excl_race(c, "dir/sub/deeper")


@sc()
def t_concurrent_append_two_processes(c):
    p = c.p("log")
    open(p, "w").close()

    def worker(idx):
        fd = os.open(p, WR | AP)
        for i in range(200):
            os.write(fd, b"%d:%03d\n" % (idx, i))
        os.close(fd)
        return "done"
    kids = [spawn(worker, i) for i in range(2)]
    c.val("workers", [collect(*k) for k in kids])
    with open(p, "rb") as f:
        lines = f.read().split(b"\n")[:-1]
    c.val("lines", len(lines))
    c.val("no torn lines", all(len(x) == 5 for x in lines))


@sc()
def t_concurrent_copyup_same_file(c):
    p = c.p("big.bin")

    def worker(idx):
        fd = os.open(p, RW)
        os.pwrite(fd, b"W%d" % idx, idx * 10)
        os.close(fd)
        return "ok"
    kids = [spawn(worker, i) for i in range(4)]
    c.val("workers", [collect(*k) for k in kids])
    with open(p, "rb") as f:
        data = f.read()
    c.val("all writes kept", [data[i * 10:i * 10 + 2] for i in range(4)])
    c.val("rest intact", data[40:] == BIG[40:])


@sc()
def t_flock_and_lockf(c):
    fd = c.open("open", c.p("small.txt"), RW)
    c.do("flock LOCK_EX", fcntl.flock, fd, fcntl.LOCK_EX)

    def try_flock():
        f2 = os.open(c.p("small.txt"), RD)
        try:
            fcntl.flock(f2, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return "got lock"
        except OSError as e:
            return errname(e)
    c.child("other process flock NB", try_flock)
    c.do("flock LOCK_UN", fcntl.flock, fd, fcntl.LOCK_UN)
    c.child("other process after unlock", try_flock)
    c.do("lockf F_LOCK", fcntl.lockf, fd, fcntl.LOCK_EX)

    def try_lockf():
        f2 = os.open(c.p("small.txt"), RW)
        try:
            fcntl.lockf(f2, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return "got lock"
        except OSError as e:
            return errname(e)
    c.child("other process lockf NB", try_lockf)


def _lock_race(c, make_lock, rounds=30):
    """Two processes take the same 'lock' per round (link, mkdir, rename NOREPLACE): exactly
    one may win each."""
    os.mkdir(c.p("locks"))
    gate_r, gate_w = os.pipe()

    def worker(idx):
        os.close(gate_w)
        os.read(gate_r, 1)
        won, other = [], set()
        for i in range(rounds):
            try:
                make_lock(c, idx, i)
                won.append(i)
            except OSError as e:
                if e.errno != errno.EEXIST:
                    other.add(errname(e))
        return "%s|%s" % (",".join(map(str, won)), ",".join(sorted(other)))
    kids = [spawn(worker, i) for i in range(2)]
    os.close(gate_r)
    os.write(gate_w, b"go")
    os.close(gate_w)
    results = [collect(*k) for k in kids]
    wins = [set(int(x) for x in r.split("|")[0].split(",") if x) for r in results]
    others = set()
    for r in results:
        others |= set(x for x in r.split("|")[1].split(",") if x)
    one = sum(1 for i in range(rounds) if (i in wins[0]) != (i in wins[1]))
    c.val("rounds with exactly one winner", "%d/%d" % (one, rounds))
    c.val("errors other than EEXIST", sorted(others))
    c.do("locks present", lambda: len(os.listdir(c.p("locks"))), show=lambda r: r)


def _link_lock(c, idx, i):
    tmp = c.p("locks", "tmp-%d-%d" % (idx, i))
    os.close(os.open(tmp, WR | CR | EX, 0o644))
    try:
        os.link(tmp, c.p("locks", "lock%03d" % i))
    finally:
        os.unlink(tmp)


def _mkdir_lock(c, idx, i):
    os.mkdir(c.p("locks", "lock%03d" % i))


def _rename_lock(c, idx, i):
    tmp = c.p("locks", "tmp-%d-%d" % (idx, i))
    os.close(os.open(tmp, WR | CR | EX, 0o644))
    try:
        renameat2(tmp, c.p("locks", "lock%03d" % i), RENAME_NOREPLACE)
    except OSError:
        os.unlink(tmp)
        raise


@sc()
def t_link_lock_race(c):
    _lock_race(c, _link_lock)


@sc()
def t_mkdir_lock_race(c):
    _lock_race(c, _mkdir_lock)


@sc()
def t_rename_noreplace_lock_race(c):
    _lock_race(c, _rename_lock)


@sc()
def t_setuid_cleared_on_write_by_other_user(c):
    c.do("chmod 06777 lower file", os.chmod, c.p("medium.bin"), 0o6777)
    c.do("chmod 06777 second file", os.chmod, c.p("page.bin"), 0o6777)

    def body(d):
        fd = os.open("medium.bin", WR, dir_fd=d)
        os.write(fd, b"x")
        os.close(fd)
        os.truncate(os.open("page.bin", WR, dir_fd=d), 10)
        return "ok"
    c.as_nobody("write and truncate as 65534", body)
    c.stat("setuid/setgid cleared by write", c.p("medium.bin"))
    c.stat("cleared by ftruncate", c.p("page.bin"))


@sc()
def t_large_sparse_over_4gib(c):
    fd = c.open("create", c.p("huge"), RW | CR)
    c.pwrite("pwrite at 5 GiB", fd, b"far", 5 << 30)
    c.fstat("fstat", fd)
    c.pread("read back", fd, 3, 5 << 30)
    c.pread("hole at 4 GiB", fd, 4, 4 << 30)
    c.do("SEEK_DATA from 1", os.lseek, fd, 1, SEEK_DATA, show=lambda r: r)
    c.stat("stat", c.p("huge"))
    c.do("truncate to 4 GiB + 1", os.truncate, c.p("huge"), (4 << 30) + 1)
    c.stat("stat after", c.p("huge"))


@sc()
def t_mmap_write_updates_mtime(c):
    fd = c.open("open lower rw", c.p("page.bin"), RW)
    before = c.snap(c.p("page.bin"))
    m = c.do("mmap", mmap.mmap, fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    if m not in (None, True):
        m[0:4] = b"MMAP"
        c.do("msync", m.flush)
        m.close()
    c.close(fd, "close")
    c.times("times after mmap write", c.p("page.bin"), before)


@sc()
def t_recreate_subdir_of_emptied_lower_dir(c):
    c.do("unlink c.txt", os.unlink, c.p("dir", "sub", "deeper", "c.txt"))
    c.do("rmdir deeper", os.rmdir, c.p("dir", "sub", "deeper"))
    c.do("mkdir deeper", os.mkdir, c.p("dir", "sub", "deeper"))
    c.ls("deeper is empty", c.p("dir", "sub", "deeper"))
    c.stat("c.txt stays gone", c.p("dir", "sub", "deeper", "c.txt"))
    c.do("unlink b.txt", os.unlink, c.p("dir", "sub", "b.txt"))
    c.do("rmdir deeper again", os.rmdir, c.p("dir", "sub", "deeper"))
    c.do("rmdir sub", os.rmdir, c.p("dir", "sub"))
    c.do("mkdir sub", os.mkdir, c.p("dir", "sub"))
    c.ls("sub is empty", c.p("dir", "sub"))
    c.ls("dir", c.p("dir"))


@sc()
def t_link_outlives_lower_original(c):
    c.do("link medium.bin -> keep", os.link, c.p("medium.bin"), c.p("keep"))
    c.do("unlink medium.bin", os.unlink, c.p("medium.bin"))
    c.content("keep has the data", c.p("keep"))
    c.stat("keep", c.p("keep"))
    c.exists("original gone", c.p("medium.bin"))


# --- times -------------------------------------------------------------------------------------

@sc()
def t_times_on_write_lower(c):
    before = c.snap(c.p("medium.bin"))
    fd = c.open("open rw", c.p("medium.bin"), RW)
    c.times("open alone changes nothing", c.p("medium.bin"), before)
    c.pwrite("write", fd, b"x", 0)
    c.times("after write", c.p("medium.bin"), before)
    c.fstat("fstat", fd)


@sc()
def t_times_on_write_new(c):
    fd = c.open("create", c.p("n"), RW | CR)
    before = c.snap(c.p("n"))
    c.write("write", fd, b"data")
    c.times("after write", c.p("n"), before)
    b2 = c.snap(c.p("n"))
    c.pread("read", fd, 4, 0)
    c.times("read changes neither mtime nor ctime", c.p("n"), b2)


@sc()
def t_times_on_chmod(c):
    before = c.snap(c.p("small.txt"))
    c.do("chmod", os.chmod, c.p("small.txt"), 0o640)
    c.times("mtime same, ctime advanced", c.p("small.txt"), before)
    pb = c.snap(c.root)
    c.do("chmod again", os.chmod, c.p("small.txt"), 0o600)
    c.times("parent dir unaffected", c.root, pb)


@sc()
def t_times_parent_on_create_unlink(c):
    before = c.snap(c.p("dir"))
    c.put("create", c.p("dir", "n"), b"")
    c.times("parent after create", c.p("dir"), before)
    b2 = c.snap(c.p("dir"))
    c.do("unlink lower child", os.unlink, c.p("dir", "a.txt"))
    c.times("parent after unlink", c.p("dir"), b2)
    b3 = c.snap(c.p("dir2"))
    c.do("unlink lower child of untouched dir", os.unlink, c.p("dir2", "x.txt"))
    c.times("untouched parent after unlink", c.p("dir2"), b3)


@sc()
def t_times_parent_on_mkdir_rmdir(c):
    before = c.snap(c.root)
    c.do("mkdir", os.mkdir, c.p("n"))
    c.times("after mkdir", c.root, before)
    b2 = c.snap(c.root)
    c.do("rmdir lower emptydir", os.rmdir, c.p("emptydir"))
    c.times("after rmdir", c.root, b2)


@sc()
def t_times_parent_on_rename_within(c):
    before = c.snap(c.p("dir2"))
    c.do("rename within dir2", os.rename, c.p("dir2", "x.txt"), c.p("dir2", "y.txt"))
    c.times("parent after rename", c.p("dir2"), before)


@sc()
def t_times_parent_on_link_symlink(c):
    before = c.snap(c.p("dir"))
    c.do("link into dir", os.link, c.p("small.txt"), c.p("dir", "hl"))
    c.times("dir after link", c.p("dir"), before)
    b2 = c.snap(c.p("dir2"))
    c.do("symlink into dir2", os.symlink, "x", c.p("dir2", "sl"))
    c.times("dir2 after symlink", c.p("dir2"), b2)


@sc()
def t_times_ctime_on_link(c):
    before = c.snap(c.p("small.txt"))
    c.do("link", os.link, c.p("small.txt"), c.p("l"))
    c.times("file ctime after link", c.p("small.txt"), before)
    b2 = c.snap(c.p("l"))
    c.do("unlink other name", os.unlink, c.p("small.txt"))
    c.times("file ctime after unlink of other name", c.p("l"), b2)


@sc()
def t_times_on_truncate(c):
    before = c.snap(c.p("page.bin"))
    c.do("truncate shrink", os.truncate, c.p("page.bin"), 10)
    c.times("after shrink", c.p("page.bin"), before)
    b2 = c.snap(c.p("page.bin"))
    fd = c.open("open", c.p("page.bin"), RW)
    c.do("ftruncate same size", os.ftruncate, fd, 10)
    c.times("after same-size ftruncate", c.p("page.bin"), b2)


@sc()
def t_times_on_xattr_and_utime(c):
    before = c.snap(c.p("small.txt"))
    c.do("setxattr", os.setxattr, c.p("small.txt"), b"user.t", b"1")
    c.times("after setxattr", c.p("small.txt"), before)
    b2 = c.snap(c.p("small.txt"))
    c.do("removexattr", os.removexattr, c.p("small.txt"), b"user.t")
    c.times("after removexattr", c.p("small.txt"), b2)


@sc()
def t_times_copyup_preserves(c):
    st = c.raw(c.p("medium.bin"))
    fd = c.open("open rw (copy-up, no write)", c.p("medium.bin"), RW)
    st2 = c.raw(c.p("medium.bin"))
    c.val("mtime preserved by copy-up", st.st_mtime_ns == st2.st_mtime_ns)
    c.fstat("fstat", fd)
    d1 = c.raw(c.p("dir"))
    c.do("chmod dir/a.txt (copies dir up)", os.chmod, c.p("dir", "a.txt"), 0o600)
    c.val("dir mtime preserved by copy-up", d1.st_mtime_ns == c.raw(c.p("dir")).st_mtime_ns)


@sc()
def t_times_dir_mtime_on_rename_dir(c):
    before = c.snap(c.p("dir"))
    c.do("rename dir/sub -> dir2/sub", os.rename, c.p("dir", "sub"), c.p("dir2", "sub"))
    c.times("moved dir times", c.p("dir2", "sub"), before, ("ctime",))
    c.times("old parent", c.p("dir"), before)


# --- exec --------------------------------------------------------------------------------------

@sc()
def t_exec_files(c):
    def run(path):
        r = subprocess.run([path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           timeout=20)
        return (r.returncode, r.stdout)
    c.do("exec lower script", run, c.p("exec.sh"), show=lambda r: r)
    c.do("exec non-executable", run, c.p("small.txt"))
    c.put("write new script", c.p("n.sh"), b"#!/bin/sh\necho new\n", mode=0o755)
    c.do("exec new script", run, c.p("n.sh"), show=lambda r: r)
    c.do("chmod -x lower script", os.chmod, c.p("exec.sh"), 0o644)
    c.do("exec after chmod -x", run, c.p("exec.sh"))


@sc()
def t_exec_while_open_for_write(c):
    shutil.copyfile("/bin/true", c.p("true"))
    os.chmod(c.p("true"), 0o755)
    fd = c.open("open for write", c.p("true"), WR)

    def run():
        return subprocess.run([c.p("true")], timeout=20).returncode
    c.do("exec while open for write", run, show=lambda r: r)
    c.close(fd, "close")
    c.do("exec after close", run, show=lambda r: r)
    # writing to a running binary: ETXTBSY
    shutil.copyfile("/bin/sleep", c.p("sleep"))
    os.chmod(c.p("sleep"), 0o755)
    proc = subprocess.Popen([c.p("sleep"), "5"])
    time.sleep(0.3)
    c.open("open running binary for write", c.p("sleep"), WR)
    proc.kill()
    proc.wait()


# --- misc: identity, stat ----------------------------------------------------------------------

@sc()
def t_stat_seed(c):
    for n in ("empty", "small.txt", "page.bin", "medium.bin", "big.bin", "sparse.bin", "exec.sh",
              "readonly.txt", "hard1", "hard2", "link", "dangling", "abslink", "dir", "dir/sub",
              "dir/sub/deeper", "dir/sub/deeper/c.txt", "dir2", "emptydir", "xattr.txt"):
        c.stat("lstat " + n, c.p(n))
    c.stat("stat link (follow)", c.p("link"), follow=True)
    c.stat("stat root", c.root)


@sc()
def t_ino_unique_and_stable(c):
    names = ["empty", "small.txt", "page.bin", "medium.bin", "hard1", "hard2", "link", "dir",
             "dir/sub", "dir2", "emptydir", "exec.sh"]
    inos = {n: c.ino(c.p(n)) for n in names}
    c.val("distinct except the hard pair", len(set(inos.values())) == len(names) - 1)
    c.same_ino("hard pair shares", inos["hard1"], inos["hard2"])
    for n in ("small.txt", "page.bin"):
        with open(c.p(n), "ab") as f:
            f.write(b"+")
    os.chmod(c.p("empty"), 0o600)
    open(c.p("dir", "new"), "w").close()
    for n in names:
        c.same_ino("after copy-ups: " + n, inos[n], c.ino(c.p(n)))
    fd = os.open(c.p("medium.bin"), RD)
    c.val("fstat ino == stat ino", os.fstat(fd).st_ino == c.ino(c.p("medium.bin")))
    os.close(fd)


@sc()
def t_ino_new_files_distinct(c):
    for i in range(20):
        open(c.p("n%d" % i), "w").close()
    inos = [c.ino(c.p("n%d" % i)) for i in range(20)]
    seed = [c.ino(c.p(n)) for n in ("empty", "small.txt", "dir", "page.bin")]
    c.val("new inos distinct", len(set(inos)) == 20)
    c.val("new inos differ from seed inos", not (set(inos) & set(seed)))
    c.val("stable on second stat", inos == [c.ino(c.p("n%d" % i)) for i in range(20)])


@sc()
def t_fstat_after_write_stat_after_close(c):
    fd = c.open("open lower rw", c.p("small.txt"), RW)
    c.pwrite("extend", fd, b"0123456789" * 10, 12)
    c.fstat("fstat", fd)
    c.stat("stat during", c.p("small.txt"))
    c.close(fd, "close")
    c.stat("stat after close", c.p("small.txt"))


@sc()
def t_stat_size_after_append_other_process(c):
    c.stat("before", c.p("small.txt"))

    def app():
        with open(c.p("small.txt"), "ab") as f:
            f.write(b"appended by child\n")
        return "ok"
    c.child("child appends", app)
    c.stat("after", c.p("small.txt"))
    c.content("content", c.p("small.txt"))


@sc()
def t_empty_path_and_dot(c):
    c.do("stat ''", os.stat, b"")
    c.stat("stat dir/.", c.p("dir", "."))
    c.do("mkdir .", os.mkdir, c.p("dir", "."))
    c.do("rename .", os.rename, c.p("dir", "."), c.p("x"))
    c.do("unlink .", os.unlink, c.p("dir", "."))
    c.do("create .", os.open, c.p("dir", "."), WR | CR)


@sc()
def t_git_like_lockfile_dance(c):
    # the pattern git, editors and package managers use: write a temp, fsync, rename over
    for i in range(5):
        p = c.p("small.txt.lock")
        fd = os.open(p, WR | CR | EX, 0o644)
        os.write(fd, b"version %d\n" % i)
        os.fsync(fd)
        os.close(fd)
        os.rename(p, c.p("small.txt"))
    c.content("final content", c.p("small.txt"))
    c.stat("stat", c.p("small.txt"))
    c.exists("no lock left", c.p("small.txt.lock"))
    c.ls("listing", c.root)


@sc()
def t_editor_backup_dance(c):
    # vim-style: rename original to backup, write new file, unlink backup
    c.do("rename to backup", os.rename, c.p("medium.bin"), c.p("medium.bin~"))
    c.put("write new", c.p("medium.bin"), b"edited", WR | CR | EX)
    c.do("copy mode", os.chmod, c.p("medium.bin"), 0o644)
    c.do("unlink backup", os.unlink, c.p("medium.bin~"))
    c.content("content", c.p("medium.bin"))
    c.ls("listing", c.root)


# ----------------------------------------------------------------------------------------------
# running


def run_side(scn, base, side, on_hang=None):
    """Runs one scenario in base/s/NAME and returns its log. A request the view never answers
    cannot be interrupted by a signal, so a watchdog thread calls on_hang (which aborts the
    FUSE connection: the stuck call then fails with ENOTCONN) after TIMEOUT seconds."""
    root = os.path.join(base, b"s", scn.name.encode())
    c = Ctx(root, side)
    cwd = os.open(".", os.O_PATH)
    old_umask = os.umask(0o022)
    hung = threading.Event()

    def fire():
        hung.set()
        if on_hang:
            on_hang()
    dog = threading.Timer(TIMEOUT, fire)
    dog.daemon = True
    dog.start()
    try:
        scn.fn(c)
    except Exception as e:  # noqa: BLE001 - a crash is a recorded outcome like any other
        c.rec("(scenario)", "raised " + errname(e))
    finally:
        dog.cancel()
        c.close_all()
        os.umask(old_umask)
        os.fchdir(cwd)
        os.close(cwd)
    if hung.is_set():
        dog.join()  # on_hang has finished: the view is aborted before anyone remounts
        c.rec("(scenario)", "hung for %d s: the view's connection was aborted" % TIMEOUT)
    return c.log


def first_diff(a, b_):
    for i in range(max(len(a), len(b_))):
        x = a[i] if i < len(a) else ("<no step>", "")
        y = b_[i] if i < len(b_) else ("<no step>", "")
        if x != y:
            return i, x, y
    return None


def sh(cmd, cwd, env, check=True):
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if check and r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s%s" % (" ".join(cmd), r.returncode, r.stdout,
                                                     r.stderr))
    return r


def view_alive(view):
    """Whether the daemon answers a statfs within 5 s (stat could be answered from the
    kernel's cache; checked in a child: a hung view would block this process)."""
    pid, r = spawn(lambda: "ok %d" % os.statvfs(view).f_namemax)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            out = collect_rest(r)
            return out.startswith("ok")
        time.sleep(0.05)
    os.close(r)
    return False


def collect_rest(r):
    chunks = []
    while True:
        d = os.read(r, 65536)
        if not d:
            break
        chunks.append(d)
    os.close(r)
    return b"".join(chunks).decode(errors="replace")


def fuse_conn_dir(st_dev):
    major, minor = os.major(st_dev), os.minor(st_dev)
    return "/sys/fs/fuse/connections/%d" % ((major << 20) | minor)


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
                pid = int(f.read().strip() or "0")
            time.sleep(1)
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                if state_dir.encode() not in f.read():
                    continue
            os.kill(pid, signal.SIGKILL)
            print("!!    killed the hung daemon (pid %d)" % pid)
        except (OSError, ValueError):
            pass


def tail(paths, n):
    out = []
    for p in paths:
        try:
            with open(p, errors="replace") as f:
                out += f.read().splitlines()[-n:]
        except OSError:
            pass
    return out


def skip(reason):
    print("posix: skipped: " + reason)
    sys.exit(77)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ws", default=os.path.join(top, "build", "ws"), help="the ws binary")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directories")
    ap.add_argument("-k", dest="pattern", help="run only scenarios whose name matches "
                                               "(substring, or a glob with * ? [)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every step of failing scenarios")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = ap.parse_args()

    scns = SCENARIOS
    if args.pattern:
        pat = args.pattern
        glob = any(ch in pat for ch in "*?[")
        scns = [s for s in scns if (fnmatch.fnmatch(s.name, pat) if glob else pat in s.name)]
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
    # A private copy: a rebuild of build/ws during the run must not pull the binary away.
    ws = os.path.join(tmp, "ws")
    for _ in range(50):
        try:
            shutil.copy2(ws_src, ws)
            break
        except OSError:
            time.sleep(0.2)
    else:
        print("posix: error: cannot copy %s" % ws_src)
        shutil.rmtree(tmp, ignore_errors=True)
        return 2
    env = dict(os.environ)
    env.update(XDG_DATA_HOME=os.path.join(tmp, "state"), XDG_RUNTIME_DIR=os.path.join(tmp, "run"),
               GIT_CONFIG_NOSYSTEM="1", HOME=tmp)
    env.pop("WS_WORKSPACE", None)
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
    repo = os.path.join(tmp, "repo")
    native = os.path.join(tmp, "native")
    mounted = False
    failed = passed = 0
    xfails = []
    try:
        for s in scns:
            make_seed(os.path.join(repo, "s", s.name), s.extra)
        sh(["git", "init", "-q"], repo, env)
        sh(["git", "add", "-A"], repo, env)
        sh(["git", "-c", "user.name=posix", "-c", "user.email=posix@example.com", "commit", "-q",
            "-m", "seed"], repo, env)
        copy_tree(os.path.join(repo, "s"), os.path.join(native, "s"))
        sh([ws, "new"], repo, env)
        r = sh([ws, "mount"], repo, env, check=False)
        if r.returncode != 0:
            out = r.stdout + r.stderr
            log = "\n".join(tail([os.path.join(dp, "daemon.log") for dp, _, fn in
                                  os.walk(env["XDG_DATA_HOME"]) if "daemon.log" in fn], 5))
            if any(m in out + log for m in ("/dev/fuse", "fuse: device not found", "fusermount",
                                            "fuse: mount failed")):
                skip("ws mount cannot use FUSE here: " +
                     " ".join((out + " " + log).split()))
            print("posix: error: ws mount failed: " + out.strip() + "\n" + log)
            return 2
        mounted = True
        view = r.stdout.strip().splitlines()[-1]
        conn = [fuse_conn_dir(os.stat(view).st_dev)]

        def on_hang():
            print("!!    a view call hung for %d s; aborting the connection" % TIMEOUT)
            for ln in tail(logs, 10):
                print("!!      " + ln)
            abort_view(conn[0], env["XDG_DATA_HOME"])
        logs = [os.path.join(dp, "daemon.log")
                for dp, _, fn in os.walk(env["XDG_DATA_HOME"]) if "daemon.log" in fn]
        t_setup = time.monotonic() - t0
        for s in scns:
            ts = time.monotonic()
            n_log = run_side(s, native.encode(), "native")
            tn = time.monotonic()
            v_log = run_side(s, view.encode(), "view", on_hang)
            tv = time.monotonic()
            if tv - ts > 2:
                print("SLOW  %s: native %.1f s, view %.1f s" % (s.name, tn - ts, tv - tn))
            d = first_diff(n_log, v_log)
            if d is None:
                passed += 1
                print("PASS  %s%s" % (s.name, "  (XPASS: expected to differ: %s)" % s.xfail
                                      if s.xfail else ""))
                continue
            i, x, y = d
            detail = "step %d '%s': native=%s view=%s" % (i + 1, x[0], x[1], y[1])
            if y[0] != x[0]:
                detail = "step %d: native '%s'=%s, view '%s'=%s" % (i + 1, x[0], x[1], y[0],
                                                                     y[1])
            more = sum(1 for j in range(i + 1, max(len(n_log), len(v_log)))
                       if (n_log[j] if j < len(n_log) else None) !=
                       (v_log[j] if j < len(v_log) else None))
            if more:
                detail += " (+%d more differing step%s)" % (more, "s" if more > 1 else "")
            if s.xfail:
                xfails.append((s.name, s.xfail, detail))
                print("XFAIL %s: %s [expected: %s]" % (s.name, detail, s.xfail))
            else:
                failed += 1
                print("FAIL  %s: %s" % (s.name, detail))
            if not view_alive(view):
                print("!!    the view stopped answering during %s; daemon.log ends with:"
                      % s.name)
                for ln in tail(logs, 15):
                    print("!!      " + ln)
                abort_view(conn[0], env["XDG_DATA_HOME"])
                r = sh([ws, "mount"], repo, env, check=False)
                print("!!    remounted: %s" % (r.stdout.strip() or r.stderr.strip()))
                if view_alive(view):
                    conn[0] = fuse_conn_dir(os.stat(view).st_dev)
            if args.verbose:
                for j in range(max(len(n_log), len(v_log))):
                    a = n_log[j] if j < len(n_log) else ("", "")
                    bb = v_log[j] if j < len(v_log) else ("", "")
                    mark = " " if a == bb else "!"
                    print("   %s %-45s native=%s\n   %s %-45s view  =%s" % (
                        mark, a[0][:45], a[1], mark, bb[0][:45], bb[1]))
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
        if mounted:
            sh([ws, "umount", "--force"], repo, env, check=False)
        if os.path.isdir(repo) and not args.keep:
            sh([ws, "rm", "--force", "default"], repo, env, check=False)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
