"""A function one consumer module defines and another installs on a target class the target no
longer has (drift/analysis/rules/reach.py `_installed_dead`, `_installed_function`, `_owner_gone`).

`from .impl import run_step` then `gizmo.old.Worker.run_step = run_step`: on a target without
`gizmo.old`, the patching module fails at its import and nothing installs or calls `run_step`,
so what its body reads is no break of its own. The import (DRIFT001) and the patch (DRIFT080)
are reported; the read in the installed function is not. Where the class is still there, the
same read is reported, with the error Python raises.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/old.py": """
        class Worker:
            def run_step(self, req):
                return req
        """,
    "gizmo/req.py": """
        class Request:
            def __init__(self):
                self.items = [1]
        """,
}
AFTER_GONE = {
    "gizmo/req.py": """
        class Request:
            def __init__(self):
                self.entries = [1]
        """,
}
AFTER_KEPT = {"gizmo/old.py": BEFORE["gizmo/old.py"], "gizmo/req.py": AFTER_GONE["gizmo/req.py"]}
IMPL = """
    from gizmo.req import Request


    def run_step(self, req: Request):
        return req.items
    """
INIT = """
    import gizmo.old
    from .impl import run_step

    gizmo.old.Worker.run_step = run_step
    """


def test_a_function_installed_only_on_a_gone_class_is_not_read(tmp_path):
    found = findings_of(tmp_path, Case("gone", BEFORE, AFTER_GONE, {"app/__init__.py": INIT, "app/impl.py": IMPL}))
    assert_findings(found, [("DRIFT001", line_of(INIT, "import gizmo.old")),
                            ("DRIFT080", line_of(INIT, "gizmo.old.Worker.run_step = run_step"))])


def test_the_same_function_installed_on_a_class_still_there_is_read(tmp_path):
    found = findings_of(tmp_path, Case("kept", BEFORE, AFTER_KEPT, {"app/__init__.py": INIT, "app/impl.py": IMPL}))
    assert_findings(found, [("DRIFT060", line_of(IMPL, "return req.items"))])
    read = found[0]
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app",
                     "gizmo.old.Worker().run_step(__import__('gizmo.req').req.Request())") == read.predicted_failure
