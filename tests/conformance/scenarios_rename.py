"""rename and renameat2: every pairing of file, directory, symlink and missing name as source and
target, real-tree directories moved with their contents, renames that are no-ops, open files
renamed, parent times and nlink, RENAME_NOREPLACE, RENAME_EXCHANGE and RENAME_WHITEOUT."""

import os

from harness import as_is
from libc import RENAME_EXCHANGE, RENAME_NOREPLACE, RENAME_WHITEOUT, renameat2
from scenario import CR, EX, RD, RW, WR, XFAIL_MERGED_DIR_NLINK, sc


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
    c.do("readlink", os.readlink, c.p("dir", "link2"), show=as_is)
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


@sc(xfail=XFAIL_MERGED_DIR_NLINK)
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
                                                      os.stat(c.p("dir2"))), show=as_is)
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
    c.do("EXCHANGE|WHITEOUT", renameat2, c.p("small.txt"), c.p("page.bin"),
         RENAME_WHITEOUT | RENAME_EXCHANGE)
    c.exists("intact", c.p("small.txt"))


@sc(xfail="RENAME_WHITEOUT (the flag overlayfs itself uses: it leaves a 0:0 character "
          "device at the old name) is not supported (EINVAL), as on most filesystems")
def t_renameat2_whiteout(c):
    c.do("RENAME_WHITEOUT", renameat2, c.p("small.txt"), c.p("w"), RENAME_WHITEOUT)
    c.stat("whiteout left behind", c.p("small.txt"))
    c.content("moved", c.p("w"))
