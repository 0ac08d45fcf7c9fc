"""A parameter annotated `cache_engine: CacheEngine` whose only caller hands it the vLLM worker's
own `self.cache_engine`, which the target made a list of engines: what arrives is what the caller
hands, not what the annotation (written for the baseline) says, so `.num_layers` on it is read on
a list (DRIFT061). Where no caller hands it a target object, the annotation still types it."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

ENGINE = """
    class CacheEngine:
        def __init__(self):
            self.num_layers = 2


    class Worker:
        def __init__(self):
            self.cache_engine{annotation} = {value}
    """
CONSUMER = {"app/__init__.py": "", "app/migration.py": """
    from gizmo.worker import CacheEngine, Worker


    class Backend:
        def __init__(self, cache_engine: CacheEngine):
            self.cache_engine = cache_engine
            self.layers = self.cache_engine.num_layers


    class MigrationWorker(Worker):
        def init_migration(self):
            self.backend = Backend(self.cache_engine)


    def standalone(engine: CacheEngine):
        return engine.num_layers
    """}


def test_what_callers_hand_stands_in_for_the_annotation(tmp_path):
    before = {"gizmo/worker.py": ENGINE.format(annotation="", value="CacheEngine()")}
    after = {"gizmo/worker.py": ENGINE.format(annotation=": list[CacheEngine]", value="[CacheEngine() for _ in range(2)]")}
    src = CONSUMER["app/migration.py"]
    found = [f for f in findings_of(tmp_path, Case("handed", before, after, CONSUMER)) if f.severity.value == "breaking"]
    assert [(f.rule_id, f.consumer_site.line) for f in found] == [("DRIFT061", line_of(src, "self.cache_engine.num_layers"))], \
        [(f.rule_id, f.consumer_site.line, f.title) for f in found]
