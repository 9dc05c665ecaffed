"""mmap: shared writes seen by read() and write() seen by a mapping, with and without msync,
private mappings, PROT_WRITE on a read-only fd, a read-only mapping of a real-tree file after
another fd copies it up, growing a mapping."""

import mmap
import os

from harness import got_value, summ
from scenario import CR, RD, RW, sc


@sc()
def t_mmap_shared_write_then_read(c):
    fd = c.open("open lower rw", c.p("medium.bin"), RW)
    m = c.do("mmap shared rw", mmap.mmap, fd, 0, mmap.MAP_SHARED,
             mmap.PROT_READ | mmap.PROT_WRITE)
    if got_value(m):
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
    if got_value(m):
        m[0:5] = b"hello"
        c.pread("read() without msync", fd, 5, 0)
        m.close()
    c.content("after munmap", c.p("f"))


@sc()
def t_mmap_write_then_mmap_read(c):
    fd = c.open("open lower rw", c.p("page.bin"), RW)
    m = c.do("mmap", mmap.mmap, fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    c.pwrite("pwrite", fd, b"WRITTEN", 10)
    if got_value(m):
        c.val("mmap sees write()", bytes(m[10:17]))
        m.close()


@sc()
def t_mmap_private(c):
    fd = c.open("open lower ro", c.p("medium.bin"), RD)
    m = c.do("mmap private", mmap.mmap, fd, 0, mmap.MAP_PRIVATE,
             mmap.PROT_READ | mmap.PROT_WRITE)
    if got_value(m):
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
    if got_value(m):
        c.val("data", summ(m[:]))
        m.close()


@sc()
def t_mmap_lower_ro_then_copyup(c):
    r = c.open("open lower ro", c.p("medium.bin"), RD)
    m = c.do("mmap ro shared", mmap.mmap, r, 0, mmap.MAP_SHARED, mmap.PROT_READ)
    w = c.open("open rw (copy-up)", c.p("medium.bin"), RW)
    c.pwrite("write via rw fd", w, b"NEWDATA!", 0)
    if got_value(m):
        c.val("ro mapping of lower sees write", bytes(m[0:8]))
        m.close()


@sc()
def t_mmap_extend_sigbus_free(c):
    fd = c.open("create", c.p("f"), RW | CR)
    c.do("ftruncate 100", os.ftruncate, fd, 100)
    m = c.do("mmap 100", mmap.mmap, fd, 100, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    if got_value(m):
        c.do("resize to 10000", m.resize, 10000)
        m[9990:10000] = b"X" * 10
        m.flush()
        m.close()
    c.stat("size", c.p("f"))
    c.content("content", c.p("f"))
