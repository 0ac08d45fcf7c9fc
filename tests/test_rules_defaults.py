"""DRIFT050: a switch default (None/True/False) that flipped under a call relying on it."""

from __future__ import annotations

import pytest

from drift.findings import Severity
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, run_case

OPTIONS = """
    from dataclasses import dataclass

    @dataclass
    class Options:
        name: str = "x"
        use_cache: bool | None = {cache}
        size: int = {size}
    """
BEFORE = {"gizmo/core.py": OPTIONS.format(cache="None", size="1")}
FLIPPED = {"gizmo/core.py": OPTIONS.format(cache="True", size="1")}
TUNED = {"gizmo/core.py": OPTIONS.format(cache="None", size="2")}

FUNC_BEFORE = {"gizmo/core.py": "def connect(host, secure=False):\n    return host\n"}
FUNC_AFTER = {"gizmo/core.py": "def connect(host, secure=True):\n    return host\n"}

RELIES = """
    from gizmo.core import Options

    def main():
        return Options(name="y")
    """
PASSES = """
    from gizmo.core import Options

    def main():
        return Options(name="y", use_cache=False)
    """
CONNECTS = """
    from gizmo.core import connect

    def main():
        return connect("h")
    """
CONNECTS_POSITIONAL = """
    from gizmo.core import connect

    def main():
        return connect("h", False)
    """
OPTIONS_LINE = line_of(RELIES, "Options(name=")

CASES = [
    Case("field-flipped", BEFORE, FLIPPED, {"app/main.py": RELIES}, [("DRIFT050", OPTIONS_LINE)]),
    Case("field-passed", BEFORE, FLIPPED, {"app/main.py": PASSES}, []),
    Case("tuning-value-changed", BEFORE, TUNED, {"app/main.py": RELIES}, []),
    Case("unchanged", BEFORE, BEFORE, {"app/main.py": RELIES}, []),
    Case("param-flipped", FUNC_BEFORE, FUNC_AFTER, {"app/main.py": CONNECTS},
         [("DRIFT050", "default of `secure` changed False → True")]),
    Case("param-passed-positionally", FUNC_BEFORE, FUNC_AFTER, {"app/main.py": CONNECTS_POSITIONAL}, []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_default_changed(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_flip_is_risky_and_does_not_fail_the_check(tmp_path):
    out = run_case(tmp_path, before=BEFORE, after=FLIPPED, consumer={"app/main.py": RELIES})
    f = only(out.report.findings, "DRIFT050")
    assert f.severity is Severity.RISKY
    assert f.title == "`Options`: default of `use_cache` changed None → True; the call relies on it"
    assert [(e.line, e.snippet) for e in f.target_evidence] == [(line_of(OPTIONS, "use_cache"), "use_cache = True")]
    assert [(e.line, e.snippet) for e in f.baseline_evidence] == [(line_of(OPTIONS, "use_cache"), "use_cache = None")]
    assert f.fix.codemod is None and "use_cache=None" in f.fix.description
    assert out.exit_code == 0 and out.report.exit_code == 0


def test_without_baseline_nothing_is_reported(tmp_path):
    case = Case("no-baseline", None, FLIPPED, {"app/main.py": RELIES}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
