"""DRIFT001 / DRIFT002: imports that no longer resolve in the target (removed, or moved)."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, describe, findings_of, line_of, only, raised_by

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
    # the import fails first (DRIFT001); the use is where the fixed import alone still fails (DRIFT005)
    Case("removed", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER},
         {"app/main.py": USES_HELPER}, [("DRIFT001", IMPORT_LINE), ("DRIFT005", line_of(USES_HELPER, "return helper("))]),
    Case("moved", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER, "gizmo/util.py": UTIL_WITH_HELPER},
         {"app/main.py": USES_HELPER}, [("DRIFT002", "it lives in `gizmo.util`")]),
    Case("unchanged", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE}, {"app/main.py": USES_HELPER}, []),
    Case("still-importable-through-a-re-export",
         {"gizmo/core.py": CORE},
         {"gizmo/core.py": "from gizmo.util import helper\n\nclass Engine:\n    pass\n", "gizmo/util.py": UTIL_WITH_HELPER},
         {"app/main.py": USES_HELPER}, []),
    # issue 24: not drift, but the import fails all the same; reported (risky), never clean
    Case("already-missing-in-the-baseline", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER},
         {"app/main.py": USES_NOTHERE}, [("DRIFT001", line_of(USES_NOTHERE, "from gizmo.core import"))]),
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


# -- the predicted ImportError is what Python raises --------------------------------------------

OLD_MODULE = {"gizmo/old.py": "def helper():\n    pass\n", "gizmo/core.py": CORE_WITHOUT_HELPER}
FAILURES = [
    pytest.param({"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER},
                 "from gizmo.core import helper\n\ndef main():\n    return helper()\n", 1, id="removed-name"),
    pytest.param({"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER},
                 "from gizmo.core import Engine\n\ndef main():\n    from gizmo.core import helper\n    return helper()\n",
                 4, id="function-level-import"),
    pytest.param({"gizmo/core.py": "LIMIT = 3\n"}, {"gizmo/core.py": "X = 1\n"},
                 "from gizmo.core import LIMIT\n\ndef main():\n    return LIMIT\n", 1, id="module-constant"),
    pytest.param(OLD_MODULE, {"gizmo/core.py": CORE_WITHOUT_HELPER},
                 "from gizmo.old import helper\n\ndef main():\n    return helper()\n", 1, id="module-removed-from-import"),
    pytest.param(OLD_MODULE, {"gizmo/core.py": CORE_WITHOUT_HELPER},
                 "import gizmo.old\n\ndef main():\n    return gizmo.old.helper()\n", 1, id="module-removed-import"),
]


@pytest.mark.parametrize("before,after,consumer,line", FAILURES)
def test_predicted_import_error_is_what_python_raises(tmp_path, before, after, consumer, line):
    found = findings_of(tmp_path, Case("x", before, after, {"app/main.py": consumer}))
    # the masked use, if any, is DRIFT005's (a `from` import's name, test_rules_gone_uses) or, written
    # through a plain import of the gone module, a risky DRIFT060 (test_rules_module_chains)
    masked = [x for x in found if x.rule_id == "DRIFT005" or (x.rule_id == "DRIFT060" and x.severity.value == "risky")]
    assert all(x.consumer_site.line != line for x in masked)
    (f,) = [x for x in found if x not in masked]
    assert (f.rule_id, f.consumer_site.line) == ("DRIFT001", line)
    real = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "main()")
    assert real is not None and real.startswith(f.predicted_failure)  # Python appends " (path)"


def test_moved_constant_is_reported_as_moved(tmp_path):
    case = Case("moved-constant", {"gizmo/core.py": "LIMIT = 3\n"},
                {"gizmo/core.py": "X = 1\n", "gizmo/util.py": "LIMIT = 3\n"},
                {"app/main.py": "from gizmo.core import LIMIT\n"}, [("DRIFT002", "it lives in `gizmo.util`")])
    assert_findings(findings_of(tmp_path, case), case.expected)


# -- imports that never run or are handled are not breaking ---------------------------------------

GUARDED = [
    pytest.param("try:\n    from gizmo.core import helper\nexcept ImportError:\n    helper = None\n"
                 "from gizmo.core import Engine\n\ndef main():\n    return Engine()\n", id="try-except-importerror"),
    pytest.param("from typing import TYPE_CHECKING\n\nfrom gizmo.core import Engine\n\nif TYPE_CHECKING:\n"
                 "    from gizmo.core import helper\n\ndef main():\n    return Engine()\n", id="type-checking-only"),
]


@pytest.mark.parametrize("consumer", GUARDED)
def test_guarded_imports_are_not_breaking(tmp_path, consumer):
    findings = findings_of(tmp_path, Case("guarded", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER},
                                          {"app/main.py": consumer}))
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "main()") is None
    assert not [f for f in findings if f.severity.value == "breaking"], describe(findings)


def test_a_target_module_that_does_not_parse_is_reported_as_such(tmp_path):
    before = {"gizmo/core.py": "class Engine:\n    pass\n"}
    after = {"gizmo/core.py": "class Engine(:\n    pass\n"}
    consumer = "from gizmo.core import Engine\n"
    (f,) = findings_of(tmp_path, Case("x", before, after, {"app/main.py": consumer}))
    assert f.title.startswith("module `gizmo.core` does not parse in the target (SyntaxError")
    assert f.predicted_failure.startswith("SyntaxError")


def test_an_import_missing_in_both_releases_predicts_what_python_raises(tmp_path):
    case = next(c for c in CASES if c.id == "already-missing-in-the-baseline")
    f = only(findings_of(tmp_path, case), "DRIFT001")
    assert f.severity.value == "risky" and "in the target nor in the baseline" in f.title
    real = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "None")
    assert real.startswith(f.predicted_failure)  # Python adds the module's file in parentheses


# -- a module that is gone: each imported name where it is written ------------------------------

GONE_MODULE_BEFORE = {"gizmo/old.py": "def helper(x):\n    return x\n\nLIMIT = 3\n\nclass Engine:\n    pass\n",
                      "gizmo/core.py": "X = 1\n"}
GONE_MODULE_AFTER = {"gizmo/core.py": "X = 1\n", "gizmo/util.py": "def helper(x):\n    return x\n"}
USES_GONE_MODULE = """
    from gizmo.old import (
        Engine,
        helper,
        LIMIT as limit,
    )

    def main():
        return helper(Engine()), limit
    """


def test_each_name_of_a_gone_module_is_reported_where_it_is_written(tmp_path):
    """A user fixes `from gone import (a, b, c)` name by name: one finding per name, each at the
    statement's first line where Python raises (drift/analysis/surfacing.py) with its own line
    kept as `use_line`, the moved one with its new home and a move fix, the others with nothing
    to import."""
    case = Case("gone-module-multiline", GONE_MODULE_BEFORE, GONE_MODULE_AFTER, {"app/main.py": USES_GONE_MODULE},
                [("DRIFT001", "`Engine`"), ("DRIFT002", "`helper`"), ("DRIFT001", "`LIMIT`")])
    findings = [f for f in findings_of(tmp_path, case) if f.rule_id != "DRIFT005"]  # uses: test_rules_gone_uses
    assert_findings(findings, case.expected)
    statement = line_of(USES_GONE_MODULE, "from gizmo.old import")
    assert sorted((f.consumer_site.line, f.consumer_site.use_line) for f in findings) == sorted(
        (statement, line_of(USES_GONE_MODULE, name)) for name in ("Engine,", "helper,", "LIMIT as limit"))
    moved = only(findings, "DRIFT002")
    assert moved.symbol == "gizmo.old.helper" and "`helper` lives in `gizmo.util`" in moved.title
    assert moved.fix.codemod == "move_import" and moved.fix.args == {"module": "gizmo.old", "moves": {"helper": "gizmo.util"}}
    assert [(e.path, e.symbol) for e in moved.target_evidence] == [("gizmo/util.py", "gizmo.util.helper")]
    real = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "main()")
    assert all(f.predicted_failure == "ModuleNotFoundError: No module named 'gizmo.old'" for f in findings)
    assert real is not None and real.startswith(findings[0].predicted_failure)


def test_two_names_of_a_gone_module_on_one_line_are_two_findings(tmp_path):
    consumer = "from gizmo.old import Engine, LIMIT\n\ndef main():\n    return Engine(), LIMIT\n"
    findings = findings_of(tmp_path, Case("x", GONE_MODULE_BEFORE, GONE_MODULE_AFTER, {"app/main.py": consumer}))
    assert sorted((f.rule_id, f.consumer_site.line, f.symbol) for f in findings) == [
        ("DRIFT001", 1, "gizmo.old.Engine"), ("DRIFT001", 1, "gizmo.old.LIMIT"),
        ("DRIFT005", 4, "gizmo.old.Engine")]  # the call at the use; a bare name read is not a use it reports
