"""Files and directories removed or renamed while open: read, write, ftruncate, fchmod and xattrs
through the fd of an unlinked file, unlink then recreate of the name, rmdir and rename of open
directories."""

import os

from harness import as_is
from scenario import CR, EX, RD, RW, WR, sc


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
    c.do("fgetxattr after unlink", os.getxattr, fd, b"user.x", show=as_is)


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
    c.do("listdir via fd", lambda: os.listdir(fd), show=as_is)
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
