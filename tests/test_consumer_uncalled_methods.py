"""A finding in a private method whose one call the package commented out, and that the target never
calls, is risky, not breaking (probes/links.py `unnamed_methods`, drift/analysis/uncalled_methods.py);
a private method nothing ever named stays breaking (code outside the package may call it)."""

from __future__ import annotations

from drift.findings import Severity
from drift.pipeline.run import check
from tests.rule_cases import consumer_of, facts_of, line_of, write_tree

BEFORE = {"gizmo/__init__.py": "", "gizmo/api.py": """
    def old():
        return 1


    class Runner:
        def run(self):
            return self._prepare()

        def _prepare(self):
            return 0
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/api.py": """
    class Runner:
        def run(self):
            return self._prepare()

        def _prepare(self):
            return 0
    """}
CONSUMER = """
    from gizmo import api


    class Mine:
        def run(self):
            # return self._dead()
            return self._live()

        def _live(self):
            return api.old()  # live

        def _dead(self):
            return api.old()  # dead

        def _never_named(self):
            return api.old()  # never named


    class MyRunner(api.Runner):
        def _prepare(self):
            return api.old()  # target calls it
    """


def findings_of(tmp_path, files):
    """A check over installed trees whose sources are at hand (as a release fetched from the index
    is): whether the target calls the method is read from their text."""
    facts = {}
    for side, lib in (("after", AFTER), ("before", BEFORE)):
        root = write_tree(tmp_path / side, lib)
        facts[side] = facts_of(root)
        facts[side]["target"] = {"kind": "tree", "root": str(root)}
    cons = consumer_of(write_tree(tmp_path / "consumer", files))
    return check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"],
                 target_package="gizmo").report.findings


def _severities(found):
    return {f.consumer_site.line: f.severity for f in found if f.rule_id == "DRIFT060"}


def test_a_private_method_nothing_calls_is_risky_and_the_others_stay_breaking(tmp_path):
    found = findings_of(tmp_path, {"app/x.py": CONSUMER})
    got = _severities(found)
    assert got == {line_of(CONSUMER, "# live"): Severity.BREAKING,
                   line_of(CONSUMER, "# dead"): Severity.RISKY,
                   line_of(CONSUMER, "# never named"): Severity.BREAKING,
                   line_of(CONSUMER, "# target calls it"): Severity.BREAKING}, got
    dead = [f for f in found if f.consumer_site.line == line_of(CONSUMER, "# dead")][0]
    assert "`Mine._dead`'s one call in app is commented out" in dead.title


def test_a_call_from_another_module_or_a_string_keeps_it_breaking(tmp_path):
    other = {"app/x.py": CONSUMER, "app/y.py": "from app.x import Mine\n\n\ndef go(m: Mine):\n    return m._dead()\n"}
    assert _severities(findings_of(tmp_path / "a", other))[
        line_of(CONSUMER, "# dead")] is Severity.BREAKING
    named = {"app/x.py": CONSUMER, "app/z.py": "HOOKS = ['_dead']\n"}
    assert _severities(findings_of(tmp_path / "b", named))[
        line_of(CONSUMER, "# dead")] is Severity.BREAKING
