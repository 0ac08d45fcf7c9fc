"""A function one consumer module defines and another installs on a target class the target no
longer has (drift/analysis/rules/reach.py `_installed_dead`, `_installed_function`, `_owner_gone`).

`from .impl import run_step` then `gizmo.old.Worker.run_step = run_step`: on a target without
`gizmo.old`, the patching module fails at its import and nothing installs or calls `run_step`.
The import (DRIFT001) and the patch (DRIFT080) are the breaks; the read in the installed function
is the next one, met once the install is fixed: risky, naming the install (nnsight 0.5.12's
runner, installed as `gpu_worker.GPUModelRunner`, which vLLM 0.13 no longer reads: its maintainers
then fixed six reads of names the runner's base had lost). Where the class is still there, the
same read is breaking, with the error Python raises.
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


def test_a_function_installed_only_on_a_gone_class_is_read_as_the_next_break(tmp_path):
    found = findings_of(tmp_path, Case("gone", BEFORE, AFTER_GONE, {"app/__init__.py": INIT, "app/impl.py": IMPL}))
    assert_findings(found, [("DRIFT001", line_of(INIT, "import gizmo.old")),
                            ("DRIFT080", line_of(INIT, "gizmo.old.Worker.run_step = run_step")),
                            ("DRIFT060", line_of(IMPL, "return req.items"))])
    (read,) = [f for f in found if f.rule_id == "DRIFT060"]
    install = f"app line {line_of(INIT, 'gizmo.old.Worker.run_step = run_step')}"
    assert read.severity.value == "risky"
    assert read.predicted_failure.endswith(f"(once the install at {install} takes effect on the target again)")
    assert f"installs `run_step` into the target at {install}" in read.details


def test_the_same_function_installed_on_a_class_still_there_is_read(tmp_path):
    found = findings_of(tmp_path, Case("kept", BEFORE, AFTER_KEPT, {"app/__init__.py": INIT, "app/impl.py": IMPL}))
    assert_findings(found, [("DRIFT060", line_of(IMPL, "return req.items"))])
    read = found[0]
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app",
                     "gizmo.old.Worker().run_step(__import__('gizmo.req').req.Request())") == read.predicted_failure
