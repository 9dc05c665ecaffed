"""libc calls that Python's os module does not expose (renameat2, linkat with
AT_SYMLINK_FOLLOW, utimensat with UTIME_NOW/UTIME_OMIT, fallocate modes, getxattr with a
caller-sized buffer), called through ctypes so the check stays stdlib-only."""

import ctypes
import errno
import os

_libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
AT_SYMLINK_NOFOLLOW = 0x100
AT_SYMLINK_FOLLOW = 0x400
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
RENAME_WHITEOUT = 4
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


def _bytes(x):
    return x if isinstance(x, bytes) else str(x).encode()


def renameat2(old, new, flags):
    f = _libc.renameat2
    f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return _check(f(AT_FDCWD, old, AT_FDCWD, new, flags))


def linkat_follow(src, dst):
    """linkat(AT_SYMLINK_FOLLOW): os.link() without dir_fd calls link(2), which never follows."""
    f = _libc.linkat
    f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    return _check(f(AT_FDCWD, _bytes(src), AT_FDCWD, _bytes(dst), AT_SYMLINK_FOLLOW))


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


def getxattr_sized(path, name, size):
    """getxattr(2) into a buffer of exactly size bytes (none for 0, the size query), which
    os.getxattr never does: returns (rc, errno name or None). A too-small buffer must give
    ERANGE, not a truncated value."""
    buf = ctypes.create_string_buffer(size) if size else None
    f = _libc.getxattr
    f.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
    f.restype = ctypes.c_ssize_t
    rc = f(path, name, buf, size)
    return rc, (None if rc >= 0 else errno.errorcode[ctypes.get_errno()])
