"""Directory listing: seed listings, listings after mixed changes, d_type and d_ino, readdir while
entries come and go (in a real-tree directory and in a new one), thousands of entries, rewind,
fsync of a directory, relative calls after chdir, a removed cwd."""

import hashlib
import os

from harness import as_is, kept_cwd, nstat
from scenario import CR, EX, RD, WR, sc


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
    c.do("d_type of seed", dtypes, show=as_is)

    def inos_match(path):
        bad = []
        for e in os.scandir(path):
            if e.inode() != os.lstat(e.path).st_ino:
                bad.append(e.name)
        return sorted(bad)
    c.do("d_ino == st_ino (lower)", inos_match, c.root, show=as_is)
    open(c.p("new"), "w").close()
    os.mkdir(c.p("newd"))
    with open(c.p("small.txt"), "a") as f:
        f.write("x")
    os.rename(c.p("page.bin"), c.p("page2.bin"))
    c.do("d_ino == st_ino (after changes)", inos_match, c.root, show=as_is)
    c.do("d_ino == st_ino (dir)", inos_match, c.p("dir"), show=as_is)


def _many(n, prefix="f"):
    """An extra for @sc: n empty lower files in many/, for listings the view must merge."""
    def extra(d):
        os.makedirs(os.path.join(d, "many"))
        for i in range(n):
            open(os.path.join(d, "many", "%s%04d" % (prefix, i)), "w").close()
    return extra


def scan_while_changing(d, at, change):
    """One scandir of d that calls change(entry) when the at-th entry comes, returning every
    name it gave. POSIX leaves open only whether names added or removed meanwhile show: every
    other name must show exactly once."""
    seen = []
    it = os.scandir(d)
    try:
        for i, e in enumerate(it):
            seen.append(e.name)
            if i == at:
                change(e)
    finally:
        it.close()
    return seen


@sc(extra=_many(300))
def t_readdir_while_modifying(c):
    d = c.p("many")
    pre = set(os.listdir(d))

    def walk():
        deleted = set()

        def change(e):
            for j in range(20):
                open(os.path.join(d, b"new%02d" % j), "w").close()
            for name in sorted(pre)[150:170]:
                os.unlink(os.path.join(d, name))
                deleted.add(name)
            if e.name not in deleted:
                os.unlink(os.path.join(d, e.name))
                deleted.add(e.name)
        seen = scan_while_changing(d, 5, change)
        kept = pre - deleted
        got = set(seen)
        return ("all kept entries seen=%s no duplicates=%s nothing invented=%s" % (
            kept <= got, len(seen) == len(got),
            got <= pre | {b"new%02d" % j for j in range(20)}))
    c.do("scandir with concurrent changes", walk, show=as_is)
    c.do("final listing", lambda: len(os.listdir(d)), show=as_is)
    c.ls("final names", d)


@sc()
def t_readdir_new_dir_while_modifying(c):
    d = c.p("n")
    os.mkdir(d)
    for i in range(300):
        open(os.path.join(d, b"f%04d" % i), "w").close()
    pre = set(os.listdir(d))

    def walk():
        def change(e):
            for name in sorted(pre)[200:250]:
                os.unlink(os.path.join(d, name))
            for j in range(30):
                open(os.path.join(d, b"g%02d" % j), "w").close()
        seen = scan_while_changing(d, 0, change)
        kept = pre - set(sorted(pre)[200:250])
        return "kept seen=%s no dups=%s" % (kept <= set(seen), len(seen) == len(set(seen)))
    c.do("scandir", walk, show=as_is)
    c.do("final count", lambda: len(os.listdir(d)), show=as_is)


@sc()
def t_rewinddir_sees_changes(c):
    fd = c.open("open dir", c.p("dir2"), RD | os.O_DIRECTORY)

    def listfd():
        os.lseek(fd, 0, os.SEEK_SET)
        return sorted(os.listdir(fd))
    c.do("list via fd", listfd, show=as_is)
    open(c.p("dir2", "new"), "w").close()
    os.unlink(c.p("dir2", "x.txt"))
    c.do("list via fd after rewind", listfd, show=as_is)


@sc()
def t_many_entries(c):
    d = c.p("many")
    c.do("mkdir", os.mkdir, d)

    def mk():
        for i in range(2000):
            os.close(os.open(os.path.join(d, b"entry-%05d" % i), WR | CR | EX, 0o644))
    c.do("create 2000", mk)
    c.do("listdir count", lambda: len(os.listdir(d)), show=as_is)
    c.do("names complete", lambda: sorted(os.listdir(d)) == sorted(b"entry-%05d" % i
                                                                 for i in range(2000)),
         show=as_is)
    c.stat("stat one", os.path.join(d, b"entry-01234"))

    def rm_half():
        for i in range(0, 2000, 2):
            os.unlink(os.path.join(d, b"entry-%05d" % i))
    c.do("unlink 1000", rm_half)
    c.do("count after", lambda: len(os.listdir(d)), show=as_is)


@sc(extra=_many(1000, "lower"))
def t_many_entries_lower(c):
    d = c.p("many")
    c.do("lower count", lambda: len(os.listdir(d)), show=as_is)

    def mix():
        for i in range(0, 1000, 3):
            os.unlink(os.path.join(d, b"lower%04d" % i))
        for i in range(500):
            open(os.path.join(d, b"upper%04d" % i), "w").close()
    c.do("delete 334 lower, add 500", mix)
    c.do("count", lambda: len(os.listdir(d)), show=as_is)
    c.do("names", lambda: hashlib.sha1(b"\n".join(sorted(os.listdir(d)))).hexdigest()[:12],
         show=as_is)


@sc()
def t_dir_fsync_and_readdir_dotdot(c):
    fd = c.open("open dir", c.p("dir"), RD | os.O_DIRECTORY)
    c.do("fsync dir", os.fsync, fd)
    c.do("stat dir/..", lambda: os.path.samestat(os.stat(c.p("dir", "..")), os.stat(c.root)),
         show=as_is)
    c.do("stat dir/sub/../a.txt", os.stat, c.p("dir", "sub", "..", "a.txt"), show=nstat)


@sc()
def t_chdir_relative_ops(c):
    with kept_cwd():
        c.do("chdir dir", os.chdir, c.p("dir"))
        c.content("relative read", b"a.txt")
        c.put("relative create", b"sub/rel", b"rel")
        c.do("relative rename", os.rename, b"sub/rel", b"rel2")
        c.ls("listing .", b".")
        c.do("chdir ..", os.chdir, b"..")
        c.ls("listing dir", b"dir")


@sc()
def t_rmdir_cwd(c):
    with kept_cwd():
        c.do("chdir emptydir", os.chdir, c.p("emptydir"))
        c.do("rmdir cwd", os.rmdir, c.p("emptydir"))
        c.do("listdir .", os.listdir, b".")
        c.open("create in removed cwd", b"f", WR | CR)
        c.do("stat .", os.stat, b".", show=nstat)
