"""A function installed onto one target class under two names (`gizmo.batch.InputBatch` and
`gizmo.runner.InputBatch`, which only imports it): its `self` is that one class, so what it reads
on `self` is checked, not dropped as ambiguous (synthetic before/after pairs)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BATCH_BEFORE = """
    class InputBatch:
        def __init__(self, n):
            self.n = n
            self.min_p_cpu = [0.0] * n

        def refresh(self):
            return self.n
    """
BATCH_AFTER = """
    class InputBatch:
        def __init__(self, n):
            self.n = n

        def refresh(self):
            return self.n
    """
RUNNER = """
    from gizmo.batch import InputBatch


    def make(n):
        return InputBatch(n)
    """
PATCHES = """
    from gizmo.batch import InputBatch


    def refresh(self):
        return self.min_p_cpu
    """
INSTALL = """
    import gizmo.batch
    import gizmo.runner

    from app.patches import refresh

    gizmo.batch.InputBatch.refresh = refresh
    gizmo.runner.InputBatch.refresh = refresh
    """


def _case(install=INSTALL, runner_after=RUNNER):
    return Case("two-names", {"gizmo/batch.py": BATCH_BEFORE, "gizmo/runner.py": RUNNER},
                {"gizmo/batch.py": BATCH_AFTER, "gizmo/runner.py": runner_after},
                {"app/__init__.py": "", "app/patches.py": PATCHES, "app/install.py": install})


def test_self_is_the_one_class_both_names_reach(tmp_path):
    assert_findings(findings_of(tmp_path, _case()), [("DRIFT060", line_of(PATCHES, "return self.min_p_cpu"))])


def test_two_different_classes_stay_unknown(tmp_path):
    """Installed onto two classes that are not the same object: `self` may be either, and this
    check does not guess."""
    other = """
        class InputBatch:
            def __init__(self, n):
                self.n = n
                self.min_p_cpu = []

            def refresh(self):
                return self.n
        """
    findings = findings_of(tmp_path, _case(runner_after=other))
    assert [f for f in findings if f.rule_id == "DRIFT060"] == []
