"""DRIFT070 on a module function the consumer assigns over, held to the target's calls of it made
through an import inside the calling method under an alias (synthetic before/after trees). The
prediction is held to what the synthetic code really raises."""

from __future__ import annotations

from pathlib import Path

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

MONITOR_BEFORE = """
    def activate():
        return 1
    """
MONITOR_AFTER = """
    def activate(verbose: bool = False):
        return 1
    """
WORKER_BEFORE = """
    class Worker:
        def warm(self):
            from gizmo.utils.monitor import activate as activate_monitor
            return activate_monitor()
    """
WORKER_AFTER = """
    class Worker:
        def warm(self):
            from gizmo.utils.monitor import activate as activate_monitor
            return activate_monitor(verbose=True)
    """
PATCH = """
    import gizmo.utils.monitor


    def activate():
        return 2


    gizmo.utils.monitor.activate = activate


    def run():
        from gizmo.worker import Worker
        return Worker().warm()
    """


def _case(worker_after: str) -> Case:
    return Case("lazy", {"gizmo/utils/monitor.py": MONITOR_BEFORE, "gizmo/worker.py": WORKER_BEFORE},
                {"gizmo/utils/monitor.py": MONITOR_AFTER, "gizmo/worker.py": worker_after}, {"app/patch.py": PATCH})


def test_a_replacement_the_target_calls_through_an_aliased_lazy_import_with_a_new_keyword_breaks(tmp_path: Path):
    found = findings_of(tmp_path, _case(WORKER_AFTER))
    assert_findings(found, [("DRIFT070", line_of(PATCH, "def activate"))])
    f = only(found, "DRIFT070")
    assert f.severity.value == "breaking" and "`Worker.warm` passes it" in f.title
    assert f.target_evidence[0].line == line_of(WORKER_AFTER, "activate_monitor(verbose=True)")
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("before"), "app.patch", "run()") is None
    assert raised_by(roots("after"), "app.patch", "run()") == f.predicted_failure


def test_without_a_call_passing_the_new_keyword_it_stays_risky(tmp_path: Path):
    found = findings_of(tmp_path, _case(WORKER_BEFORE))
    assert_findings(found, [("DRIFT070", line_of(PATCH, "def activate"))])
    assert only(found, "DRIFT070").severity.value == "risky"
