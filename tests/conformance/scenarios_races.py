"""Several processes at once: O_CREAT|O_EXCL and lock races (link, mkdir, RENAME_NOREPLACE) in
which exactly one process may win each round, concurrent O_APPEND, concurrent copy-up of one
file, flock and lockf between processes. The view answers on several threads, so these catch
atomicity bugs that one process never meets."""

import errno
import fcntl
import os

from harness import as_is, collect, errname, run_parallel, spawn
from libc import RENAME_NOREPLACE, renameat2
from scenario import AP, CR, EX, RD, RW, WR, sc
from seed import BIG


def race_two(c, attempt, rounds, others_label):
    """Two processes call attempt(idx, round) for the same rounds at the same moment; an
    attempt that loses raises EEXIST. Records in how many rounds exactly one of them won and
    which other errors came up; returns the sets of rounds each won."""
    gate_r, gate_w = os.pipe()

    def worker(idx):
        # both wait on the gate, so the two loops overlap instead of running one after the
        # other (a fork takes longer than a round)
        os.close(gate_w)
        os.read(gate_r, 1)
        won, other = [], set()
        for i in range(rounds):
            try:
                attempt(idx, i)
                won.append(i)
            except OSError as e:
                if e.errno != errno.EEXIST:
                    other.add(errname(e))
        return "%s|%s" % (",".join(map(str, won)), ",".join(sorted(other)))
    kids = [spawn(worker, i) for i in range(2)]
    os.close(gate_r)
    os.write(gate_w, b"go")
    os.close(gate_w)
    results = [collect(*k) for k in kids]
    wins = [set(int(x) for x in r.split("|")[0].split(",") if x) for r in results]
    others = set()
    for r in results:
        others |= set(x for x in r.split("|")[1].split(",") if x)
    one = sum(1 for i in range(rounds) if (i in wins[0]) != (i in wins[1]))
    c.val("rounds with exactly one winner", "%d/%d" % (one, rounds))
    c.val(others_label, sorted(others))
    return wins


def _excl_race(c, sub, rounds=40):
    """O_CREAT|O_EXCL of the same names by two processes; the winner writes its index, which
    must be what the file holds afterwards."""
    d = c.p(sub)

    def create(idx, i):
        fd = os.open(os.path.join(d, b"race%03d" % i), WR | CR | EX, 0o644)
        os.write(fd, b"%d" % idx)
        os.close(fd)
    wins = race_two(c, create, rounds, "loser errors other than EEXIST")
    good = 0
    for i in range(rounds):
        try:
            with open(os.path.join(d, b"race%03d" % i), "rb") as f:
                data = f.read()
            if data == b"%d" % (0 if i in wins[0] else 1):
                good += 1
        except OSError:
            pass
    c.val("content written by the winner", "%d/%d" % (good, rounds))


@sc()
def t_excl_race_two_processes(c):
    os.mkdir(c.p("r"))
    _excl_race(c, "r")


@sc()
def t_excl_race_in_lower_dir(c):
    _excl_race(c, "dir/sub/deeper")


@sc()
def t_concurrent_append_two_processes(c):
    p = c.p("log")
    open(p, "w").close()

    def worker(idx):
        fd = os.open(p, WR | AP)
        for i in range(200):
            os.write(fd, b"%d:%03d\n" % (idx, i))
        os.close(fd)
        return "done"
    c.val("workers", run_parallel(worker, 2))
    with open(p, "rb") as f:
        lines = f.read().split(b"\n")[:-1]
    c.val("lines", len(lines))
    c.val("no torn lines", all(len(x) == 5 for x in lines))


@sc()
def t_concurrent_copyup_same_file(c):
    p = c.p("big.bin")

    def worker(idx):
        fd = os.open(p, RW)
        os.pwrite(fd, b"W%d" % idx, idx * 10)
        os.close(fd)
        return "ok"
    c.val("workers", run_parallel(worker, 4))
    with open(p, "rb") as f:
        data = f.read()
    c.val("all writes kept", [data[i * 10:i * 10 + 2] for i in range(4)])
    c.val("rest intact", data[40:] == BIG[40:])


@sc()
def t_flock_and_lockf(c):
    fd = c.open("open", c.p("small.txt"), RW)
    c.do("flock LOCK_EX", fcntl.flock, fd, fcntl.LOCK_EX)

    def other_process_tries(label, lock, flags):
        def attempt():
            f2 = os.open(c.p("small.txt"), flags)
            try:
                lock(f2, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return "got lock"
            except OSError as e:
                return errname(e)
        c.child(label, attempt)
    other_process_tries("other process flock NB", fcntl.flock, RD)
    c.do("flock LOCK_UN", fcntl.flock, fd, fcntl.LOCK_UN)
    other_process_tries("other process after unlock", fcntl.flock, RD)
    c.do("lockf F_LOCK", fcntl.lockf, fd, fcntl.LOCK_EX)
    other_process_tries("other process lockf NB", fcntl.lockf, RW)


def _lock_race(c, make_lock, rounds=30):
    """Two processes take the same 'lock' per round (link, mkdir, rename NOREPLACE): exactly
    one may win each."""
    os.mkdir(c.p("locks"))
    race_two(c, lambda idx, i: make_lock(c, idx, i), rounds, "errors other than EEXIST")
    c.do("locks present", lambda: len(os.listdir(c.p("locks"))), show=as_is)


def _link_lock(c, idx, i):
    tmp = c.p("locks", "tmp-%d-%d" % (idx, i))
    os.close(os.open(tmp, WR | CR | EX, 0o644))
    try:
        os.link(tmp, c.p("locks", "lock%03d" % i))
    finally:
        os.unlink(tmp)


def _mkdir_lock(c, idx, i):
    os.mkdir(c.p("locks", "lock%03d" % i))


def _rename_lock(c, idx, i):
    tmp = c.p("locks", "tmp-%d-%d" % (idx, i))
    os.close(os.open(tmp, WR | CR | EX, 0o644))
    try:
        renameat2(tmp, c.p("locks", "lock%03d" % i), RENAME_NOREPLACE)
    except OSError:
        os.unlink(tmp)
        raise


@sc()
def t_link_lock_race(c):
    _lock_race(c, _link_lock)


@sc()
def t_mkdir_lock_race(c):
    _lock_race(c, _mkdir_lock)


@sc()
def t_rename_noreplace_lock_race(c):
    _lock_race(c, _rename_lock)
