"""DRIFT090: a version check written as a string comparison, right for the baseline, wrong for
the target ("0.10.0" >= "0.9.0" is False as text)."""

from __future__ import annotations

from drift.fixes import plan
from drift.pipeline.run import check
from tests.rule_cases import (
    assert_findings,
    consumer_of,
    facts_of,
    line_of,
    only,
    write_tree,
)

CONSUMER = """
    import gizmo

    def setup():
        if gizmo.__version__ >= "0.9.0":
            return True
        assert gizmo.__version__ > "0.8.2", "needs gizmo > 0.8.2"
        from packaging.version import Version
        return Version(gizmo.__version__) >= Version("0.9.0")
    """


def _report(tmp_path, before_version, after_version):
    lib = {"gizmo/__init__.py": "__version__ = 'x'\n"}
    a = facts_of(write_tree(tmp_path / "after", lib))
    a["packages"]["gizmo"]["version"] = after_version
    b = facts_of(write_tree(tmp_path / "before", lib))
    b["packages"]["gizmo"]["version"] = before_version
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/main.py": CONSUMER}))
    return check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report


def test_text_comparison_that_flips_for_the_target(tmp_path):
    report = _report(tmp_path, "0.9.2", "0.10.0")
    assert_findings(report.findings, [("DRIFT090", line_of(CONSUMER, '>= "0.9.0"')),
                                      ("DRIFT090", line_of(CONSUMER, 'assert gizmo'))])
    f = [f for f in report.findings if f.consumer_site.line == line_of(CONSUMER, '>= "0.9.0"')][0]
    assert "'0.10.0' >= '0.9.0' is False, as versions it is True" in f.title
    assert ("0.10.0" >= "0.9.0") is False  # what Python itself answers


def test_no_finding_when_text_and_version_agree(tmp_path):
    assert_findings(_report(tmp_path, "0.9.1", "0.9.2").findings, [])


def test_the_safe_fix_keeps_the_baselines_answer_and_fixes_the_targets(tmp_path):
    """compare_versions, applied by the planner, then run: the patched check answers as the
    baseline's did on 0.9.2 and as a version comparison should on 0.10.0."""
    path = "app/main.py"
    report = _report(tmp_path, "0.9.2", "0.10.0")
    assert {(f.fix.codemod, f.fix.tier) for f in report.findings} == {("compare_versions", "safe")}
    held = plan({path: (tmp_path / "consumer" / path).read_bytes()}, report.findings)
    # both checks sit above the function's own `from packaging.version import Version`: rewritten,
    # they would read that local name before its import (UnboundLocalError), so both are left
    assert held.empty and len(held.skipped) == 2
    assert all("imported below line" in why for _key, why in held.skipped)

    clean = CONSUMER.replace("        from packaging.version import Version\n", "")
    lib = {"gizmo/__init__.py": "__version__ = 'x'\n"}
    a = facts_of(write_tree(tmp_path / "a2", lib))
    a["packages"]["gizmo"]["version"] = "0.10.0"
    b = facts_of(write_tree(tmp_path / "b2", lib))
    b["packages"]["gizmo"]["version"] = "0.9.2"
    cons = write_tree(tmp_path / "clean", {path: clean})
    found = check(consumer=consumer_of(cons), target_facts=a, baseline_facts=b, target_package="gizmo").report.findings
    fixed = plan({path: (cons / path).read_bytes()}, found).changes[0].after.decode()
    assert fixed.count("Version(gizmo.__version__)") == 3 and "from packaging.version import Version" in fixed
    assert plan({path: fixed.encode()}, found).empty  # a second run changes nothing
    for version in ("0.9.2", "0.10.0"):  # run under both releases: the baseline's answer kept, the target's right
        namespace: dict = {}
        stub = f"import types\ngizmo = types.SimpleNamespace(__version__={version!r})\n"
        exec(compile(fixed.replace("import gizmo\n", stub), path, "exec"), namespace)  # noqa: S102 - our own code
        assert namespace["setup"]() is True
