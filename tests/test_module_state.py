"""Module state one function sets and another reads: `global _engine; _engine = Engine()` in a
start-up function, `_engine.method()` in a handler. The name is the module's, not the setting
function's local, so the solver binds it to what the function stores and the reader's use is
judged on that object (synthetic before/after pair, the consumer really run on both)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

ENGINE = """
    class Engine:
        def old(self):
            return 1

        def keep(self):
            return 3
    """
BEFORE = {"gizmo/__init__.py": "", "gizmo/engine.py": ENGINE}
AFTER = {"gizmo/__init__.py": "", "gizmo/engine.py": ENGINE.replace("def old", "def new")}

MINE = """
    from gizmo.engine import Engine

    _engine = None
    _mine = None


    class Own:
        def old(self):
            return 2


    def start():
        global _engine, _mine
        _engine = Engine()
        _mine = Own()


    def handle():
        return _engine.keep(), _engine.old()


    def handle_own():
        return _mine.old()
    """


def test_a_target_object_kept_in_module_state_is_judged_where_another_function_reads_it(tmp_path):
    findings = findings_of(tmp_path, Case("state", BEFORE, AFTER, {"app/__init__.py": "", "app/mine.py": MINE}))
    assert_findings(findings, [("DRIFT060", line_of(MINE, "return _engine.keep(), _engine.old()"))])
    run = "(start(), handle(), handle_own())"
    assert findings[0].predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", run) \
        == "AttributeError: 'Engine' object has no attribute 'old'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", run) is None
