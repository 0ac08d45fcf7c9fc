"""A method patched over a target class with the baseline's very parameters (DRIFT070), where the
target now hands a new argument over in a way no `.name(...)` call site shows: a quoted key of a
`kwargs=` dict given with the function to a spawner, or a call inside the target's own method that
the consumer replaced too. Held to what the synthetic code really raises."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import LIB, assert_findings, consumer_of, facts_of, line_of, raised_by, write_tree


def findings(tmp_path, after: str) -> tuple:
    """The check over trees whose sources stay on this machine (`target.root`), as a release's do:
    a quoted key is then searchable in the target's text."""
    sides = {}
    for side, text in (("before", COORD_BEFORE), ("after", after)):
        root = write_tree(tmp_path / side, {"gizmo/coord.py": text})
        sides[side] = facts_of(root) | {"target": {"root": str(root)}}
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/patch.py": PATCH}))
    outcome = check(consumer=cons, target_facts=sides["after"], baseline_facts=sides["before"], target_package=LIB)
    assert outcome.error is None and outcome.report is not None, outcome.error
    return outcome.report.findings

COORD_BEFORE = """
    class Proc:
        @staticmethod
        def run(count, address):
            Proc().serve(address)

        def serve(self, address):
            return address


    class Coordinator:
        def start(self):
            return self._spawn(target=Proc.run, kwargs={"count": 1, "address": "a"})

        def _spawn(self, target, kwargs):
            return target(**kwargs)
    """
COORD_AFTER = """
    class Proc:
        @staticmethod
        def run(count, address, pipe=None):
            Proc().serve(address, pipe)

        def serve(self, address, pipe=None):
            return address, pipe


    class Coordinator:
        def start(self):
            return self._spawn(target=Proc.run, kwargs={"count": 1, "address": "a", "pipe": None})

        def _spawn(self, target, kwargs):
            return target(**kwargs)
    """
PATCH = """
    from gizmo.coord import Proc


    class MyProc(Proc):
        @staticmethod
        def run(count, address):
            MyProc().serve(address)

        def serve(self, address):
            return address


    Proc.run = MyProc.run
    Proc.serve = MyProc.serve
    """


def test_patched_copies_of_the_baseline_signature_miss_the_new_argument(tmp_path):
    found = findings(tmp_path, COORD_AFTER)
    assert_findings(found, [("DRIFT070", line_of(PATCH, "def run")), ("DRIFT070", line_of(PATCH, "def serve"))])
    assert all(f.severity.value == "risky" and "`pipe`" in f.title for f in found)
    run = next(f for f in found if f.consumer_site.line == line_of(PATCH, "def run"))
    assert run.predicted_failure == "TypeError: MyProc.run() got an unexpected keyword argument 'pipe'"
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    start = "__import__('gizmo.coord').coord.Coordinator().start()"
    assert raised_by(roots("before"), "app.patch", start) is None
    assert raised_by(roots("after"), "app.patch", start) == run.predicted_failure


def test_a_new_parameter_nothing_passes_is_silent(tmp_path):
    quiet = COORD_AFTER.replace(', "pipe": None', "").replace("Proc().serve(address, pipe)", "Proc().serve(address)")
    assert_findings(findings(tmp_path, quiet), [])
