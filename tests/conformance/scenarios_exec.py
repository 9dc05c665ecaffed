"""exec: a real-tree script and a new one, chmod -x, and ETXTBSY both ways (exec of a file open for
write, a write to a running binary)."""

import os
import shutil
import subprocess
import time

from harness import as_is
from scenario import WR, sc


@sc()
def t_exec_files(c):
    def run(path):
        r = subprocess.run([path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           timeout=20)
        return (r.returncode, r.stdout)
    c.do("exec lower script", run, c.p("exec.sh"), show=as_is)
    c.do("exec non-executable", run, c.p("small.txt"))
    c.put("write new script", c.p("n.sh"), b"#!/bin/sh\necho new\n", mode=0o755)
    c.do("exec new script", run, c.p("n.sh"), show=as_is)
    c.do("chmod -x lower script", os.chmod, c.p("exec.sh"), 0o644)
    c.do("exec after chmod -x", run, c.p("exec.sh"))


@sc()
def t_exec_while_open_for_write(c):
    shutil.copyfile("/bin/true", c.p("true"))
    os.chmod(c.p("true"), 0o755)
    fd = c.open("open for write", c.p("true"), WR)

    def run():
        return subprocess.run([c.p("true")], timeout=20).returncode
    c.do("exec while open for write", run, show=as_is)
    c.close(fd, "close")
    c.do("exec after close", run, show=as_is)
    # writing to a running binary: ETXTBSY
    shutil.copyfile("/bin/sleep", c.p("sleep"))
    os.chmod(c.p("sleep"), 0o755)
    proc = subprocess.Popen([c.p("sleep"), "5"])
    time.sleep(0.3)
    c.open("open running binary for write", c.p("sleep"), WR)
    proc.kill()
    proc.wait()
