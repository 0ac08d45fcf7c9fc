"""DRIFT071 for a stub a base newly declares: the manual edit says how the target's own
subclasses define it where they all hand the call to one attribute (vLLM 0.13's GPU worker:
`sample_tokens` returns `self.model_runner.sample_tokens(...)`), and that the consumer's object
held there needs the method too when it lacks it."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/worker.py": """
    class WorkerBase:
        def execute(self, batch):
            raise NotImplementedError


    class Runner:
        def execute(self, batch):
            return batch


    class Worker(WorkerBase):
        def __init__(self):
            self.runner = Runner()

        def execute(self, batch):
            return self.runner.execute(batch)
    """}
AFTER = {"gizmo/worker.py": """
    class WorkerBase:
        def execute(self, batch):
            raise NotImplementedError

        def sample(self, grammar):
            raise NotImplementedError


    class Runner:
        def execute(self, batch):
            return batch

        def sample(self, grammar):
            return grammar


    class Worker(WorkerBase):
        def __init__(self):
            self.runner = Runner()

        def execute(self, batch):
            return self.runner.execute(batch)

        def sample(self, grammar):
            return self.runner.sample(grammar)


    def step(worker):
        worker.execute(1)
        return worker.sample(None)
    """}
CONSUMER = {"app/worker.py": """
    from gizmo.worker import WorkerBase


    class MyRunner:
        def execute(self, batch):
            return [batch]


    class MyWorker(WorkerBase):
        def __init__(self):
            self.runner = MyRunner()

        def execute(self, batch):
            return self.runner.execute(batch)
    """}


def _stub_finding(tmp_path, after):
    found = [f for f in findings_of(tmp_path, Case("stub", BEFORE, after, CONSUMER))
             if f.rule_id == "DRIFT071" and "`sample`" in f.title]
    assert len(found) == 1, [f.title for f in found]
    return found[0]


def test_the_stub_is_described_as_the_targets_subclass_defines_it(tmp_path):
    f = _stub_finding(tmp_path, AFTER)
    assert f.fix.codemod is None and f.fix.tier == "manual"
    assert f.fix.description == (
        "implement `sample(self, grammar)` in `MyWorker` as the target's `Worker` does: it hands the call to "
        f"`self.runner.sample(...)` (gizmo/worker.py:{line_of(AFTER['gizmo/worker.py'], 'return self.runner.sample')}); `self.runner` is the consumer's `MyRunner` here, which has "
        "no `sample` either: it needs one too")


def test_a_sibling_that_does_something_else_leaves_the_plain_edit(tmp_path):
    other = {"gizmo/worker.py": AFTER["gizmo/worker.py"] + """

    class LoggingWorker(WorkerBase):
        def sample(self, grammar):
            return None
    """}
    f = _stub_finding(tmp_path, other)
    assert f.fix.description == "implement `sample` in `MyWorker`"
