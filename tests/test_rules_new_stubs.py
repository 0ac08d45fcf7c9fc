"""DRIFT071 on a method new in a target base that only raises NotImplementedError: breaking when
the base's own code calls it on `self` from a method the consumer's class inherits; risky when
only other target objects call it (an engine, an executor), on paths the class does not decide."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, only, raised_by, write_tree

BEFORE = {"gizmo/worker.py": """
    class WorkerBase:
        def execute_model(self, out):
            raise NotImplementedError

        def step(self, out):
            return self.execute_model(out)

    class Engine:
        def __init__(self, worker):
            self.worker = worker

        def step(self, out):
            return self.worker.execute_model(out)
    """}
AFTER = {"gizmo/worker.py": """
    class WorkerBase:
        def execute_model(self, out):
            raise NotImplementedError

        def sample_tokens(self, grammar):
            '''Called after execute_model iff it returned None.'''
            raise NotImplementedError

        def warm_up(self, n):
            raise NotImplementedError

        def step(self, out):
            result = self.execute_model(out)
            return result if result is not None else self.sample_tokens(None)

        def prepare(self):
            self.warm_up(1)

    class Engine:
        def __init__(self, worker):
            self.worker = worker

        def step(self, out, batch_queue=False):
            result = self.worker.execute_model(out)
            if result is None or batch_queue:
                result = self.worker.sample_tokens(None)
            return result
    """}


def test_a_stub_only_other_objects_call_is_risky_one_the_base_calls_on_self_is_breaking(tmp_path):
    consumer = """
        from gizmo.worker import WorkerBase

        class MyWorker(WorkerBase):
            def execute_model(self, out):
                return out

            def step(self, out):
                return self.execute_model(out)
        """
    found = findings_of(tmp_path, Case("stubs", BEFORE, AFTER, {"app/worker.py": consumer}))
    by_name = {f.symbol.rsplit(".", 1)[-1]: f for f in found if f.rule_id == "DRIFT071"}
    assert set(by_name) == {"sample_tokens", "warm_up"}, [f.title for f in found]
    # MyWorker overrides step, so only the Engine calls sample_tokens: that depends on the engine's path
    sample = by_name["sample_tokens"]
    assert sample.severity.value == "risky"
    assert sample.consumer_site.line == line_of(consumer, "class MyWorker")
    assert "outside `WorkerBase`" in sample.details
    # warm_up is called by the inherited WorkerBase.prepare: calling prepare() raises
    warm = by_name["warm_up"]
    assert warm.severity.value == "breaking"
    assert warm.predicted_failure == "NotImplementedError (raised by WorkerBase.warm_up when `prepare` calls it)"
    assert warm.target_evidence[1].symbol == "gizmo.worker.WorkerBase.prepare"
    assert warm.target_evidence[1].line == line_of(AFTER["gizmo/worker.py"], "self.warm_up(1)")
    assert len(found) == 2
    roots = [write_tree(tmp_path / "run-after", AFTER), write_tree(tmp_path / "run-app", {"app/worker.py": consumer})]
    assert raised_by(roots, "app.worker", "MyWorker().prepare()") == "NotImplementedError: "


def test_a_stub_called_by_an_inherited_method_is_breaking(tmp_path):
    consumer = """
        from gizmo.worker import WorkerBase

        class MyWorker(WorkerBase):
            def execute_model(self, out):
                return None if out is None else out
        """
    found = findings_of(tmp_path, Case("inherited", BEFORE, AFTER, {"app/worker.py": consumer}))
    sample = only(tuple(f for f in found if f.symbol.endswith("sample_tokens")), "DRIFT071")
    assert sample.severity.value == "breaking"
    assert sample.predicted_failure == "NotImplementedError (raised by WorkerBase.sample_tokens when `step` calls it)"
