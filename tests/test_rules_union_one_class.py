"""A value annotated `Union[_AsyncLLMEngine, "ray.ObjectRef"]` (what vLLM 0.5's `_init_engine`
returns): the one member naming a class of the package types it, so `engine.scheduler.running`
is held to that class, whose `scheduler` became a list of schedulers. A union of two classes of
the package says neither, and nothing is reported."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

ENGINE = """
    from typing import Union


    class Scheduler:
        def __init__(self):
            self.running = []


    class Other:
        pass


    class Core:
        def __init__(self):
            self.scheduler = {scheduler}


    class AsyncEngine:
        def __init__(self):
            self.engine = self._init_engine()

        def _init_engine(self) -> {returns}:
            return Core()
    """
CONSUMER = {"app/__init__.py": "", "app/model.py": """
    from gizmo.engine import AsyncEngine


    class Model:
        def __init__(self):
            self._model = AsyncEngine()

        def status(self):
            return len(self._model.engine.scheduler.running)
    """}


def _case(returns: str) -> Case:
    before = ENGINE.format(scheduler="Scheduler()", returns=returns)
    after = ENGINE.format(scheduler="[Scheduler() for _ in range(2)]", returns=returns)
    return Case("union", {"gizmo/engine.py": before}, {"gizmo/engine.py": after}, CONSUMER)


def test_the_one_package_class_of_a_union_types_the_value(tmp_path):
    src = CONSUMER["app/model.py"]
    found = [f for f in findings_of(tmp_path, _case('Union[Core, "ray.ObjectRef"]')) if f.severity.value == "breaking"]
    assert [f.consumer_site.line for f in found] == [line_of(src, "scheduler.running")], [f.title for f in found]
    assert "list" in found[0].title


def test_a_union_of_two_package_classes_says_neither(tmp_path):
    assert [f for f in findings_of(tmp_path, _case("Union[Core, Other]")) if f.severity.value == "breaking"] == []
