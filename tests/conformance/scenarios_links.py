"""link and symlink: hard links to real-tree and new files (nlink, one st_ino across names and
copy-ups), the real-tree hard pair, linkat with and without following; symlinks dangling,
relative, absolute, long and looping, and calls made through them."""

import os

from harness import as_is
from libc import linkat_follow
from scenario import AP, RD, TR, WR, XFAIL_LOWER_HARDLINKS_SPLIT, sc


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


@sc(xfail=XFAIL_LOWER_HARDLINKS_SPLIT)
def t_link_lower_pair_nlink(c):
    c.stat("hard1", c.p("hard1"))
    c.stat("hard2", c.p("hard2"))
    c.same_ino("pair shares ino", c.ino(c.p("hard1")), c.ino(c.p("hard2")))
    c.do("link hard1 -> hard3", os.link, c.p("hard1"), c.p("hard3"))
    c.stat("hard1 after", c.p("hard1"))
    c.stat("hard2 after", c.p("hard2"))
    c.stat("hard3", c.p("hard3"))
    c.same_ino("hard3 shares ino with hard2", c.ino(c.p("hard3")), c.ino(c.p("hard2")))


@sc(xfail=XFAIL_LOWER_HARDLINKS_SPLIT)
def t_hardlink_lower_write_shared(c):
    c.put("write via hard1", c.p("hard1"), b"changed\n", WR | TR)
    c.content("read hard2", c.p("hard2"))
    c.same_ino("still one ino", c.ino(c.p("hard1")), c.ino(c.p("hard2")))


@sc(xfail=XFAIL_LOWER_HARDLINKS_SPLIT)
def t_hardlink_lower_chmod_shared(c):
    c.do("chmod hard1 600", os.chmod, c.p("hard1"), 0o600)
    c.stat("hard2 mode", c.p("hard2"))


@sc()
def t_link_symlink(c):
    c.do("link symlink itself (no follow)", os.link, c.p("link"), c.p("l2"),
         follow_symlinks=False)
    c.stat("l2 is a symlink", c.p("l2"))
    c.do("readlink l2", os.readlink, c.p("l2"), show=as_is)
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
    c.do("readlink", os.readlink, c.p("s"), show=as_is)
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
    c.do("readlink", os.readlink, c.p("abs"), show=as_is)
    c.content("read through", c.p("abs"))
    c.do("symlink /nonexistent/x", os.symlink, "/nonexistent/x", c.p("abs2"))
    c.content("dangling absolute", c.p("abs2"))
    c.do("readlink lower abslink", os.readlink, c.p("abslink"), show=as_is)


@sc()
def t_readlink_lower(c):
    for n in ("link", "dangling", "abslink"):
        c.do("readlink " + n, os.readlink, c.p(n), show=as_is)
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
