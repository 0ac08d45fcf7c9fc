"""`importlib.import_module("gizmo.x")` of a module the target removed (synthetic before/after
pairs): it raises where it is called, as `import gizmo.x` would, even in a file that also imports
the target the ordinary way."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

MINE = """
    import importlib

    from gizmo.core import Engine


    def load():
        data = importlib.import_module("gizmo.inputs.data")
        return data.TokensPrompt, Engine
    """


def _case(mine=MINE):
    before = {"gizmo/__init__.py": "", "gizmo/core.py": "class Engine:\n    pass\n", "gizmo/inputs/__init__.py": "",
              "gizmo/inputs/data.py": "class TokensPrompt(dict):\n    pass\n"}
    after = {"gizmo/__init__.py": "", "gizmo/core.py": "class Engine:\n    pass\n", "gizmo/inputs/__init__.py": "",
             "gizmo/inputs/llm.py": "class TokensPrompt(dict):\n    pass\n"}
    return Case("by-name", before, after, {"app/__init__.py": "", "app/mine.py": mine})


def test_a_module_imported_by_name_that_is_gone_breaks_where_it_is_named(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT001", line_of(MINE, 'import_module("gizmo.inputs.data")'))])
    f = findings[0]
    assert f.severity.value == "breaking" and f.symbol == "gizmo.inputs.data"
    assert f.predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "load()")
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", "load()") is None


def test_under_an_import_error_guard_it_is_no_break(tmp_path):
    mine = """
        import importlib


        def load():
            try:
                return importlib.import_module("gizmo.inputs.data")
            except ImportError:
                return importlib.import_module("gizmo.inputs.llm")
        """
    assert [f for f in findings_of(tmp_path, _case(mine)) if f.severity.value == "breaking"] == []
