"""DRIFT001 / DRIFT002: imports that no longer resolve in the target (removed, or moved)."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only

CORE = """
    def helper(x):
        return x

    class Engine:
        pass
    """

CORE_WITHOUT_HELPER = """
    class Engine:
        pass
    """

UTIL_WITH_HELPER = """
    def helper(x):
        return x
    """

USES_HELPER = """
    from gizmo.core import Engine, helper

    def main():
        return helper(Engine())
    """

USES_NOTHERE = """
    from gizmo.core import Engine, nothere

    def main():
        return nothere(Engine())
    """

IMPORT_LINE = line_of(USES_HELPER, "from gizmo.core import")

CASES = [
    Case("removed", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER},
         {"app/main.py": USES_HELPER}, [("DRIFT001", IMPORT_LINE)]),
    Case("moved", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER, "gizmo/util.py": UTIL_WITH_HELPER},
         {"app/main.py": USES_HELPER}, [("DRIFT002", "it lives in `gizmo.util`")]),
    Case("unchanged", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE}, {"app/main.py": USES_HELPER}, []),
    Case("still-importable-through-a-re-export",
         {"gizmo/core.py": CORE},
         {"gizmo/core.py": "from gizmo.util import helper\n\nclass Engine:\n    pass\n", "gizmo/util.py": UTIL_WITH_HELPER},
         {"app/main.py": USES_HELPER}, []),
    Case("already-missing-in-the-baseline", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER},
         {"app/main.py": USES_NOTHERE}, []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_import_rules(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_removed_finding_names_the_failure_and_the_baseline_definition(tmp_path):
    f = only(findings_of(tmp_path, CASES[0]), "DRIFT001")
    assert f.title == "`helper` is no longer importable from `gizmo.core`"
    assert f.predicted_failure == "ImportError: cannot import name 'helper' from 'gizmo.core'"
    assert f.consumer_site.path == "app/main.py"
    assert [(e.path, e.line, e.symbol) for e in f.baseline_evidence] == [("gizmo/core.py", 1, "gizmo.core.helper")]
    assert f.target_evidence == ()
    assert f.fix is not None and f.fix.codemod is None and f.fix.manual_reason


def test_moved_finding_points_at_the_new_home(tmp_path):
    f = only(findings_of(tmp_path, CASES[1]), "DRIFT002")
    assert f.consumer_site.line == IMPORT_LINE
    assert [(e.path, e.symbol) for e in f.target_evidence] == [("gizmo/util.py", "gizmo.util.helper")]
    assert "`gizmo.util`" in f.fix.description


def test_without_baseline_a_missing_name_is_reported(tmp_path):
    case = Case("no-baseline", None, {"gizmo/core.py": CORE_WITHOUT_HELPER}, {"app/main.py": USES_NOTHERE},
                [("DRIFT001", "`nothere`")])
    assert_findings(findings_of(tmp_path, case), case.expected)
