"""Checks where two areas meet: setuid bits cleared by another user's write to real-tree files,
offsets past 4 GiB in a sparse file, mtime after an mmap write, recreating a subdirectory of an
emptied real-tree directory, a hard link outliving its real-tree original. Each crosses two
areas (credentials and copy-up, sparse files and 64-bit offsets, mmap and times, whiteouts and
mkdir, links and copy-up), so none belongs to one area's module alone."""

import mmap
import os

from harness import as_is, got_value
from libc import SEEK_DATA
from scenario import CR, RW, WR, sc


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
    c.do("SEEK_DATA from 1", os.lseek, fd, 1, SEEK_DATA, show=as_is)
    c.stat("stat", c.p("huge"))
    c.do("truncate to 4 GiB + 1", os.truncate, c.p("huge"), (4 << 30) + 1)
    c.stat("stat after", c.p("huge"))


@sc()
def t_mmap_write_updates_mtime(c):
    fd = c.open("open lower rw", c.p("page.bin"), RW)
    before = c.snap(c.p("page.bin"))
    m = c.do("mmap", mmap.mmap, fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    if got_value(m):
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
