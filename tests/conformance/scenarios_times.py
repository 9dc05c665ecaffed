"""mtime and ctime: of a file on write, read, chmod, truncate, xattr changes and link; of the
parent on create, unlink, mkdir, rmdir, rename, link and symlink; kept by copy-up. Compared as
relations (advanced, same), never as numbers."""

import os

from scenario import CR, RW, sc


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
