"""The seed tree every scenario starts from, and the plain copy of it that is the native
reference.

Each scenario gets its own copy (s/<name>/) of files of several sizes, an empty one, nested
and empty directories, symlinks (relative, dangling, absolute), an executable, a read-only
file, a hard-linked pair, a sparse file and a file with a user.* xattr. The repository's
working tree is the view's lower layer; copy_tree makes the native twin on the same
filesystem, keeping what a naive copy would lose (holes, hard links, owners, times)."""

import errno
import hashlib
import os
import stat

from libc import SEEK_DATA, SEEK_HOLE


def pattern(n, salt):
    """n bytes that are not all alike, so a misplaced block shows in a content hash."""
    block = hashlib.sha256(salt).digest() * 2048  # 64 KiB
    return (block * (n // len(block) + 1))[:n]


SMALL = b"hello world\n"
PAGE = pattern(4097, b"page")
MEDIUM = pattern(70000, b"medium")
BIG = pattern(300001, b"big")
SPARSE_SIZE = 1 << 20
SPARSE_DATA = [(0, pattern(4096, b"s0")), (512 << 10, pattern(4096, b"s1"))]


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
                copy_sparse(s, t, sst.st_size)
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


def copy_sparse(s, t, size):
    """Copies only the data extents (SEEK_DATA/SEEK_HOLE), so the reference's sparse files
    stay sparse like the lower layer's."""
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
