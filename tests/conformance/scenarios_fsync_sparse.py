"""fsync, fallocate and sparse files: syncing read-only real-tree fds, posix_fallocate and the
KEEP_SIZE and PUNCH_HOLE modes, SEEK_DATA and SEEK_HOLE on new and real-tree sparse files, holes
kept by copy-up, lseek edge cases."""

import os

from harness import as_is
from libc import FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE, SEEK_DATA, SEEK_HOLE, fallocate
from scenario import CR, RD, RW, sc
from seed import SPARSE_SIZE


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
    c.do("SEEK_HOLE", os.lseek, fd, 0, SEEK_HOLE, show=as_is)
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
        c.do("SEEK_DATA %d" % off, os.lseek, fd, off, SEEK_DATA, show=as_is)
        c.do("SEEK_HOLE %d" % off, os.lseek, fd, off, SEEK_HOLE, show=as_is)
    c.do("SEEK_DATA at EOF", os.lseek, fd, 4 << 20, SEEK_DATA)
    c.do("SEEK_HOLE beyond EOF", os.lseek, fd, 5 << 20, SEEK_HOLE)
    c.val("sparse (allocated < size)", os.fstat(fd).st_blocks * 512 < 4 << 20)


@sc()
def t_seek_data_hole_lower_sparse(c):
    fd = c.open("open lower sparse", c.p("sparse.bin"), RD)
    for off in (0, 4096, 5000, 512 << 10, (512 << 10) + 4096, SPARSE_SIZE - 1):
        c.do("SEEK_DATA %d" % off, os.lseek, fd, off, SEEK_DATA, show=as_is)
        c.do("SEEK_HOLE %d" % off, os.lseek, fd, off, SEEK_HOLE, show=as_is)
    c.do("SEEK_DATA past EOF", os.lseek, fd, SPARSE_SIZE + 1, SEEK_DATA)
    c.stat("stat", c.p("sparse.bin"))
    c.val("lower sparse", c.raw(c.p("sparse.bin")).st_blocks * 512 < SPARSE_SIZE)


@sc()
def t_sparse_lower_copyup_keeps_holes(c):
    fd = c.open("open rw (copy-up)", c.p("sparse.bin"), RW)
    c.pwrite("write 1 byte", fd, b"Z", 100)
    c.do("SEEK_HOLE 0", os.lseek, fd, 0, SEEK_HOLE, show=as_is)
    c.do("SEEK_DATA 4096", os.lseek, fd, 4096, SEEK_DATA, show=as_is)
    c.val("still sparse", os.fstat(fd).st_blocks * 512 < SPARSE_SIZE)
    c.content("content", c.p("sparse.bin"))


@sc()
def t_seek_misc(c):
    fd = c.open("open small", c.p("small.txt"), RD)
    c.do("SEEK_END", os.lseek, fd, 0, os.SEEK_END, show=as_is)
    c.do("SEEK_CUR +5", os.lseek, fd, 5, os.SEEK_CUR, show=as_is)
    c.read("read beyond EOF", fd, 5)
    c.do("SEEK_SET huge", os.lseek, fd, 1 << 40, os.SEEK_SET, show=as_is)
    c.do("bad whence", os.lseek, fd, 0, 99)
    e = c.open("open empty", c.p("empty"), RD)
    c.do("SEEK_DATA on empty file", os.lseek, e, 0, SEEK_DATA)
