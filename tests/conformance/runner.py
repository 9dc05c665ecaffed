"""Running one scenario on one side under a watchdog, and comparing the two sides' records:
the verdict line's detail (the first differing step, and how many more differ) and, with -v,
every step side by side."""

import os
import threading

from harness import Ctx, errname

TIMEOUT = int(os.environ.get("WS_POSIX_TIMEOUT", "60"))  # seconds, per scenario and side


def run_side(scn, base, side, on_hang=None):
    """Runs one scenario in base/s/NAME and returns its log. A request the view never answers
    cannot be interrupted by a signal, so a watchdog thread calls on_hang (which aborts the
    FUSE connection: the stuck call then fails with ENOTCONN) after TIMEOUT seconds."""
    root = os.path.join(base, b"s", scn.name.encode())
    c = Ctx(root, side)
    cwd = os.open(".", os.O_PATH)
    old_umask = os.umask(0o022)
    hung = threading.Event()

    def fire():
        hung.set()
        if on_hang:
            on_hang()
    dog = threading.Timer(TIMEOUT, fire)
    dog.daemon = True
    dog.start()
    try:
        scn.fn(c)
    except Exception as e:  # noqa: BLE001 - a crash is a recorded outcome like any other
        c.rec("(scenario)", "raised " + errname(e))
    finally:
        dog.cancel()
        c.close_all()
        os.umask(old_umask)
        os.fchdir(cwd)
        os.close(cwd)
    if hung.is_set():
        dog.join()  # on_hang has finished: the view is aborted before anyone remounts
        c.rec("(scenario)", "hung for %d s: the view's connection was aborted" % TIMEOUT)
    return c.log


def _step(log, i, missing):
    return log[i] if i < len(log) else missing


def first_diff(a, b_):
    for i in range(max(len(a), len(b_))):
        x = _step(a, i, ("<no step>", ""))
        y = _step(b_, i, ("<no step>", ""))
        if x != y:
            return i, x, y
    return None


def describe_diff(n_log, v_log):
    """None if the two records are the same, else the detail of the verdict line."""
    d = first_diff(n_log, v_log)
    if d is None:
        return None
    i, x, y = d
    detail = "step %d '%s': native=%s view=%s" % (i + 1, x[0], x[1], y[1])
    if y[0] != x[0]:
        detail = "step %d: native '%s'=%s, view '%s'=%s" % (i + 1, x[0], x[1], y[0], y[1])
    more = sum(1 for j in range(i + 1, max(len(n_log), len(v_log)))
               if _step(n_log, j, None) != _step(v_log, j, None))
    if more:
        detail += " (+%d more differing step%s)" % (more, "s" if more > 1 else "")
    return detail


def print_steps(n_log, v_log):
    """-v: both records step by step, '!' where they differ."""
    for j in range(max(len(n_log), len(v_log))):
        a = _step(n_log, j, ("", ""))
        bb = _step(v_log, j, ("", ""))
        mark = " " if a == bb else "!"
        print("   %s %-45s native=%s\n   %s %-45s view  =%s" % (
            mark, a[0][:45], a[1], mark, bb[0][:45], bb[1]))
