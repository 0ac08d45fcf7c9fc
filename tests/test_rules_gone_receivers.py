"""DRIFT128: a member used on an object typed by a class the target removed, where the target's
source names the member nowhere; a member that lives on elsewhere is left alone."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {
    "gizmo/executor/base.py": """
        class ExecutorBase:
            def __init__(self):
                self.cache_size = 4

            def measure_free_blocks(self):
                return 8, 0

            def shutdown(self):
                return None
        """,
    "gizmo/engine.py": """
        class Engine:
            def shutdown(self):
                return None
        """,
}
AFTER = {
    "gizmo/engine.py": """
        class Engine:
            def shutdown(self):
                return None
        """,
}
CONSUMER = """
    from gizmo.executor.base import ExecutorBase


    def fits(executor: ExecutorBase, wanted: int) -> bool:
        free, _ = executor.measure_free_blocks()
        executor.shutdown()
        return free * executor.cache_size >= wanted
    """


def _found(tmp_path, after=AFTER):
    case = Case("gone-class", before=BEFORE, after=after, consumer={"app/probe.py": CONSUMER})
    return [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT128"]


def test_member_named_nowhere_on_a_gone_class_is_reported_at_its_use(tmp_path):
    found = _found(tmp_path)
    assert sorted((f.consumer_site.line, f.symbol) for f in found) == sorted([
        (line_of(CONSUMER, "measure_free_blocks()"), "gizmo.executor.base.ExecutorBase.measure_free_blocks"),
        (line_of(CONSUMER, "executor.cache_size"), "gizmo.executor.base.ExecutorBase.cache_size"),
    ])  # `shutdown` lives on in Engine: not proven gone
    assert all(f.severity.value == "risky" for f in found)
    # the prediction holds once the import is fixed: any object the target has lacks the member
    write_tree(tmp_path / "run", {"gizmo/engine.py": AFTER["gizmo/engine.py"], "app/probe.py": CONSUMER.replace(
        "from gizmo.executor.base import ExecutorBase", "from gizmo.engine import Engine as ExecutorBase")})
    err = raised_by([tmp_path / "run"], "app.probe", "fits(ExecutorBase(), 1)")
    assert err is not None and err.startswith("AttributeError") and "measure_free_blocks" in err


def test_a_class_still_there_or_a_name_the_target_still_writes_is_left_alone(tmp_path):
    kept = dict(AFTER, **{"gizmo/executor/base.py": BEFORE["gizmo/executor/base.py"]})
    assert _found(tmp_path / "kept", kept) == []
    mentioned = dict(AFTER, **{"gizmo/other.py": """
        def measure_free_blocks(worker):
            return worker

        class Pool:
            def __init__(self):
                self.cache_size = 2
        """})
    assert _found(tmp_path / "mentioned", mentioned) == []
