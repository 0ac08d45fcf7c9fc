"""DRIFT020: a method that now returns None and parks its result for a sibling to collect."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

GUARD = "State error: collect() must be called after run() returns None."

RUNNER_BEFORE = """
    class Runner:
        def __init__(self):
            self.state = None

        def run(self, x):
            return [x]
    """
RUNNER_AFTER = f"""
    class Runner:
        def __init__(self):
            self.state = None

        def run(self, x):
            if self.state is not None:
                raise RuntimeError("{GUARD}")
            self.state = [x]
            return None

        def collect(self):
            out = self.state
            self.state = None
            return out
    """
RUNNER_CONDITIONAL = """
    class Runner:
        def __init__(self):
            self.state = None

        def run(self, x):
            self.state = [x]
            if x is None:
                return None
            return self.collect()

        def collect(self):
            out = self.state
            self.state = None
            return out
    """

CALLS_RUN = """
    from gizmo.runner import Runner

    class App:
        def __init__(self):
            self.r = Runner()

        def step(self, x):
            return self.r.run(x)
    """
CALLS_RUN_AND_COLLECT = """
    from gizmo.runner import Runner

    class App:
        def __init__(self):
            self.r = Runner()

        def step(self, x):
            self.r.run(x)
            return self.r.collect()
    """
RUN_LINE = line_of(CALLS_RUN, "self.r.run(x)")

WORKER = """
    from gizmo.runner import Runner

    class Worker(Runner):
        pass
    """
CALLS_WORKER_RUN = """
    from gizmo.worker import Worker

    class App:
        def __init__(self):
            self.w = Worker()

        def step(self, x):
            return self.w.run(x)
    """

CASES = [
    Case("never-collects", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_AFTER},
         {"app/main.py": CALLS_RUN}, [("DRIFT020", RUN_LINE)]),
    Case("collects", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_AFTER},
         {"app/main.py": CALLS_RUN_AND_COLLECT}, []),
    Case("conditional-return-none", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_CONDITIONAL},
         {"app/main.py": CALLS_RUN}, []),
    Case("two-phase-already-in-the-baseline", {"gizmo/runner.py": RUNNER_AFTER}, {"gizmo/runner.py": RUNNER_AFTER},
         {"app/main.py": CALLS_RUN}, []),
    Case("inherited-by-the-receiver-class",
         {"gizmo/runner.py": RUNNER_BEFORE, "gizmo/worker.py": WORKER},
         {"gizmo/runner.py": RUNNER_AFTER, "gizmo/worker.py": WORKER},
         {"app/main.py": CALLS_WORKER_RUN}, [("DRIFT020", line_of(CALLS_WORKER_RUN, "self.w.run(x)"))]),
    Case("unchanged", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_BEFORE},
         {"app/main.py": CALLS_RUN}, []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_two_phase_protocol(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_finding_predicts_the_guard_and_shows_the_protocol(tmp_path):
    f = only(findings_of(tmp_path, CASES[0]), "DRIFT020")
    assert f.title == "`Runner.run()` now returns None; `collect()` must follow it"
    assert f.predicted_failure.startswith(f"RuntimeError: {GUARD}")
    lines = [(e.path, e.line) for e in f.target_evidence]
    assert ("gizmo/runner.py", line_of(RUNNER_AFTER, "return None")) in lines
    assert ("gizmo/runner.py", line_of(RUNNER_AFTER, "self.state = [x]")) in lines
    assert ("gizmo/runner.py", line_of(RUNNER_AFTER, "def collect")) in lines
    assert [(e.path, e.line) for e in f.baseline_evidence][0] == ("gizmo/runner.py", line_of(RUNNER_BEFORE, "def run"))
    assert (f.fix.codemod, f.fix.args) == ("add_second_phase", {"method": "run", "sibling": "collect", "sibling_args": []})


def test_predicted_guard_is_what_the_second_run_raises(tmp_path):
    f = only(findings_of(tmp_path, CASES[0]), "DRIFT020")
    real = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "(lambda app: (app.step(1), app.step(2)))(App())")
    assert real == f"RuntimeError: {GUARD}"
    assert f.predicted_failure.startswith(real)


def test_no_baseline_still_reports_a_consumer_that_never_collects(tmp_path):
    case = Case("no-baseline", None, {"gizmo/runner.py": RUNNER_AFTER}, {"app/main.py": CALLS_RUN},
                [("DRIFT020", RUN_LINE)])
    assert_findings(findings_of(tmp_path, case), case.expected)


OVERRIDE_READS_RESULT = """
    from gizmo.runner import Runner

    class MyRunner(Runner):
        def run(self, x):
            out = super().run(x)
            return out.count(x)
    """


def test_inside_the_consumers_override_the_attribute_read_on_none_is_predicted(tmp_path):
    """Issue 24: in the consumer's own `run` override the failure is the next line's attribute
    read on the None `super().run()` now returns, not the guard of a later call."""
    case = Case("override-reads", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_AFTER},
                {"app/main.py": OVERRIDE_READS_RESULT}, [("DRIFT020", line_of(OVERRIDE_READS_RESULT, "super().run(x)"))])
    f = only(findings_of(tmp_path, case), "DRIFT020")
    real = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "MyRunner().run(1)")
    assert real == "AttributeError: 'NoneType' object has no attribute 'count'"
    assert f.predicted_failure.startswith(real)
    assert f"line {line_of(OVERRIDE_READS_RESULT, 'out.count(x)')}" in f.predicted_failure
    assert f.fix.codemod is None  # inside the override: the engine calls collect() itself
