"""DRIFT087 (synthetic before/after pairs): a consumer override of a base method that never reads
state the target's base now keeps for that method. The target's `Queue.__init__` sets a second
queue `parked`, its inherited `add` fills it, and its own `drain` reads it next to `waiting`; an
override of `drain` written for the baseline reads `waiting` alone, and what `add` parks is never
drained. The stall is shown by running the synthetic code on both releases."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from tests.rule_cases import Case, assert_findings, findings_of, line_of

QUEUE_BEFORE = """
    class Queue:
        def __init__(self):
            self.waiting = []
            self.done = []

        def add(self, item):
            self.waiting.append(item)

        def drain(self):
            while self.waiting:
                self.done.append(self.waiting.pop(0))
            return list(self.done)
    """
QUEUE_AFTER = """
    class Queue:
        def __init__(self):
            self.waiting = []
            self.parked = []
            self.done = []
            self.stats = 0

        def add(self, item):
            if item.startswith("blocked"):
                self.parked.append(item)
            else:
                self.waiting.append(item)

        def drain(self):
            self.stats += 1
            while self.waiting or self.parked:
                source = self.waiting if self.waiting else self.parked
                self.done.append(source.pop(0))
            return list(self.done)
    """
ENGINE = """
    from gizmo.queue import Queue

    def step(queue: Queue, item):
        queue.add(item)
        return queue.drain()
    """
MINE = """
    from gizmo.queue import Queue


    class FairQueue(Queue):
        def drain(self):
            out = []
            while self.waiting:
                out.append(self.waiting.pop())
            self.done.extend(out)
            return list(self.done)


    def run(items):
        q = FairQueue()
        for item in items:
            q.add(item)
        return q.drain()
    """


def _case(mine=MINE, before=QUEUE_BEFORE, after=QUEUE_AFTER):
    lib = {"gizmo/queue.py": before, "gizmo/engine.py": ENGINE}
    new = {"gizmo/queue.py": after, "gizmo/engine.py": ENGINE}
    return Case("override-state", lib, new, {"app/__init__.py": "", "app/mine.py": mine})


def _value(roots: list[Path], module: str, expr: str):
    """Import `module` from `roots` and evaluate `expr` in it: what the synthetic code really does."""
    def forget() -> None:
        for name in [m for m in sys.modules if m.split(".")[0] in ("gizmo", "app")]:
            del sys.modules[name]

    forget()
    sys.path[:0] = [str(r) for r in roots]
    try:
        return eval(expr, vars(importlib.import_module(module)))
    finally:
        del sys.path[: len(roots)]
        forget()


def test_override_that_never_reads_the_new_queue_is_risky_at_its_read_of_the_old_one(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT087", line_of(MINE, "while self.waiting"))])
    f = findings[0]
    assert f.severity.value == "risky" and f.symbol == "gizmo.queue.Queue.parked"
    assert "`self.parked`" in f.title and "`self.waiting`" in f.title and "inherited `add`" in f.title
    assert f.target_evidence[0].line == line_of(QUEUE_AFTER, "while self.waiting or self.parked")
    assert f.target_evidence[1].line == line_of(QUEUE_AFTER, "self.parked.append")
    # `stats` is new state too, but the target's `drain` reads it alone (no partner the override
    # reads) and no inherited method uses it: not reported
    assert "stats" not in f.title
    # what the finding says is what happens: the blocked item is drained on the baseline, never on the target
    run = "sorted(run(['a', 'blocked-b']))"
    assert _value([tmp_path / "before", tmp_path / "consumer"], "app.mine", run) == ["a", "blocked-b"]
    assert _value([tmp_path / "after", tmp_path / "consumer"], "app.mine", run) == ["a"]


def test_override_that_runs_the_base_method_is_silent(tmp_path):
    mine = MINE.replace("            return list(self.done)\n\n\n",
                        "            return super().drain()\n\n\n")
    assert "super().drain()" in mine
    assert_findings(findings_of(tmp_path, _case(mine=mine)), [])


def test_override_that_reads_the_new_state_is_silent(tmp_path):
    mine = MINE.replace("while self.waiting:", "while self.waiting or self.parked:")
    assert_findings(findings_of(tmp_path, _case(mine=mine)), [])


def test_state_the_baseline_already_kept_is_silent(tmp_path):
    before = QUEUE_AFTER  # the same base on both sides: nothing new for the override to miss
    assert_findings(findings_of(tmp_path, _case(before=before)), [])
