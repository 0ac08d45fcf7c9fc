"""A head start computed in a forked child of low priority, stopped when no longer wanted.

Why: a cold scan warms the baseline (`drift.pipeline.scan._warm_baseline`) while the host probes. In a
thread, that is Python work holding drift's GIL against the event loop that reads the host's
reply, and a thread's nice value means nothing against a host whose probe runs in another
session: Linux puts each session in its own scheduling group (autogroup) and shares the CPU
between groups evenly. Measured on this machine's two shared cores, a niced pure-Python thread
or process beside vllm-omni's loopback host probe made the probe 3.3 s -> 5.3 s. The child
here starts its own session at low weight (`background.lower_priority`), so it runs on what the
probe leaves idle; it writes what it parses and answers to drift's caches (the module cache,
the facts store), which the real check reads.
"""

from __future__ import annotations

import os
import signal
from typing import Any, Callable

from drift.probes import background

STOP_GRACE = 2.0  # seconds a stopped child has to end by itself before it is killed


class _ChildStop:
    """What `drift.model.demand.stoppable` looks at in the child: SIGTERM from the parent, or the
    parent gone (a killed drift leaves no warm-up running on)."""

    def __init__(self, parent: int):
        self.parent, self.flag = parent, False

    def is_set(self) -> bool:
        return self.flag or os.getppid() != self.parent

    def set(self, *_args) -> None:
        self.flag = True


def run_in_child(fn: Callable[[Any], Any], *, stop: Any, nice: int = 10) -> tuple[bool, Any]:
    """(True, fn(child_stop)) computed in a forked child at low priority, its value (not None)
    written back with marshal (`background.start`); (False, None) when it failed, was stopped
    (`stop.is_set()` while it ran) or there is no fork. `fn` gets the child's stop object to
    hand to `stoppable`."""
    parent = os.getpid()

    def child() -> Any:
        background.lower_priority(nice, session=True)
        child_stop = _ChildStop(parent)
        signal.signal(signal.SIGTERM, child_stop.set)
        return fn(child_stop)

    pending = background.start(child)
    value = pending.result(stop=stop, grace=STOP_GRACE) if pending is not None else None
    return value is not None, value
