"""Extended attributes: user.* on new and real-tree files (a set copies the file up without
touching its data; copy-up keeps the seeded ones), XATTR_CREATE and XATTR_REPLACE, size limits,
directories and symlinks, fd calls. The namespaces a workspace does not keep (trusted.*,
security.*, POSIX ACLs) are expected differences."""

import os
import struct

from harness import as_is, summ
from libc import getxattr_sized
from scenario import AP, RD, WR, sc
from seed import pattern


@sc()
def t_xattr_user_new_file(c):
    c.put("create", c.p("f"), b"x")
    c.do("set user.a", os.setxattr, c.p("f"), b"user.a", b"1")
    c.do("set user.b", os.setxattr, c.p("f"), b"user.b", b"")
    c.do("get user.a", os.getxattr, c.p("f"), b"user.a", show=as_is)
    c.do("get user.b (empty)", os.getxattr, c.p("f"), b"user.b", show=as_is)
    c.do("list", os.listxattr, c.p("f"), show=sorted)
    c.do("remove user.a", os.removexattr, c.p("f"), b"user.a")
    c.do("list after remove", os.listxattr, c.p("f"), show=sorted)
    c.do("get removed", os.getxattr, c.p("f"), b"user.a")
    c.do("remove missing", os.removexattr, c.p("f"), b"user.zzz")


@sc()
def t_xattr_user_lower_copyup(c):
    ino = c.ino(c.p("small.txt"))
    before = c.snap(c.p("small.txt"))
    c.do("set on lower file", os.setxattr, c.p("small.txt"), b"user.k", b"v")
    c.do("get", os.getxattr, c.p("small.txt"), b"user.k", show=as_is)
    c.content("content intact", c.p("small.txt"))
    c.same_ino("ino", ino, c.ino(c.p("small.txt")))
    c.times("mtime same, ctime advanced", c.p("small.txt"), before)
    c.stat("stat", c.p("small.txt"))


@sc()
def t_xattr_seeded_lower(c):
    c.do("list seeded", os.listxattr, c.p("xattr.txt"), show=sorted)
    c.do("get seeded", os.getxattr, c.p("xattr.txt"), b"user.seed", show=as_is)
    c.put("write (copy-up)", c.p("xattr.txt"), b"more", WR | AP)
    c.do("kept after copy-up", os.getxattr, c.p("xattr.txt"), b"user.seed", show=as_is)
    c.do("remove seeded", os.removexattr, c.p("xattr.txt"), b"user.seed")
    c.do("list", os.listxattr, c.p("xattr.txt"), show=sorted)


@sc()
def t_xattr_flags(c):
    c.do("XATTR_REPLACE missing", os.setxattr, c.p("small.txt"), b"user.a", b"1",
         os.XATTR_REPLACE)
    c.do("XATTR_CREATE new", os.setxattr, c.p("small.txt"), b"user.a", b"1", os.XATTR_CREATE)
    c.do("XATTR_CREATE existing", os.setxattr, c.p("small.txt"), b"user.a", b"2",
         os.XATTR_CREATE)
    c.do("XATTR_REPLACE existing", os.setxattr, c.p("small.txt"), b"user.a", b"3",
         os.XATTR_REPLACE)
    c.do("get", os.getxattr, c.p("small.txt"), b"user.a", show=as_is)
    c.do("get missing", os.getxattr, c.p("medium.bin"), b"user.none")
    c.do("get on missing file", os.getxattr, c.p("nope"), b"user.a")


@sc()
def t_xattr_large_value(c):
    v = pattern(4000, b"xv")
    c.do("set 4000-byte value", os.setxattr, c.p("page.bin"), b"user.big", v)
    c.do("get", os.getxattr, c.p("page.bin"), b"user.big", show=summ)
    c.do("set 70000-byte value", os.setxattr, c.p("page.bin"), b"user.huge", b"x" * 70000)
    c.do("name of 255 bytes", os.setxattr, c.p("medium.bin"), b"user." + b"n" * 250, b"1")
    c.do("list", os.listxattr, c.p("medium.bin"), show=lambda r: [len(x) for x in r])
    c.do("name of 256 bytes", os.setxattr, c.p("medium.bin"), b"user." + b"n" * 251, b"1")
    rc, err = getxattr_sized(c.p("page.bin"), b"user.big", 4)
    c.val("getxattr with small buffer", rc if rc >= 0 else err)
    c.val("getxattr size query", getxattr_sized(c.p("page.bin"), b"user.big", 0)[0])


@sc()
def t_xattr_on_dir_and_symlink(c):
    c.do("set on lower dir", os.setxattr, c.p("dir"), b"user.d", b"dv")
    c.do("get on dir", os.getxattr, c.p("dir"), b"user.d", show=as_is)
    c.ls("dir contents intact", c.p("dir"))
    c.do("set on symlink (nofollow)", os.setxattr, c.p("link"), b"user.l", b"lv",
         follow_symlinks=False)
    c.do("list symlink (nofollow)", os.listxattr, c.p("link"), follow_symlinks=False,
         show=sorted)
    c.do("set through symlink", os.setxattr, c.p("link"), b"user.t", b"tv")
    c.do("get on target", os.getxattr, c.p("small.txt"), b"user.t", show=as_is)


@sc()
def t_xattr_fd_ops(c):
    fd = c.open("open lower O_RDONLY", c.p("medium.bin"), RD)
    c.do("fsetxattr on ro fd", os.setxattr, fd, b"user.fd", b"1")
    c.do("fgetxattr", os.getxattr, fd, b"user.fd", show=as_is)
    c.do("flistxattr", os.listxattr, fd, show=sorted)
    c.do("get via path", os.getxattr, c.p("medium.bin"), b"user.fd", show=as_is)


@sc()
def t_xattr_system_and_unknown(c):
    c.do("get security.selinux", os.getxattr, c.p("small.txt"), b"security.selinux")
    c.do("get system.posix_acl_access", os.getxattr, c.p("small.txt"),
         b"system.posix_acl_access")
    c.do("set unknown namespace", os.setxattr, c.p("small.txt"), b"bogus.x", b"1")
    c.do("set no namespace", os.setxattr, c.p("small.txt"), b"plain", b"1")


@sc(xfail="only user.* xattrs are kept; trusted.* is refused with EOPNOTSUPP, by design")
def t_xattr_trusted(c):
    c.do("set trusted.x", os.setxattr, c.p("small.txt"), b"trusted.x", b"1")
    c.do("get trusted.x", os.getxattr, c.p("small.txt"), b"trusted.x", show=as_is)
    c.do("list", os.listxattr, c.p("small.txt"), show=sorted)


@sc(xfail="only user.* xattrs are kept; security.* is refused with EOPNOTSUPP, by design")
def t_xattr_security(c):
    c.do("set security.x", os.setxattr, c.p("small.txt"), b"security.x", b"1")
    c.do("get security.x", os.getxattr, c.p("small.txt"), b"security.x", show=as_is)


@sc(xfail="POSIX ACLs are system.* xattrs, not kept in a workspace, by design")
def t_xattr_posix_acl(c):
    # version 2; ACL_USER_OBJ rw-, ACL_USER 65534 r--, ACL_GROUP_OBJ r--, ACL_MASK r--,
    # ACL_OTHER r--
    acl = struct.pack("<I", 2)
    for tag, perm, uid in ((1, 6, 0xFFFFFFFF), (2, 4, 65534), (4, 4, 0xFFFFFFFF),
                           (0x10, 4, 0xFFFFFFFF), (0x20, 4, 0xFFFFFFFF)):
        acl += struct.pack("<HHI", tag, perm, uid)
    c.do("set system.posix_acl_access", os.setxattr, c.p("small.txt"),
         b"system.posix_acl_access", acl)
    c.do("get", os.getxattr, c.p("small.txt"), b"system.posix_acl_access", show=len)
