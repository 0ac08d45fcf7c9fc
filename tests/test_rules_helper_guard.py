"""A version helper written as `if Version(running) == Version(v): return True` ... `return False`
(with a special case for development builds on the way, as plugins write them once dev builds bite)
answers the same comparison as `return Version(running) == Version(v)`: the probe records its
predicate (probes/reach.py `version_predicates`), so a branch written for another release is not
held to the target (drift/consumer/guards.py), and the live branch still is."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import assert_findings, consumer_of, facts_of, line_of, write_tree

TARGET_OLD = """
    def gone_helper():
        return 1
    """
TARGET_NEW = """
    def kept_helper():
        return 2
    """
UTILS = """
    from packaging.version import Version


    def gizmo_version_is(wanted):
        import gizmo
        parsed = Version(gizmo.__version__)
        if parsed == Version(wanted):
            return True
        if parsed.dev is not None:
            return {special}
        return False
    """
USE = """
    from app.utils import gizmo_version_is

    if gizmo_version_is("0.16.0"):
        from gizmo.ops import gone_helper
    else:
        from gizmo.ops import kept_helper
    """


def _findings(tmp_path, special="wanted.startswith('0.1')"):
    b = facts_of(write_tree(tmp_path / "b", {"gizmo/ops.py": TARGET_OLD}))
    b["packages"]["gizmo"]["version"] = "0.16.0"
    a = facts_of(write_tree(tmp_path / "a", {"gizmo/ops.py": TARGET_NEW}))
    a["packages"]["gizmo"]["version"] = "0.17.0"
    cons = consumer_of(write_tree(tmp_path / "c", {"app/__init__.py": "", "app/utils.py": UTILS.format(special=special),
                                                   "app/use.py": USE}))
    report = check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report
    assert report is not None
    return [f for f in report.findings if f.severity.value == "breaking"]


def test_the_old_release_branch_of_an_if_return_true_helper_is_not_held_to_the_target(tmp_path):
    assert_findings(_findings(tmp_path), [])


def test_a_helper_whose_other_branch_answers_for_releases_too_is_not_read_as_one_comparison(tmp_path):
    # `if len(wanted) > 3: return True`: releases can take it, so the helper is not `==`, the gate
    # is not evaluated and the old branch's import is held to the target as before.
    found = _findings(tmp_path, special="True\n        if len(wanted) > 3:\n            return True")
    assert [f.rule_id for f in found] and {f.consumer_site.line for f in found} == {line_of(USE, "gone_helper")}
