"""DRIFT060/061 on a value kept in a local: `output = self.eng.engine.step()` raises where it is
assigned, so the loop over `output` and the reads of each item below it are no sites of their own
(the engine's class behind an alias lost `.engine`; the items' own members are unchanged)."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/engine.py": """
    class Out:
        def __init__(self):
            self.finished = False
            self.request_id = ""


    class Core:
        def busy(self) -> bool:
            return False

        def step(self) -> list[Out]:
            return []


    class Engine:
        def __init__(self):
            self.engine = Core()
    """}
AFTER = {"gizmo/engine.py": """
    class Out:
        def __init__(self):
            self.finished = False
            self.request_id = ""


    class NewEngine:
        def __init__(self):
            self.core = 1


    Engine = NewEngine
    """}
CONSUMER = {"app/backend.py": """
    from gizmo.engine import Engine


    class Backend:
        def __init__(self):
            self.eng = Engine()

        def run(self):
            while self.eng.engine.busy():
                output = self.eng.engine.step()
                for out in output:
                    if out.finished:
                        print(out.request_id)
    """}


def test_reads_through_a_local_are_reported_where_the_local_was_bound(tmp_path):
    src = CONSUMER["app/backend.py"]
    found = [f for f in findings_of(tmp_path, Case("retyped-locals", BEFORE, AFTER, CONSUMER))
             if f.rule_id in ("DRIFT060", "DRIFT061")]
    lines = {f.consumer_site.line for f in found}
    assert lines == {line_of(src, "while self.eng.engine.busy()"), line_of(src, "output = self.eng.engine.step()")}, \
        [(f.rule_id, f.consumer_site.line, f.title) for f in found]
