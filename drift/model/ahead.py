"""Questions answered ahead, in a forked worker, while the rules run on this core.

Why apart from drift.model.demand: the worker needs both the lazily read modules (demand) and the
resolver over them (`PackageIndex`, which itself reads through demand); kept here, the arrows run
one way: index -> demand, ahead -> index and demand.
"""

from __future__ import annotations

import gc
import marshal
import mmap
import os
import select
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable

from drift.model.demand import _check_stop, _outline
from drift.model.index import PackageIndex
from drift.probes import background

JOIN_TIMEOUT = 60.0  # seconds a rule waits for the worker's answer before answering by itself
_WAIT_SLICE = 0.05  # seconds between looks at a stop (`stoppable`) while waiting for the worker


@dataclass(frozen=True)
class AheadJob:
    """One question a rule will ask later, answered ahead: `run(target, baseline)` computes it
    through the indexes' memos (`PackageIndex.memo`/`query`); `topic` names it for the rule
    that waits for it; `answered(target, baseline)` says the store holds it already."""

    topic: tuple
    run: Callable[[Any, Any], None]
    answered: Callable[[Any, Any], bool]


class AheadWorker:
    """A forked process answering `AheadJob`s while the check runs the rules before them;
    each job's new memo entries come back as one marshal blob (a few KB).

    Why: a cold check's CPU is ~1.2 s on one core, and the second core is idle. The questions
    that read most (DRIFT040's class family: ~300 class outlines of two releases; DRIFT020's
    two-phase methods: the GPU model runners' outlines and methods) are known from the
    consumer's usage alone and asked after the import and signature rules, whose lookups
    parse modules one by one: the worker answers them meanwhile. The worker inherits the
    facts through the fork; a question it did not get to is answered by the rule itself.

    The two share the jobs from opposite ends (`claims`, one byte per job in memory both
    processes map): the worker takes them last-asked first, and a rule asking a job the worker
    has not started claims it and answers it here, so neither waits for the other except on
    the one job in hand when they meet. Why: speculators' jobs are ~0.4 s of CPU against
    ~0.3 s of rules before them; answered in the rules' order, the check waited ~0.1 s for the
    last one while the first ones had long been done. Both may start the same job in one
    instant (a byte, not a lock): the answers are the same, only CPU is spent twice."""

    def __init__(self, pid: int, fd: int, topics: list, claims: Any = None):
        self.pid, self.fd = pid, fd
        self.topics = {topic: i for i, topic in enumerate(topics)}  # what it will answer
        self.claims = claims  # FREE / WORKER / HERE per job, shared with the worker (None: it takes every job)
        self.done: set = set()
        self.received: dict[tuple, Any] = {}
        self._buf = bytearray()

    def wait_for(self, topic: tuple, timeout: float = JOIN_TIMEOUT) -> None:
        """Read answers until `topic` is done, or the worker has ended (or failed, or is late);
        a job the worker has not started is claimed here and left to the rule."""
        if topic not in self.topics:
            return
        self._drain()
        if topic in self.done:
            return
        i = self.topics[topic]
        if self.claims is not None and self.claims[i] != WORKER:
            self.claims[i] = HERE
            return
        deadline = time.monotonic() + timeout
        while topic not in self.done and self.fd >= 0:
            _check_stop()  # a warm-up told to stop does not wait for its worker
            left = deadline - time.monotonic()
            try:
                ready = left > 0 and select.select([self.fd], [], [], min(left, _WAIT_SLICE))[0]
                if not ready and left > _WAIT_SLICE:
                    continue
                part = os.read(self.fd, 1 << 20) if ready else b""
            except OSError:
                part, ready = b"", False
            if not part:
                self.close(kill=not ready)
                return
            self._buf += part
            self._decode()

    def _drain(self) -> None:
        """Take whatever answers the pipe holds now, without waiting."""
        while self.fd >= 0:
            try:
                ready = select.select([self.fd], [], [], 0)[0]
                part = os.read(self.fd, 1 << 20) if ready else None
            except OSError:
                part = b""
            if part is None:
                return
            if not part:
                self.close(kill=False)
                return
            self._buf += part
            self._decode()

    def _decode(self) -> None:
        buf = self._buf
        while len(buf) >= 8:
            end = 8 + int.from_bytes(buf[:8], "little")
            if len(buf) < end:
                return
            try:
                topic, answers = marshal.loads(bytes(buf[8:end]))
            except (EOFError, ValueError, TypeError):
                topic, answers = None, {}
            del buf[:end]
            if type(answers) is dict:
                self.received.update(answers)
            self.done.add(topic)

    def adopt(self, side: str, index: Any) -> None:
        """Every answer received for `side` into `index`'s memo (and so the store, as if computed here)."""
        for (s, name, key), value in list(self.received.items()):
            if s == side:
                del self.received[(s, name, key)]
                index.memo(name, key, lambda v=value: v)

    def close(self, *, kill: bool) -> None:
        if self.fd < 0:
            return
        os.close(self.fd)
        self.fd = -1
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass


_AHEAD: dict[tuple[int, int], AheadWorker] = {}


def _ahead_key(target: Any, baseline: Any) -> tuple[int, int]:
    return id(target.modules), id(baseline.modules) if baseline is not None else 0


def take_ahead(target: Any, baseline: Any, topic: tuple) -> None:
    """Before a rule asks `topic`'s questions: wait for the worker answering them ahead, if
    there is one for these two indexes, and take its answers into their memos."""
    worker = _AHEAD.get(_ahead_key(target, baseline)) if _AHEAD else None
    if worker is None:
        return
    worker.wait_for(topic)
    worker.adopt("target", target)
    if baseline is not None:
        worker.adopt("baseline", baseline)


FREE, WORKER, HERE = 0, 1, 2  # who answers a job (`AheadWorker.claims`)


def _ahead_main(wfd: int, jobs: list[AheadJob], target: Any, baseline: Any, claims: Any = None) -> None:
    gc.disable()
    sent: set = set()
    sides = (("target", target), ("baseline", baseline))
    for i in reversed(range(len(jobs))) if claims is not None else range(len(jobs)):
        job = jobs[i]
        if claims is not None:
            if claims[i] != FREE:
                continue  # the check answers it
            claims[i] = WORKER
        try:
            job.run(target, baseline)
        except Exception:  # noqa: BLE001 - that rule answers it itself
            pass
        delta = {}
        for side, index in sides:
            for (name, key), value in (index.__dict__.get("_memo") or {}).items() if index is not None else ():
                if (side, name, key) not in sent:
                    sent.add((side, name, key))
                    delta[(side, name, key)] = value
        try:
            blob = marshal.dumps((job.topic, delta))
        except ValueError:
            blob = marshal.dumps((job.topic, {}))
        view = memoryview(len(blob).to_bytes(8, "little") + blob)
        while view:
            view = view[os.write(wfd, view):]


@contextmanager
def answered_ahead(target_facts: dict, baseline_facts: dict | None, jobs: list[AheadJob], *, store: Any = None):
    """Run `jobs` in a forked `AheadWorker` while the block runs (a check), when both releases
    are read from sources on disk (`TreeModules`: never a host's modules, which a read may
    fetch over the scan's connection), there are two cores and some job's answer is not in
    the store yet (a warm check forks nothing). Rules take the answers with `take_ahead`;
    leaving the block reaps the worker, whatever it had left to do."""
    worker, key = None, None
    try:
        if jobs and hasattr(os, "fork") and background.cpus() > 1:
            target = PackageIndex(target_facts, store=store)
            baseline = PackageIndex(baseline_facts, store=store) if baseline_facts is not None else None
            local = target.from_sources and (baseline is None or baseline.from_sources)
            if local and not all(job.answered(target, baseline) for job in jobs):  # never a host's modules
                _outline()  # what the worker imports lazily, imported before the fork: a fetch
                for index in (target, baseline):  # thread importing at that moment would hold the lock
                    if index is not None:
                        index.outline  # noqa: B018
                worker = _fork_ahead(jobs, target, baseline)
                if worker is not None:
                    key = _ahead_key(target, baseline)
                    _AHEAD[key] = worker
        yield
    finally:
        if key is not None:
            _AHEAD.pop(key, None)
        if worker is not None:
            worker.close(kill=True)




def _fork_ahead(jobs: list[AheadJob], target: Any, baseline: Any) -> AheadWorker | None:
    """The worker answering `jobs` ahead; its pipe holds a whole family answer (~100 KB), so
    it never waits for the rule to read (the rules then answer by themselves if it fails)."""
    try:
        claims = mmap.mmap(-1, max(1, len(jobs)))  # anonymous and shared: the fork sees the same bytes
    except (OSError, ValueError):
        claims = None  # the worker then answers every job, in the rules' order
    child = background.fork(lambda wfd: _ahead_main(wfd, jobs, target, baseline, claims), pipe_size=1 << 20)
    if child is None:
        return None
    pid, rfd = child
    return AheadWorker(pid, rfd, [job.topic for job in jobs], claims)


class _NotStored(Exception):
    pass


def _not_stored() -> Any:
    raise _NotStored


def answered(index: Any, name: str, key: str) -> bool:
    """Whether `index.memo(name, key, ...)` has its answer already (memo or store), computing nothing."""
    try:
        index.memo(name, key, _not_stored)
    except _NotStored:
        return False
    return True


