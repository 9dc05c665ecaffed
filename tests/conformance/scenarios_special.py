"""FIFOs, AF_UNIX sockets and mknod: data through a FIFO and through sockets bound in the view,
their rename, chmod and link, and device nodes (made by root outside ws run, never opened
through the view: it is mounted nodev)."""

import os
import socket
import stat

from harness import as_is, got_value, kept_cwd
from scenario import RD, WR, XFAIL_DEVICE_NODES, sc


@sc()
def t_mkfifo(c):
    c.do("mkfifo", os.mkfifo, c.p("fifo"), 0o640)
    c.stat("stat", c.p("fifo"))
    r = c.open("open read nonblock", c.p("fifo"), RD | os.O_NONBLOCK)
    w = c.open("open write nonblock", c.p("fifo"), WR | os.O_NONBLOCK)
    c.write("write", w, b"through the pipe")
    c.read("read", r, 100)
    c.do("mkfifo existing", os.mkfifo, c.p("fifo"))
    c.do("mkfifo over lower file", os.mkfifo, c.p("small.txt"))
    c.do("mknod S_IFIFO", os.mknod, c.p("fifo2"), stat.S_IFIFO | 0o600)
    c.stat("fifo2", c.p("fifo2"))
    c.open("open write nonblock without reader", c.p("fifo2"), WR | os.O_NONBLOCK)


@sc()
def t_fifo_rename_and_chmod(c):
    c.do("mkfifo", os.mkfifo, c.p("dir", "fifo"))
    c.do("rename fifo", os.rename, c.p("dir", "fifo"), c.p("dir2", "fifo"))
    c.do("chmod fifo", os.chmod, c.p("dir2", "fifo"), 0o600)
    c.stat("stat", c.p("dir2", "fifo"))
    c.do("link fifo", os.link, c.p("dir2", "fifo"), c.p("fifo-link"))
    c.stat("nlink", c.p("fifo-link"))


@sc()
def t_socket_bind_connect(c):
    srv = cl = conn = None

    def one_shot(label, call, name):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.do(label, getattr(s, call), name)
        s.close()
    # relative names, so both sides bind the same address whatever the length of their paths
    # (an AF_UNIX address holds at most 107 bytes)
    with kept_cwd():
        try:
            os.chdir(c.root)
            srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.do("bind", srv.bind, b"sock")
            c.do("listen", srv.listen, 1)
            c.stat("stat socket", c.p("sock"))
            cl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.do("connect", cl.connect, b"sock")
            conn = c.do("accept", lambda: srv.accept()[0])
            c.do("send", cl.sendall, b"ping")
            c.do("recv", conn.recv, 10, show=as_is)
            one_shot("bind existing", "bind", b"sock")
            one_shot("connect to regular file", "connect", b"small.txt")
            one_shot("connect to missing", "connect", b"nope")
            c.do("rename socket", os.rename, b"sock", b"dir/sock2")
            one_shot("connect via new name", "connect", b"dir/sock2")
            c.do("unlink socket", os.unlink, b"dir/sock2")
        finally:
            for s in (conn, cl, srv):
                if got_value(s):
                    s.close()


@sc()
def t_socket_dgram(c):
    a = bb = None
    with kept_cwd():
        try:
            os.chdir(c.p("dir"))
            a = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            bb = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            c.do("bind a", a.bind, b"a.sock")
            c.do("bind b", bb.bind, b"b.sock")
            c.do("sendto a", bb.sendto, b"dgram", b"a.sock")
            c.do("recvfrom", lambda: a.recvfrom(100)[0], show=as_is)
        finally:
            for s in (a, bb):
                if s is not None:
                    s.close()


@sc()
def t_mknod_char_device(c):
    c.do("mknod char 1:3", os.mknod, c.p("null"), stat.S_IFCHR | 0o666, os.makedev(1, 3))
    c.stat("stat", c.p("null"))
    c.do("mknod char in a real-tree dir", os.mknod, c.p("dir", "zero"), stat.S_IFCHR | 0o640,
         os.makedev(1, 5))
    c.stat("stat in real-tree dir", c.p("dir", "zero"))
    c.do("mknod char over a real-tree file", os.mknod, c.p("small.txt"), stat.S_IFCHR | 0o600,
         os.makedev(1, 3))


@sc()
def t_mknod_block_device(c):
    c.do("mknod block 7:0", os.mknod, c.p("loop"), stat.S_IFBLK | 0o600, os.makedev(7, 0))
    c.stat("stat", c.p("loop"))


@sc()
def t_mknod_device_metadata(c):
    """What the suites do with device nodes: make each kind, then chmod, chown, rename, link
    and unlink them; the times of their directory move as for any name."""
    before = c.snap(c.p("dir2"))
    c.do("mknod char", os.mknod, c.p("dir2", "c"), stat.S_IFCHR | 0o644, os.makedev(1, 7))
    c.do("mknod block", os.mknod, c.p("dir2", "b"), stat.S_IFBLK | 0o644, os.makedev(7, 1))
    c.times("dir2 times after mknod", c.p("dir2"), before)
    c.do("chmod char 0600", os.chmod, c.p("dir2", "c"), 0o600)
    c.do("chown char 65534", os.chown, c.p("dir2", "c"), 65534, 65534)
    c.do("rename block", os.rename, c.p("dir2", "b"), c.p("dir", "b"))
    c.do("link char", os.link, c.p("dir2", "c"), c.p("c2"))
    c.stat("char after chmod, chown, link", c.p("dir2", "c"))
    c.stat("renamed block", c.p("dir", "b"))
    c.do("unlink char", os.unlink, c.p("dir2", "c"))
    c.stat("other name", c.p("c2"))
    c.ls("dir2", c.p("dir2"))


@sc()
def t_mknod_device_as_other_user(c):
    def mk(d):
        try:
            os.mknod("dir/nope", stat.S_IFCHR | 0o666, os.makedev(1, 3), dir_fd=d)
            return "ok"
        except OSError as e:
            return e.strerror
    c.do("others may write dir", os.chmod, c.p("dir"), 0o777)
    c.as_nobody("mknod char as uid 65534", mk)
    c.exists("nothing made", c.p("dir", "nope"))


@sc(xfail=XFAIL_DEVICE_NODES)
def t_mknod_device_open(c):
    c.do("mknod char 1:3", os.mknod, c.p("null"), stat.S_IFCHR | 0o666, os.makedev(1, 3))
    fd = c.open("open it for writing", c.p("null"), WR)
    if fd is not None:
        c.write("write to it", fd, b"gone")


@sc()
def t_mknod_regular_and_errors(c):
    c.do("mknod S_IFREG", os.mknod, c.p("reg"), stat.S_IFREG | 0o640)
    c.stat("stat", c.p("reg"))
    c.do("mknod existing", os.mknod, c.p("small.txt"), stat.S_IFREG | 0o640)
    c.do("mknod type 0 (regular)", os.mknod, c.p("reg0"), 0o600)
    c.stat("stat reg0", c.p("reg0"))
    c.do("mknod S_IFSOCK", os.mknod, c.p("sock"), stat.S_IFSOCK | 0o600)
    c.stat("stat sock", c.p("sock"))
    c.do("mknod bad type", os.mknod, c.p("bad"), 0o170000 | 0o600)
