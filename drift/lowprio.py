"""A head start computed in a forked child of low priority, stopped when no longer wanted.

Why: a cold scan warms the baseline (`drift.scan._warm_baseline`) while the host probes. In a
thread, that is Python work holding drift's GIL against the event loop that reads the host's
reply, and a thread's nice value means nothing against a host whose probe runs in another
session: Linux puts each session in its own scheduling group (autogroup) and shares the CPU
between groups evenly. Measured on this machine's two shared cores, a niced pure-Python thread
or process beside vllm-omni's loopback host probe made the probe 3.3 s -> 5.3 s. The child
here starts its own session, lowers its own group's weight (`/proc/self/autogroup`) and its
nice value, so it runs on what the probe leaves idle; it writes what it parses and answers to
drift's caches (the module cache, the facts store), which the real check reads.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import time
from typing import Any, Callable

from drift.probes import background

STOP_GRACE = 2.0  # seconds a stopped child has to end by itself before it is killed


class _ChildStop:
    """What `drift.demand.stoppable` looks at in the child: SIGTERM from the parent, or the
    parent gone (a killed drift leaves no warm-up running on)."""

    def __init__(self, parent: int):
        self.parent, self.flag = parent, False

    def is_set(self) -> bool:
        return self.flag or os.getppid() != self.parent

    def set(self, *_args) -> None:
        self.flag = True


def lower_priority(nice: int) -> None:
    """This process in a session of its own whose scheduling group weighs `nice`, and niced."""
    try:
        os.setsid()
        with open("/proc/self/autogroup", "w") as fh:
            fh.write(str(nice))
    except OSError:
        pass  # no autogroup (another OS, a kernel without it): the nice value still applies
    try:
        os.nice(nice)
    except OSError:
        pass


def run_in_child(fn: Callable[[Any], Any], *, stop: Any, nice: int = 10) -> tuple[bool, Any]:
    """(True, fn(child_stop)) computed in a forked child at low priority, its value written
    back with marshal; (False, None) when it failed, was stopped (`stop.is_set()` while it
    ran) or there is no fork. `fn` gets the child's stop object to hand to `stoppable`."""
    parent = os.getpid()

    def work(wfd: int) -> None:
        lower_priority(nice)
        child_stop = _ChildStop(parent)
        signal.signal(signal.SIGTERM, child_stop.set)
        view = memoryview(marshal.dumps(fn(child_stop)))
        while view:
            view = view[os.write(wfd, view):]

    child = background.fork(work)
    if child is None:
        return False, None
    pid, fd = child
    parts, stopped_at = [], None
    try:
        while True:
            if stop.is_set() and stopped_at is None:
                stopped_at = time.monotonic()
                _signal(pid, signal.SIGTERM)
            if stopped_at is not None and time.monotonic() - stopped_at > STOP_GRACE:
                _signal(pid, signal.SIGKILL)
                break
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            part = os.read(fd, 1 << 16)
            if not part:
                break
            parts.append(part)
    except OSError:
        parts = []
    finally:
        os.close(fd)
        ok = _reap(pid)
    if stopped_at is not None or not ok or not parts:
        return False, None
    try:
        return True, marshal.loads(b"".join(parts))
    except (ValueError, EOFError, TypeError):
        return False, None


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _reap(pid: int) -> bool:
    try:
        _, status = os.waitpid(pid, 0)
    except OSError:
        return False
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
