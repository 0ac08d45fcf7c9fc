"""DRIFT121: a target function that became `async def`, called by the consumer without `await`
(probes/reach.unawaited_results marks the calls whose result is used as a plain value)."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only

BEFORE = """
    class Engine:
        def get_config(self):
            return {}

        def start(self):
            pass
    """

AFTER = """
    class Engine:
        async def get_config(self):
            return {}

        async def start(self):
            pass
    """

CONSUMER = """
    from gizmo.engine import Engine


    def serve(engine: Engine):
        engine.start()
        cfg = engine.get_config()
        return cfg["model"]


    def chained(engine: Engine):
        return engine.get_config().copy()


    async def fine(engine: Engine):
        await engine.start()
        cfg = engine.get_config()
        return await cfg


    def handed(engine: Engine, loop):
        return loop.run_until_complete(engine.get_config())
    """

CASES = [
    Case("now-async", {"gizmo/engine.py": BEFORE}, {"gizmo/engine.py": AFTER}, {"app/main.py": CONSUMER},
         [("DRIFT121", line_of(CONSUMER, "engine.start()")),
          ("DRIFT121", line_of(CONSUMER, "cfg = engine.get_config()")),
          ("DRIFT121", line_of(CONSUMER, "return engine.get_config().copy()"))]),
    Case("unchanged", {"gizmo/engine.py": BEFORE}, {"gizmo/engine.py": BEFORE}, {"app/main.py": CONSUMER}, []),
    # already async on the baseline: the consumer's plain calls were wrong before too, not drift
    Case("async-on-both", {"gizmo/engine.py": AFTER}, {"gizmo/engine.py": AFTER}, {"app/main.py": CONSUMER}, []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_now_async(tmp_path, case):
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT121" or not case.expected]
    assert_findings(tuple(found), case.expected)


def test_dropped_call_says_its_body_never_runs(tmp_path):
    found = [f for f in findings_of(tmp_path, CASES[0]) if f.rule_id == "DRIFT121"]
    dropped = next(f for f in found if f.consumer_site.line == line_of(CONSUMER, "engine.start()"))
    assert dropped.title.endswith("its body never runs")
    assert dropped.predicted_failure == "RuntimeWarning: coroutine 'Engine.start' was never awaited"
    used = next(f for f in found if f.consumer_site.line == line_of(CONSUMER, "cfg = engine.get_config()"))
    assert f"used at line {line_of(CONSUMER, 'return cfg[')}" in used.predicted_failure
