"""stat and identity: stat of every seed object, st_ino unique and stable across copy-ups, fstat
and stat around close, stat after another process appends, empty paths and '.', and the
write-a-temp-then-rename patterns of git and editors."""

import os

from scenario import CR, EX, RD, RW, WR, sc


@sc()
def t_stat_seed(c):
    for n in ("empty", "small.txt", "page.bin", "medium.bin", "big.bin", "sparse.bin", "exec.sh",
              "readonly.txt", "hard1", "hard2", "link", "dangling", "abslink", "dir", "dir/sub",
              "dir/sub/deeper", "dir/sub/deeper/c.txt", "dir2", "emptydir", "xattr.txt"):
        c.stat("lstat " + n, c.p(n))
    c.stat("stat link (follow)", c.p("link"), follow=True)
    c.stat("stat root", c.root)


@sc()
def t_ino_unique_and_stable(c):
    names = ["empty", "small.txt", "page.bin", "medium.bin", "hard1", "hard2", "link", "dir",
             "dir/sub", "dir2", "emptydir", "exec.sh"]
    inos = {n: c.ino(c.p(n)) for n in names}
    c.val("distinct except the hard pair", len(set(inos.values())) == len(names) - 1)
    c.same_ino("hard pair shares", inos["hard1"], inos["hard2"])
    for n in ("small.txt", "page.bin"):
        with open(c.p(n), "ab") as f:
            f.write(b"+")
    os.chmod(c.p("empty"), 0o600)
    open(c.p("dir", "new"), "w").close()
    for n in names:
        c.same_ino("after copy-ups: " + n, inos[n], c.ino(c.p(n)))
    fd = os.open(c.p("medium.bin"), RD)
    c.val("fstat ino == stat ino", os.fstat(fd).st_ino == c.ino(c.p("medium.bin")))
    os.close(fd)


@sc()
def t_ino_new_files_distinct(c):
    for i in range(20):
        open(c.p("n%d" % i), "w").close()
    inos = [c.ino(c.p("n%d" % i)) for i in range(20)]
    seed = [c.ino(c.p(n)) for n in ("empty", "small.txt", "dir", "page.bin")]
    c.val("new inos distinct", len(set(inos)) == 20)
    c.val("new inos differ from seed inos", not (set(inos) & set(seed)))
    c.val("stable on second stat", inos == [c.ino(c.p("n%d" % i)) for i in range(20)])


@sc()
def t_fstat_after_write_stat_after_close(c):
    fd = c.open("open lower rw", c.p("small.txt"), RW)
    c.pwrite("extend", fd, b"0123456789" * 10, 12)
    c.fstat("fstat", fd)
    c.stat("stat during", c.p("small.txt"))
    c.close(fd, "close")
    c.stat("stat after close", c.p("small.txt"))


@sc()
def t_stat_size_after_append_other_process(c):
    c.stat("before", c.p("small.txt"))

    def app():
        with open(c.p("small.txt"), "ab") as f:
            f.write(b"appended by child\n")
        return "ok"
    c.child("child appends", app)
    c.stat("after", c.p("small.txt"))
    c.content("content", c.p("small.txt"))


@sc()
def t_empty_path_and_dot(c):
    c.do("stat ''", os.stat, b"")
    c.stat("stat dir/.", c.p("dir", "."))
    c.do("mkdir .", os.mkdir, c.p("dir", "."))
    c.do("rename .", os.rename, c.p("dir", "."), c.p("x"))
    c.do("unlink .", os.unlink, c.p("dir", "."))
    c.do("create .", os.open, c.p("dir", "."), WR | CR)


@sc()
def t_git_like_lockfile_dance(c):
    # the pattern git, editors and package managers use: write a temp, fsync, rename over
    for i in range(5):
        p = c.p("small.txt.lock")
        fd = os.open(p, WR | CR | EX, 0o644)
        os.write(fd, b"version %d\n" % i)
        os.fsync(fd)
        os.close(fd)
        os.rename(p, c.p("small.txt"))
    c.content("final content", c.p("small.txt"))
    c.stat("stat", c.p("small.txt"))
    c.exists("no lock left", c.p("small.txt.lock"))
    c.ls("listing", c.root)


@sc()
def t_editor_backup_dance(c):
    # vim-style: rename original to backup, write new file, unlink backup
    c.do("rename to backup", os.rename, c.p("medium.bin"), c.p("medium.bin~"))
    c.put("write new", c.p("medium.bin"), b"edited", WR | CR | EX)
    c.do("copy mode", os.chmod, c.p("medium.bin"), 0o644)
    c.do("unlink backup", os.unlink, c.p("medium.bin~"))
    c.content("content", c.p("medium.bin"))
    c.ls("listing", c.root)
