"""One computation in a forked child while the caller goes on (stdlib only, Python 3.9).

Why: the host probe's identifier index of the target (`closure.token_index`, ~0.15 s over
vLLM 0.16.0) was built after the closure's rounds, on one core, while parse workers sat idle
before and the other core was idle during the closure's in-process first round. Its
literals are almost all known before the closure (the consumer's names, the rule packs'
words), so it is built beside the closure and read back when the searches begin.
"""

import gc
import marshal
import os
import select
import signal
import time


class Pending:
    """A child computing one value; `result()` reads it back (once)."""

    def __init__(self, pid, fd):
        self.pid, self.fd = pid, fd

    def result(self, stop=None, grace=2.0):
        """The child's value, or None when it failed (the caller then computes it itself).

        `stop` (anything with `is_set()`): once set while the child runs, the child gets
        SIGTERM, and SIGKILL `grace` seconds later if it has not ended; the result is None."""
        if self.fd is None:
            return None
        parts, stopped_at = [], None
        try:
            while True:
                if stop is not None:
                    if stopped_at is None and stop.is_set():
                        stopped_at = time.monotonic()
                        self._signal(signal.SIGTERM)
                    if stopped_at is not None and time.monotonic() - stopped_at > grace:
                        self._signal(signal.SIGKILL)
                        break
                    if not select.select([self.fd], [], [], 0.05)[0]:
                        continue
                part = os.read(self.fd, 1 << 20)
                if not part:
                    break
                parts.append(part)
        except OSError:
            parts = []
        ok = self._reap()
        if stopped_at is not None or not ok or not parts:
            return None
        try:
            return marshal.loads(b"".join(parts))
        except (ValueError, EOFError, TypeError):
            return None

    def close(self):
        """End the child if its value was never read (the caller met an error meanwhile)."""
        if self.fd is None:
            return
        self._signal(signal.SIGKILL)
        self._reap()

    def _signal(self, sig):
        try:
            os.kill(self.pid, sig)
        except OSError:
            pass

    def _reap(self):
        fd, self.fd = self.fd, None
        try:
            os.close(fd)
        except OSError:
            pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except OSError:
            return False
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def fork(work, *, pipe_size=None):
    """(pid, read end) of a forked child running `work(write end)`, which exits 0 when `work`
    returns and 1 when it raises (never a traceback, never back into the caller); None where
    there is no fork or no pipe. `pipe_size`: the pipe's buffer asked of Linux (F_SETPIPE_SZ),
    so a child writing that much never waits for its reader."""
    if not hasattr(os, "fork"):
        return None
    try:
        r, w = os.pipe()
    except OSError:
        return None
    if pipe_size:
        try:
            import fcntl

            fcntl.fcntl(w, _F_SETPIPE_SZ, pipe_size)
        except (ImportError, OSError):
            pass  # the default buffer: the child then waits for its reader, which is only slower
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(r)
            work(w)
            code = 0
        except BaseException:  # noqa: BLE001 - a failed child says so by its exit code alone
            pass
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


_F_SETPIPE_SZ = 1031  # Linux fcntl


def start(fn, *args):
    """`fn(*args)` in a forked child, its value (which marshal must write) read back by
    `Pending.result()`; None where there is no fork (the caller computes it itself)."""
    def work(w):
        gc.disable()
        view = memoryview(marshal.dumps(fn(*args)))
        while view:
            view = view[os.write(w, view):]

    child = fork(work)
    return None if child is None else Pending(*child)


def cpus():
    """The CPUs this process may run on: how many forked workers are worth starting."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def lower_priority(nice, session=False):
    """This process niced by `nice`, and its session's scheduling group weighted the same
    (`/proc/self/autogroup`): Linux shares the CPU evenly between sessions before nice values
    count, so a niced process beside work in another session (an SSH channel, a local probe)
    yields nothing by nice alone. `session`: first start a session of its own, so the weight
    is this process's alone (a forked child; a probe is already alone in its channel's)."""
    if session:
        try:
            os.setsid()
        except OSError:
            pass
    try:
        os.nice(nice)
    except (AttributeError, OSError):
        pass
    try:
        with open("/proc/self/autogroup", "w") as fh:
            fh.write(str(nice))
    except OSError:
        pass  # no autogroup (another OS, a kernel without it): the nice value still applies
