"""An override held to the target's calls of it when the declaration never changed, only the calls.

The target's `_run(self, x, budget, path="default")` is the same on both sides; the baseline
called it two ways (`self._run(x, 1)` on the single path, `self._run(x, 1, path="global")` on a
path the consumer never took) and the target calls it one way only, with `path=`. The consumer's
override `_run(self, x, budget)` fitted the baseline's call it ran and fits no call the target
makes: reported risky (which of the baseline's paths the consumer ran is not known), never
skipped because the baseline also had a call it did not take.

The consumer's class overrides `execute`, the target's only caller of `_execute_local`, without
delegating, and calls the inherited `_execute_local` itself: that target method runs for the
consumer's object, so its call of `_run` counts.
"""

from __future__ import annotations

from drift.model.targets import load_facts
from drift.pipeline.run import check
from tests.rule_cases import Case, assert_findings, consumer_of, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/enc.py": """
    class Manager:
        def __init__(self, model):
            self.model = model

        def _run(self, x, budget, path="default"):
            return x

        def _execute_local(self, x, dual=False):
            if dual:
                return self._run(x, 1, path="global")
            return self._run(x, 1)

        def execute(self, x):
            return self._execute_local(x)
    """}
AFTER = {"gizmo/enc.py": """
    class Manager:
        def __init__(self, model):
            self.model = model

        def _run(self, x, budget, path="default"):
            return x

        def _execute_local(self, x):
            return self._run(x, 1, path="default")

        def execute(self, x):
            return self._execute_local(x)
    """}
CONSUMER_SRC = """
    from gizmo.enc import Manager


    class Mine(Manager):
        def _run(self, x, budget):
            return x + budget

        def execute(self, x):
            return self._execute_local(x)
    """
CONSUMER = {"app/enc.py": CONSUMER_SRC}


def test_an_override_no_call_of_the_target_fits_is_risky(tmp_path):
    findings = findings_of(tmp_path, Case("calls-left", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [("DRIFT070", line_of(CONSUMER_SRC, "def _run("))])
    f = findings[0]
    assert f.severity.value == "risky"
    assert "no longer calls it in any way the override takes" in f.title
    assert f.predicted_failure == "TypeError: Mine._run() got an unexpected keyword argument 'path'"


def test_a_call_the_override_still_fits_keeps_it_silent(tmp_path):
    """The target keeps a call without `path=` beside the new one: the override still fits a
    call, as on the baseline, so nothing is said."""
    after = {"gizmo/enc.py": AFTER["gizmo/enc.py"].replace(
        'return self._run(x, 1, path="default")', 'return self._run(x, 1) or self._run(x, 1, path="default")')}
    assert_findings(findings_of(tmp_path, Case("calls-left-fit", BEFORE, after, CONSUMER)), [])


def test_an_inherited_caller_the_consumer_never_runs_says_nothing(tmp_path):
    """Read as `drift check` reads a release on disk (sources at hand). While Mine calls the
    inherited `_execute_local` itself, its call of `_run` counts although the target's only
    caller of it (`execute`) is overridden; once Mine.execute no longer calls it, that call
    never runs for Mine and nothing is said."""
    found = _on_demand(tmp_path / "a", CONSUMER_SRC)
    assert_findings(found, [("DRIFT070", line_of(CONSUMER_SRC, "def _run("))])
    dead = CONSUMER_SRC.replace("return self._execute_local(x)", "return self._run(x, 2)")
    assert_findings(_on_demand(tmp_path / "b", dead), [])


def _on_demand(tmp_path, consumer):
    """The trees read demand-driven with their sources (whether the target writes a name as a
    string is a search of its text, as for a release)."""
    facts = {}
    for side, files in (("before", BEFORE), ("after", AFTER)):
        root = write_tree(tmp_path / side, dict(files, **{"gizmo/__init__.py": f"# {tmp_path} {side}\n"}))
        loaded = load_facts(str(root), packages=["gizmo"], demand=True)
        assert loaded.ok, loaded.error
        facts[side] = loaded.facts
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/enc.py": consumer}))
    outcome = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"], target_package="gizmo")
    assert outcome.error is None, outcome.error
    return outcome.report.findings


def test_python_fails_where_the_finding_says(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([before, app], "app.enc", "Mine(None).execute(1)") is None
    assert raised_by([after, app], "app.enc", "Mine(None).execute(1)") == \
        "TypeError: Mine._run() got an unexpected keyword argument 'path'"
