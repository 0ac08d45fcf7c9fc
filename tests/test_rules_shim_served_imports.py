"""An import the baseline served from a deprecation `__getattr__` (vLLM 0.13's
`vllm.entrypoints.openai.tool_parsers` forwards `ToolParserManager` to `vllm.tool_parsers`) worked
there: once the target drops the module it is a break, not "importable in neither release". And a
fallback import under `except` whose `try` succeeds on the baseline never runs there: it does not
make the module dead on the baseline (MindIE-PyMotor's launch_server.py, whose findings were all
lowered to risky by those two).
"""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

NEW = """
    class Manager:
        @classmethod
        def get(cls, name):
            return name
    """
SHIM = """
    import warnings


    def __getattr__(name):
        if name == "Manager":
            from gizmo.parsers import Manager

            warnings.warn("moved to gizmo.parsers", DeprecationWarning)
            return Manager
        raise AttributeError(name)
    """
BEFORE = {"gizmo/parsers.py": NEW, "gizmo/old/__init__.py": SHIM,
          "gizmo/utils/system.py": "def set_title(name):\n    return name\n"}
AFTER = {"gizmo/parsers.py": NEW, "gizmo/utils/system.py": "def set_title(name):\n    return name\n"}
MINE = """
    from gizmo.old import Manager


    def start():
        try:
            from gizmo.utils.system import set_title
        except Exception:
            from gizmo.utils import set_title
        set_title("server")
        return Manager.get("x")
    """


def test_a_name_the_baseline_served_from_its_getattr_is_a_break_once_gone(tmp_path):
    case = Case("shim-served", BEFORE, AFTER, {"app/mine.py": MINE},
                [("DRIFT002", line_of(MINE, "from gizmo.old import Manager"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    assert findings[0].severity is Severity.BREAKING
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", {"app/mine.py": MINE})
    assert raised_by([before, app], "app.mine", "start()") is None
    assert raised_by([after, app], "app.mine", "start()") == "ModuleNotFoundError: No module named 'gizmo.old'"
