"""A gone method reached only from the consumer's override of it, which nothing calls any more: risky.

The target renames `Runner.postprocess` to `postprocess_sampled` and its loop calls the new name.
The consumer's `postprocess` override hands on to `super().postprocess(...)`: the line that reaches
the gone method never runs (no AttributeError), the override's behaviour is lost silently. Where the
consumer still calls its own `postprocess`, the same line runs and fails: still breaking.
"""

from __future__ import annotations

from drift.findings import Finding, Severity
from drift.pipeline.run import check
from tests.rule_cases import consumer_of, facts_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/runner.py": """
    class Runner:
        def postprocess(self, out):
            return out

        def step(self, out):
            return self.postprocess(out)
    """}
AFTER = {"gizmo/runner.py": """
    class Runner:
        def postprocess_sampled(self, out):
            return out

        def step(self, out):
            return self.postprocess_sampled(out)
    """}
RUNNER = """
    from gizmo.runner import Runner

    class MyRunner(Runner):
        def postprocess(self, out):
            return super().postprocess(out) + 1
    """
CALLER = """
    from gizmo.runner import Runner

    from app.runner import MyRunner

    def finish(out):
        runner: Runner = MyRunner()
        return runner.postprocess(out)
    """
SUPER = line_of(RUNNER, "super().postprocess")


def _drift060(tmp_path, consumer, after=None) -> Finding:
    """The one DRIFT060 finding in app/runner.py of a check over installed trees whose sources are at hand (as a
    release fetched from the index is): whether the target names the method in a string is read
    from their text."""
    facts = {}
    for side, files in (("after", after or AFTER), ("before", BEFORE)):
        root = write_tree(tmp_path / side, files)
        facts[side] = facts_of(root)
        facts[side]["target"] = {"kind": "tree", "root": str(root)}
    cons = consumer_of(write_tree(tmp_path / "consumer", consumer))
    found = [f for f in check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"],
                              target_package="gizmo").report.findings
             if f.rule_id == "DRIFT060" and f.consumer_site.path == "app/runner.py"]
    assert len(found) == 1, [f.title for f in found]
    return found[0]


def test_a_gone_method_reached_only_from_its_orphaned_override_is_risky(tmp_path):
    f = _drift060(tmp_path, {"app/runner.py": RUNNER})
    assert f.consumer_site.line == SUPER
    assert f.severity is Severity.RISKY
    assert "reached only from `MyRunner.postprocess`, which neither the target nor the consumer calls" in f.title
    # what the target really runs on the consumer's object: its loop, which no longer reaches the override
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.runner", "MyRunner().step(1)") is None


def test_the_same_line_stays_breaking_where_the_consumer_still_calls_its_override(tmp_path):
    f = _drift060(tmp_path, {"app/runner.py": RUNNER, "app/caller.py": CALLER})
    assert f.consumer_site.line == SUPER
    assert f.severity is Severity.BREAKING
    roots = [tmp_path / "after", tmp_path / "consumer"]
    raised = raised_by(roots, "app.caller", "finish(1)")
    assert raised is not None and raised.startswith("AttributeError") and "'postprocess'" in raised


# The target keeps a method of the same name on a class the consumer's class does not extend, and
# calls it there on self: that call runs the other class's own method, never the consumer's
# override, so the override is orphaned all the same.
OTHER_BEFORE = {"gizmo/runner.py": BEFORE["gizmo/runner.py"] + """
    class Offline:
        def postprocess(self, out):
            return out

        def generate(self, out):
            return self.postprocess(out)
    """}
OTHER_AFTER = {"gizmo/runner.py": AFTER["gizmo/runner.py"] + """
    class Offline:
        def postprocess(self, out):
            return out

        def generate(self, out):
            return self.postprocess(out)
    """}


def test_a_self_call_in_an_unrelated_target_class_does_not_run_the_override(tmp_path):
    facts = {}
    for side, files in (("after", OTHER_AFTER), ("before", OTHER_BEFORE)):
        root = write_tree(tmp_path / side, files)
        facts[side] = facts_of(root)
        facts[side]["target"] = {"kind": "tree", "root": str(root)}
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/runner.py": RUNNER}))
    found = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"],
                  target_package="gizmo").report.findings
    gone = [f for f in found if f.rule_id == "DRIFT060"]
    assert [(f.consumer_site.line, f.severity) for f in gone] == [(SUPER, Severity.RISKY)]
    hook = [f for f in found if f.rule_id == "DRIFT072"]
    assert [(f.consumer_site.line, f.severity) for f in hook] == [(line_of(RUNNER, "def postprocess"), Severity.RISKY)]
    assert "which the target no longer has" in hook[0].title
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.runner", "MyRunner().step(1)") is None  # the target's loop skips the override
    assert raised_by(roots, "gizmo.runner", "Offline().generate(1)") is None  # the other class's own method


HANDED_ON = {"gizmo/runner.py": AFTER["gizmo/runner.py"] + """
        def hooks(self):
            return [self.postprocess_sampled, getattr(self, "postprocess", None)]
    """}


def test_a_target_that_still_names_the_method_keeps_the_line_breaking(tmp_path):
    """The target's test that nothing runs the override is DRIFT072's (`uncalled_by_target`): a
    string naming it (a dispatch by name, `getattr(self, "postprocess")`) may run it, so the line
    stays breaking."""
    f = _drift060(tmp_path, {"app/runner.py": RUNNER}, HANDED_ON)
    assert f.consumer_site.line == SUPER
    assert f.severity is Severity.BREAKING
