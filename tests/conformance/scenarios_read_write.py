"""read, write and truncate: offsets at and past EOF, holes, vectored and zero-length I/O, large
writes, and what an fd opened before a copy-up sees afterwards (the view must send it to the
copy, as if there were one inode)."""

import os

from harness import as_is, summ
from libc import SEEK_DATA, SEEK_HOLE
from scenario import CR, EX, RD, RW, WR, sc
from seed import pattern


# --- read / write ------------------------------------------------------------------------------

@sc()
def t_read_all_seed_files(c):
    for n in ("empty", "small.txt", "page.bin", "medium.bin", "big.bin", "sparse.bin", "exec.sh",
              "readonly.txt", "hard1", "hard2", "link", "xattr.txt", "dir/sub/deeper/c.txt"):
        c.content(n, c.p(n))
    c.content("abslink -> /dev/null", c.p("abslink"))
    c.content("dangling", c.p("dangling"))


@sc()
def t_read_chunks(c):
    fd = c.open("open big", c.p("big.bin"), RD)
    got = []
    for _ in range(40):
        d = os.read(fd, 7919)
        if not d:
            break
        got.append(d)
    c.val("chunked read equals", summ(b"".join(got)))
    c.read("read at EOF", fd, 10)
    c.read("read at EOF again", fd, 10)


@sc()
def t_pread_offsets(c):
    fd = c.open("open medium", c.p("medium.bin"), RD)
    for off in (0, 1, 4095, 4096, 65535, 69990, 70000, 70001, 1 << 30):
        c.pread("pread 16 at %d" % off, fd, 16, off)
    c.do("offset untouched", os.lseek, fd, 0, os.SEEK_CUR, show=as_is)
    c.pread("pread negative", fd, 1, -1)


@sc()
def t_pwrite_middle_lower(c):
    ino = c.ino(c.p("medium.bin"))
    fd = c.open("open rw", c.p("medium.bin"), RW)
    c.pwrite("pwrite at 5000", fd, b"MIDDLE", 5000)
    c.pwrite("pwrite across page", fd, b"X" * 100, 4090)
    c.pread("read back", fd, 20, 4995)
    c.stat("size same", c.p("medium.bin"))
    c.content("content", c.p("medium.bin"))
    c.same_ino("ino same", ino, c.ino(c.p("medium.bin")))


@sc()
def t_pwrite_beyond_eof_hole(c):
    fd = c.open("open small rw", c.p("small.txt"), RW)
    c.pwrite("pwrite at 1 MiB", fd, b"tail", 1 << 20)
    c.fstat("fstat size", fd)
    c.pread("hole reads zeros", fd, 16, 100)
    c.pread("tail", fd, 16, (1 << 20) - 2)
    c.do("SEEK_DATA from 64k", os.lseek, fd, 65536, SEEK_DATA, show=as_is)
    c.do("SEEK_HOLE from 0", os.lseek, fd, 0, SEEK_HOLE, show=as_is)
    c.content("content", c.p("small.txt"))


@sc()
def t_write_new_sequential(c):
    fd = c.open("create", c.p("seq"), WR | CR | EX)
    for i in range(20):
        os.write(fd, b"line %d\n" % i)
    c.fstat("fstat", fd)
    c.do("lseek cur", os.lseek, fd, 0, os.SEEK_CUR, show=as_is)
    c.content("content", c.p("seq"))


@sc()
def t_write_read_same_fd(c):
    fd = c.open("O_RDWR lower", c.p("page.bin"), RW)
    c.write("write at 0", fd, b"HEAD")
    c.read("read continues at 4", fd, 8)
    c.do("lseek end", os.lseek, fd, 0, os.SEEK_END, show=as_is)
    c.write("write at end", fd, b"TAIL")
    c.do("lseek -8 from end", os.lseek, fd, -8, os.SEEK_END, show=as_is)
    c.read("read last 8", fd, 100)
    c.do("lseek before 0", os.lseek, fd, -1, os.SEEK_SET)
    c.content("content", c.p("page.bin"))


@sc()
def t_write_large(c):
    data = pattern(3 * (1 << 20) + 17, b"large")
    fd = c.open("create", c.p("large"), WR | CR)
    c.write("write 3 MiB", fd, data)
    c.close(fd, "close")
    c.content("read back", c.p("large"))
    c.stat("stat", c.p("large"))


@sc()
def t_readv_writev(c):
    fd = c.open("open rw", c.p("page.bin"), RW)
    c.do("writev", os.writev, fd, [b"aa", b"bbb", b"", b"cccc"], show=as_is)
    c.do("lseek 0", os.lseek, fd, 0, os.SEEK_SET)
    bufs = [bytearray(3), bytearray(5), bytearray(4)]
    c.do("readv", os.readv, fd, bufs, show=as_is)
    c.val("buffers", [bytes(x) for x in bufs])
    c.do("preadv at 4090", os.preadv, fd, [bytearray(4), bytearray(10)], 4090,
         show=as_is)
    c.do("pwritev at 4095", os.pwritev, fd, [b"X", b"YZ"], 4095, show=as_is)
    c.content("content", c.p("page.bin"))


@sc()
def t_write_zero_length(c):
    before = c.snap(c.p("small.txt"))
    fd = c.open("open lower rw", c.p("small.txt"), RW)
    c.write("write 0 bytes", fd, b"")
    c.stat("stat", c.p("small.txt"))
    c.times("zero write does not move mtime", c.p("small.txt"), before, ("mtime",))


@sc()
def t_read_sees_other_fd_write(c):
    r = c.open("open lower read-only first", c.p("medium.bin"), RD)
    c.pread("read before", r, 8, 0)
    w = c.open("open rw (copy-up)", c.p("medium.bin"), RW)
    c.pwrite("write via second fd", w, b"CHANGED!", 0)
    c.pread("read via first fd", r, 8, 0)
    c.fstat("fstat first fd", r)
    c.pwrite("append via second fd", w, b"++", 70000)
    c.pread("first fd sees growth", r, 8, 69996)


@sc()
def t_read_after_other_fd_truncate(c):
    r = c.open("open lower read-only", c.p("big.bin"), RD)
    c.do("truncate path to 10", os.truncate, c.p("big.bin"), 10)
    c.pread("read first fd", r, 32, 0)
    c.fstat("fstat first fd", r)


@sc()
def t_sendfile_copy_file_range(c):
    src = c.open("open src", c.p("medium.bin"), RD)
    dst = c.open("open dst", c.p("copy1"), WR | CR)
    c.do("copy_file_range", os.copy_file_range, src, dst, 70000, 0, 0, show=as_is)
    c.content("copy1", c.p("copy1"))
    dst2 = c.open("open dst2", c.p("copy2"), WR | CR)
    c.do("sendfile", os.sendfile, dst2, src, 100, 5000, show=as_is)
    c.content("copy2", c.p("copy2"))


@sc()
def t_read_dir_eisdir(c):
    fd = c.open("open dir", c.p("dir"), RD | os.O_DIRECTORY)
    c.read("read", fd, 10)
    c.pread("pread", fd, 10, 0)
    c.content("open()+read on dir", c.p("dir"))


# --- truncate ----------------------------------------------------------------------------------

@sc()
def t_ftruncate_grow_lower(c):
    ino = c.ino(c.p("small.txt"))
    fd = c.open("open rw", c.p("small.txt"), RW)
    c.do("ftruncate to 10000", os.ftruncate, fd, 10000)
    c.fstat("fstat", fd)
    c.pread("zeros", fd, 8, 5000)
    c.content("content", c.p("small.txt"))
    c.same_ino("ino", ino, c.ino(c.p("small.txt")))


@sc()
def t_ftruncate_shrink_lower(c):
    fd = c.open("open rw", c.p("big.bin"), RW)
    c.do("ftruncate to 1000", os.ftruncate, fd, 1000)
    c.fstat("fstat", fd)
    c.pread("read past new end", fd, 10, 995)
    c.do("ftruncate grow back", os.ftruncate, fd, 2000)
    c.pread("regrown part is zero", fd, 10, 1000)
    c.content("content", c.p("big.bin"))


@sc()
def t_truncate_path(c):
    before = c.snap(c.p("page.bin"))
    c.do("truncate page.bin 100", os.truncate, c.p("page.bin"), 100)
    c.stat("stat", c.p("page.bin"))
    c.times("times", c.p("page.bin"), before)
    c.do("truncate empty 5000", os.truncate, c.p("empty"), 5000)
    c.content("empty grown", c.p("empty"))
    c.do("truncate via symlink", os.truncate, c.p("link"), 3)
    c.content("small through link", c.p("small.txt"))
    c.do("truncate negative", os.truncate, c.p("empty"), -1)
    c.do("truncate missing", os.truncate, c.p("missing"), 0)
    c.do("truncate dir", os.truncate, c.p("dir"), 0)


@sc()
def t_truncate_new_to_zero(c):
    c.put("create", c.p("n"), b"0123456789")
    c.do("truncate 0", os.truncate, c.p("n"), 0)
    c.stat("stat", c.p("n"))
    c.do("truncate same size", os.truncate, c.p("n"), 0)


@sc()
def t_ftruncate_rdonly_fd(c):
    fd = c.open("O_RDONLY", c.p("small.txt"), RD)
    c.do("ftruncate on read-only fd", os.ftruncate, fd, 0)
    c.stat("unchanged", c.p("small.txt"))


@sc()
def t_truncate_readonly_file_as_root(c):
    c.do("truncate 0444 file as root", os.truncate, c.p("readonly.txt"), 4)
    c.content("content", c.p("readonly.txt"))
    c.open("open 0444 for write as root", c.p("readonly.txt"), WR)
    c.stat("mode kept", c.p("readonly.txt"))
