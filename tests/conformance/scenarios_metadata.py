"""chmod, chown, utime, access and statvfs: mode and owner changes on real-tree files (a copy-up
for metadata alone must keep data, st_ino and mtime), setuid and setgid rules, times set exactly
or to now, permission checks as uid 65534, filesystem statistics."""

import os

from harness import errname, near_now, nstat
from libc import UTIME_NOW, UTIME_OMIT, utimensat
from scenario import CR, RD, WR, sc


# --- chmod / chown / utime ---------------------------------------------------------------------

@sc()
def t_chmod_lower_file(c):
    ino = c.ino(c.p("small.txt"))
    before = c.snap(c.p("small.txt"))
    c.do("chmod 0600", os.chmod, c.p("small.txt"), 0o600)
    c.stat("mode", c.p("small.txt"))
    c.times("mtime same, ctime advanced", c.p("small.txt"), before)
    c.same_ino("ino", ino, c.ino(c.p("small.txt")))
    c.content("content intact", c.p("small.txt"))
    c.do("chmod 07777", os.chmod, c.p("small.txt"), 0o7777)
    c.stat("all bits", c.p("small.txt"))
    c.do("chmod 0", os.chmod, c.p("small.txt"), 0)
    c.stat("no bits", c.p("small.txt"))


@sc()
def t_chmod_dir(c):
    c.do("chmod dir 0700", os.chmod, c.p("dir"), 0o700)
    c.attrs("dir mode", c.p("dir"))
    c.ls("still listable", c.p("dir"))
    c.do("chmod dir 1777", os.chmod, c.p("dir"), 0o1777)
    c.attrs("sticky", c.p("dir"))


@sc()
def t_chmod_symlink_nofollow(c):
    try:
        os.chmod(c.p("link"), 0o600, follow_symlinks=False)
        c.rec("lchmod", "ok")
    except NotImplementedError:
        c.rec("lchmod", "not implemented")
    except OSError as e:
        c.rec("lchmod", errname(e))
    c.stat("link", c.p("link"))
    c.stat("target", c.p("small.txt"))


@sc()
def t_fchmod_via_rdonly_fd(c):
    fd = c.open("open lower O_RDONLY", c.p("small.txt"), RD)
    c.do("fchmod 0640", os.fchmod, fd, 0o640)
    c.fstat("fstat", fd)
    c.stat("stat", c.p("small.txt"))
    c.read("read still works", fd, 100)


@sc()
def t_chown_lower_to_nobody(c):
    before = c.snap(c.p("small.txt"))
    c.do("chown 65534:65534", os.chown, c.p("small.txt"), 65534, 65534)
    c.stat("owner", c.p("small.txt"))
    c.times("ctime", c.p("small.txt"), before)
    c.do("chown gid only", os.chown, c.p("medium.bin"), -1, 65534)
    c.stat("gid only", c.p("medium.bin"))
    c.do("chown dir", os.chown, c.p("dir"), 65534, 0)
    c.attrs("dir owner", c.p("dir"))
    c.do("chown -1 -1", os.chown, c.p("page.bin"), -1, -1)
    c.stat("unchanged", c.p("page.bin"))


@sc()
def t_chown_symlink_nofollow(c):
    c.do("lchown link", os.lchown, c.p("link"), 65534, 65534)
    c.stat("link owner", c.p("link"))
    c.stat("target owner", c.p("small.txt"))
    c.do("chown through link", os.chown, c.p("link"), 123, 456)
    c.stat("target owner after", c.p("small.txt"))


@sc()
def t_chown_clears_setid(c):
    c.do("chmod 06755", os.chmod, c.p("exec.sh"), 0o6755)
    c.stat("mode before", c.p("exec.sh"))
    c.do("chown 65534", os.chown, c.p("exec.sh"), 65534, 65534)
    c.stat("mode after chown", c.p("exec.sh"))
    c.do("chmod 02755 dir", os.chmod, c.p("dir"), 0o2755)
    c.do("chown dir", os.chown, c.p("dir"), 65534, 65534)
    c.attrs("dir keeps setgid", c.p("dir"))


@sc()
def t_setgid_dir_inheritance(c):
    c.do("chown dir2 :65534", os.chown, c.p("dir2"), 0, 65534)
    c.do("chmod dir2 2775", os.chmod, c.p("dir2"), 0o2775)
    c.put("create in setgid dir", c.p("dir2", "f"), b"f")
    c.stat("file gid", c.p("dir2", "f"))
    c.do("mkdir in setgid dir", os.mkdir, c.p("dir2", "d"))
    c.attrs("subdir gid and setgid", c.p("dir2", "d"))


@sc()
def t_utime_ns(c):
    a, m = 1_000_000_123_456_789, 1_100_000_987_654_321
    before = c.snap(c.p("small.txt"))
    c.do("utime ns", os.utime, c.p("small.txt"), ns=(a, m))
    st = c.raw(c.p("small.txt"))
    c.val("atime as set", st.st_atime_ns == a)
    c.val("mtime as set", st.st_mtime_ns == m)
    c.times("ctime advanced", c.p("small.txt"), before, ("ctime",))
    c.do("utime negative ns", os.utime, c.p("medium.bin"), ns=(-10**9, -1))
    st = c.raw(c.p("medium.bin"))
    c.val("negative times", (st.st_atime_ns, st.st_mtime_ns))


@sc()
def t_utime_now(c):
    c.do("set old times", os.utime, c.p("small.txt"), ns=(10**18, 10**18))
    before = c.snap(c.p("small.txt"))
    c.do("utime(None) = now", os.utime, c.p("small.txt"))
    st = c.raw(c.p("small.txt"))
    c.val("atime near now", near_now(st.st_atime_ns))
    c.val("mtime near now", near_now(st.st_mtime_ns))
    c.times("ctime", c.p("small.txt"), before, ("ctime",))


@sc()
def t_utimensat_now_omit(c):
    c.do("set known", os.utime, c.p("small.txt"), ns=(10**18, 2 * 10**18))
    c.do("atime OMIT, mtime NOW", utimensat, c.p("small.txt"), UTIME_OMIT, UTIME_NOW)
    st = c.raw(c.p("small.txt"))
    c.val("atime kept", st.st_atime_ns == 10**18)
    c.val("mtime now", near_now(st.st_mtime_ns))
    c.do("set known again", os.utime, c.p("small.txt"), ns=(10**18, 2 * 10**18))
    c.do("atime NOW, mtime OMIT", utimensat, c.p("small.txt"), UTIME_NOW, UTIME_OMIT)
    st = c.raw(c.p("small.txt"))
    c.val("atime now", near_now(st.st_atime_ns))
    c.val("mtime kept", st.st_mtime_ns == 2 * 10**18)
    before = c.snap(c.p("medium.bin"))
    c.do("both OMIT on lower", utimensat, c.p("medium.bin"), UTIME_OMIT, UTIME_OMIT)
    c.times("both OMIT changes nothing", c.p("medium.bin"), before, ("mtime", "ctime", "atime"))
    c.do("bad nsec", utimensat, c.p("small.txt"), (0, 2 * 10**9), UTIME_OMIT)


@sc()
def t_utime_symlink_nofollow(c):
    t = c.raw(c.p("small.txt"))
    c.do("utime link nofollow", os.utime, c.p("link"), ns=(5 * 10**17, 6 * 10**17),
         follow_symlinks=False)
    st = c.raw(c.p("link"))
    c.val("link mtime as set", st.st_mtime_ns == 6 * 10**17)
    c.val("target mtime unchanged", c.raw(c.p("small.txt")).st_mtime_ns == t.st_mtime_ns)
    c.do("utime through link", os.utime, c.p("link"), ns=(7 * 10**17, 8 * 10**17))
    c.val("target mtime set", c.raw(c.p("small.txt")).st_mtime_ns == 8 * 10**17)


@sc()
def t_utime_dir(c):
    c.do("utime dir", os.utime, c.p("dir"), ns=(3 * 10**17, 4 * 10**17))
    st = c.raw(c.p("dir"))
    c.val("dir mtime as set", st.st_mtime_ns == 4 * 10**17)
    c.ls("contents intact", c.p("dir"))
    before = c.snap(c.p("dir"))
    c.put("create in dir", c.p("dir", "n"), b"")
    c.times("mtime advanced after create", c.p("dir"), before)


@sc()
def t_futimens_rdonly_fd(c):
    fd = c.open("open lower O_RDONLY", c.p("page.bin"), RD)
    c.do("futimes", os.utime, fd, ns=(10**17, 2 * 10**17))
    c.val("mtime set", c.raw(c.p("page.bin")).st_mtime_ns == 2 * 10**17)
    c.content("content intact", c.p("page.bin"))


# --- access ------------------------------------------------------------------------------------

@sc()
def t_access_root(c):
    for n in ("small.txt", "exec.sh", "readonly.txt", "dir", "link", "dangling", "nope"):
        for m, mn in ((os.F_OK, "F"), (os.R_OK, "R"), (os.W_OK, "W"), (os.X_OK, "X")):
            c.val("access %s %s" % (n, mn), os.access(c.p(n), m))
    c.do("chmod small 0", os.chmod, c.p("small.txt"), 0)
    c.val("root R on mode 0", os.access(c.p("small.txt"), os.R_OK))
    c.val("root X on mode 0", os.access(c.p("small.txt"), os.X_OK))


@sc()
def t_access_nobody(c):
    def body(d):
        out = []
        for n in ("small.txt", "exec.sh", "readonly.txt", "dir", "nope"):
            for m, mn in ((os.R_OK, "R"), (os.W_OK, "W"), (os.X_OK, "X")):
                out.append("%s:%s=%s" % (n, mn, os.access(n, m, dir_fd=d)))
        return " ".join(out)
    c.as_nobody("access as 65534", body)


def attempts(steps, show_text=False):
    """Runs a child's (what, fn) steps to the end, failures included, as "what:ok" or
    "what:ERRNO" (with show_text, a str result follows the ok). An int result is an fd the
    step opened, closed at once."""
    out = []
    for what, fn in steps:
        try:
            r = fn()
            if isinstance(r, int):
                os.close(r)
            out.append("%s:ok %s" % (what, r if isinstance(r, str) else "") if show_text
                       else what + ":ok")
        except OSError as e:
            out.append(what + ":" + errname(e))
    return out


@sc()
def t_perm_nobody_write_denied(c):
    def body(d):
        return " ".join(attempts((
            ("open readonly.txt w", lambda: os.open("readonly.txt", WR, dir_fd=d)),
            ("open small.txt w", lambda: os.open("small.txt", WR, dir_fd=d)),
            ("open small.txt r", lambda: os.open("small.txt", RD, dir_fd=d)),
            ("create in root-owned dir", lambda: os.open("new", WR | CR, 0o644, dir_fd=d)),
            ("unlink in root-owned dir", lambda: os.unlink("small.txt", dir_fd=d)),
            ("mkdir", lambda: os.mkdir("nd", dir_fd=d)),
            ("chmod not owner", lambda: os.chmod("small.txt", 0o777, dir_fd=d)),
            ("utime now not owner", lambda: os.utime("small.txt", dir_fd=d)),
            ("rename", lambda: os.rename("small.txt", "x", src_dir_fd=d, dst_dir_fd=d)))))
    c.as_nobody("as 65534", body)
    c.exists("small.txt still there", c.p("small.txt"))


@sc()
def t_perm_nobody_owned_dir(c):
    c.do("chown dir2 to 65534", os.chown, c.p("dir2"), 65534, 65534)
    c.do("chmod dir 0700", os.chmod, c.p("dir"), 0o700)

    def body(d):
        return " | ".join(attempts((
            ("create in own dir", lambda: os.open("dir2/n", WR | CR, 0o600, dir_fd=d)),
            ("stat own file", lambda: nstat(os.stat("dir2/n", dir_fd=d))),
            ("unlink root's file in own dir", lambda: os.unlink("dir2/x.txt", dir_fd=d)),
            ("list 0700 root dir", lambda: os.listdir(os.open("dir", RD, dir_fd=d))),
            ("stat in 0700 root dir", lambda: os.stat("dir/a.txt", dir_fd=d)),
            ("chmod own file", lambda: os.chmod("dir2/n", 0o644, dir_fd=d))), show_text=True))
    c.as_nobody("as 65534", body)
    c.ls("dir2", c.p("dir2"))


@sc()
def t_perm_sticky_dir(c):
    c.do("chmod dir2 1777", os.chmod, c.p("dir2"), 0o1777)

    def body(d):
        return " ".join(attempts((
            ("unlink root's file in sticky dir", lambda: os.unlink("dir2/x.txt", dir_fd=d)),
            ("create own", lambda: os.open("dir2/mine", WR | CR, 0o644, dir_fd=d)),
            ("unlink own", lambda: os.unlink("dir2/mine", dir_fd=d)))))
    c.as_nobody("as 65534", body)


# --- statvfs -----------------------------------------------------------------------------------

@sc()
def t_statvfs_sanity(c):
    def check(v):
        return ("bsize>0=%s frsize>0=%s blocks>0=%s bfree<=blocks=%s bavail<=bfree=%s "
                "files>0=%s ffree<=files=%s namemax=%d" % (
                    v.f_bsize > 0, v.f_frsize > 0, v.f_blocks > 0, v.f_bfree <= v.f_blocks,
                    v.f_bavail <= v.f_bfree, v.f_files > 0, v.f_ffree <= v.f_files,
                    v.f_namemax))
    c.do("statvfs root", os.statvfs, c.root, show=check)
    fd = c.open("open", c.p("small.txt"), RD)
    c.do("fstatvfs", os.fstatvfs, fd, show=check)
    c.do("statvfs missing", os.statvfs, c.p("nope"))
