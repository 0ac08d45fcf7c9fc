"""A function that saves a target method before installing its own over it (`orig =
Executor._run_workers`, then `Executor._run_workers = patched` further down): where the target
no longer has the method, the save raises AttributeError, whatever the install puts there after.
An install that runs elsewhere (another function) may have run first: left alone."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/executor.py": """
    class Executor:
        def _run_workers(self, method):
            return method
    """}
AFTER = {"gizmo/executor.py": """
    class Executor:
        def collective_rpc(self, method):
            return method
    """}
SAVES = """
    from gizmo.executor import Executor


    def install():
        original = Executor._run_workers

        def patched(self, method):
            return original(self, method)

        Executor._run_workers = patched
    """


def test_the_save_of_the_original_fails_before_the_install(tmp_path):
    found = [f for f in findings_of(tmp_path, Case("saved", BEFORE, AFTER, {"app/patch.py": SAVES}))
             if f.rule_id == "DRIFT060"]
    assert [f.consumer_site.line for f in found] == [line_of(SAVES, "original = Executor._run_workers")]


def test_an_install_elsewhere_may_come_first(tmp_path):
    elsewhere = SAVES + """

    def early():
        Executor._run_workers = lambda self, method: method
    """
    found = [f for f in findings_of(tmp_path, Case("saved-elsewhere", BEFORE, AFTER, {"app/patch.py": elsewhere}))
             if f.rule_id == "DRIFT060"]
    assert found == []
