"""A patch written as a closure: `def patch(runner: Runner): def _step(self, ...): ...;
runner.step = MethodType(_step, runner)`. The enclosing function's local `_step` is the nested
def, so the nested body is a method of the target object it is bound onto and its reads of
`self` are checked as any installed method's are. Also what such a body unpacks: a target
method declared to return a NamedTuple gives one value per field, so a field added (even with a
default) breaks `a, b, c = self.sampler.gather(...)`."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {
    "gizmo/outputs.py": """
    from typing import NamedTuple, Optional


    class Tensors(NamedTuple):
        ids: list
        values: list
        ranks: list
    """,
    "gizmo/runner.py": """
    from gizmo.outputs import Tensors


    class Batch:
        def __init__(self):
            self.in_progress = {}


    class Sampler:
        def gather(self, x) -> Tensors:
            return Tensors([x], [x], [x])


    class Runner:
        def __init__(self):
            self.batch = Batch()
            self.sampler = Sampler()

        def step(self, x):
            return x
    """,
}
AFTER = {
    "gizmo/outputs.py": """
    from typing import NamedTuple, Optional


    class Tensors(NamedTuple):
        ids: list
        values: list
        ranks: list
        offsets: Optional[list] = None
    """,
    "gizmo/runner.py": """
    from gizmo.outputs import Tensors


    class Batch:
        def __init__(self):
            self.ready = {}


    class Sampler:
        def gather(self, x) -> Tensors:
            return Tensors([x], [x], [x])


    class Runner:
        def __init__(self):
            self.batch = Batch()
            self.sampler = Sampler()

        def step(self, x):
            return x
    """,
}

CONSUMER_SRC = """
    from types import MethodType

    from gizmo.runner import Runner


    def patch(runner: Runner):
        def _step(self, x):
            pending = self.batch.in_progress
            ids, values, ranks = self.sampler.gather(x)
            return pending, ids

        runner.step = MethodType(_step, runner)


    def attach(runner: Runner):
        def _local(x):
            ids, values = x, x
            return ids

        runner.helper = _local
    """
CONSUMER = {"app/patch.py": CONSUMER_SRC}


def test_a_nested_function_bound_onto_a_target_object_is_its_method(tmp_path):
    findings = findings_of(tmp_path, Case("nested-patch", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [
        ("DRIFT060", line_of(CONSUMER_SRC, "self.batch.in_progress")),
        ("DRIFT032", line_of(CONSUMER_SRC, "self.sampler.gather(x)")),
    ])
    gather = next(f for f in findings if f.rule_id == "DRIFT032")
    assert "NamedTuple of 4 fields" in gather.title
    assert gather.predicted_failure == "ValueError: too many values to unpack (expected 3)"


def test_a_nested_function_never_bound_says_nothing(tmp_path):
    """The same body kept as a plain local helper of `patch` (never bound, never called with a
    Runner) is no method of the target: its `self` is untyped."""
    consumer = {"app/patch.py": CONSUMER_SRC.replace("runner.step = MethodType(_step, runner)", "return _step")}
    findings = findings_of(tmp_path, Case("nested-unbound", BEFORE, AFTER, consumer))
    assert_findings(findings, [])


def test_python_fails_where_the_findings_say(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    run = "(lambda r: (patch(r), r.step(1)))(__import__('gizmo.runner').runner.Runner())"
    assert raised_by([before, app], "app.patch", run) is None
    assert raised_by([after, app], "app.patch", run) == \
        "AttributeError: 'Batch' object has no attribute 'in_progress'"
    unpack = "(lambda r: (patch(r), r.batch.__setattr__('in_progress', {}), r.step(1)))" \
             "(__import__('gizmo.runner').runner.Runner())"
    assert raised_by([after, app], "app.patch", unpack) == "ValueError: too many values to unpack (expected 3)"
