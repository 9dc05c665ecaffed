"""Names and paths: 255- and 256-byte names, newlines, bytes that are not UTF-8 and other odd
characters (in new and in real-tree entries), 60-deep paths, relative paths past PATH_MAX."""

import os

from harness import as_is, errname, kept_cwd, nstat
from scenario import AP, CR, EX, WR, sc


@sc()
def t_long_names(c):
    n255, n256 = b"a" * 255, b"b" * 256
    c.put("create 255", c.p(n255), b"ok", WR | CR | EX)
    c.stat("stat 255", c.p(n255))
    c.open("create 256", c.p(n256), WR | CR)
    c.stat("stat 256", c.p(n256))
    c.do("mkdir 255", os.mkdir, c.p(b"d" * 255))
    c.do("mkdir 256", os.mkdir, c.p(b"d" * 256))
    c.do("rename to 256", os.rename, c.p(n255), c.p(n256))
    c.do("symlink 256", os.symlink, "x", c.p(n256))
    c.do("link 256", os.link, c.p("small.txt"), c.p(n256))
    c.do("unlink 256", os.unlink, c.p(n256))
    c.do("create 1100", os.open, c.p(b"c" * 1100), WR | CR)
    c.ls("listing", c.root)


@sc()
def t_weird_names(c):
    names = [b"new\nline", b"bad\xff\xfe", b" space ", b"-dash", b"tab\tx", b"\xe2\x98\x83",
             b"back\\slash", b"star*?", b"..."]
    for n in names:
        c.put("create %r" % n, c.p(n), n)
    c.ls("listing", c.root)
    for n in names:
        c.content("read %r" % n, c.p(n))
    c.do("rename newline name", os.rename, c.p(b"new\nline"), c.p(b"renamed\n"))
    c.do("mkdir non-utf8", os.mkdir, c.p(b"d\xff"))
    c.put("file in non-utf8 dir", c.p(b"d\xff", b"f\n"), b"x")
    c.ls("non-utf8 dir", c.p(b"d\xff"))
    c.do("unlink non-utf8", os.unlink, c.p(b"bad\xff\xfe"))
    c.ls("listing after", c.root)


def _weird_lower(d):
    for n in (b"lower\nnl", b"lower\xff", b"lower \xe2\x98\x83"):
        with open(os.path.join(d.encode(), n), "wb") as f:
            f.write(n)


@sc(extra=_weird_lower)
def t_weird_names_lower(c):
    c.do("listing", lambda: sorted(n for n in os.listdir(c.root) if n.startswith(b"lower")),
         show=as_is)
    for n in (b"lower\nnl", b"lower\xff", b"lower \xe2\x98\x83"):
        c.content("read %r" % n, c.p(n))
    c.put("append (copy-up)", c.p(b"lower\xff"), b"+", WR | AP)
    c.content("after", c.p(b"lower\xff"))
    c.do("rename", os.rename, c.p(b"lower\nnl"), c.p(b"x\ny"))
    c.do("unlink", os.unlink, c.p(b"lower \xe2\x98\x83"))
    c.do("listing after", lambda: sorted(os.listdir(c.root)), show=as_is)


@sc()
def t_deep_paths(c):
    parts = [b"level%02d" % i for i in range(60)]
    d = c.root
    ok = True
    for p in parts:
        d = d + b"/" + p
        try:
            os.mkdir(d)
        except OSError as e:
            c.rec("mkdir chain", errname(e))
            ok = False
            break
    if ok:
        c.rec("mkdir chain", "ok")
    c.put("file at depth 60", d + b"/leaf", b"deep")
    c.content("read", d + b"/leaf")
    c.stat("stat", d + b"/leaf")
    c.do("rename top of chain", os.rename, c.p(parts[0]), c.p(b"top"))
    c.content("read after rename", c.p(b"top", *parts[1:], b"leaf"))


@sc()
def t_path_max_relative(c):
    with kept_cwd():
        os.chdir(c.root)
        comp = b"p" * 200
        rel_ = b""
        for i in range(19):
            rel_ = rel_ + comp + b"/" if rel_ else comp + b"/"
            os.mkdir(rel_)
        c.do("len so far", lambda: len(rel_), show=as_is)
        c.put("create at ~3800 bytes", rel_ + b"f", b"x")
        c.do("mkdir past PATH_MAX", os.mkdir, rel_ + b"q" * 255)
        longp = rel_ + b"q" * 255 + b"/" + b"r" * 200
        c.do("open > 4096 bytes", os.open, longp, WR | CR)
        c.do("chdir deep then relative create", lambda: (os.chdir(rel_), os.mkdir(b"x" * 250),
                                                          os.chdir(b"x" * 250),
                                                          os.close(os.open(b"y", WR | CR))))
        c.do("stat relative", os.stat, b"y", show=nstat)
