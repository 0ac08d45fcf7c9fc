"""Objects built from a class the target was handed, and classes built as one of an interface's
implementations.

- `self.model_executor = executor_class(vllm_config)` in vLLM's `EngineCore.__init__`, with
  `executor_class: type[Executor]`: the attribute holds an `Executor`, so a consumer subclass (or a
  function installed as the class's `__init__`) reading a property `Executor` lost is a break
  (afd-plugin: `self.model_executor.max_concurrent_batches` on vLLM 0.26).
- `Scheduler = vllm_config.scheduler_config.get_scheduler_cls()` returns `type[SchedulerInterface]`,
  whose `__init__` is abstract: a parameter the interface newly requires is one that implementations
  must accept; the default implementation may still give it a default, so a call leaving it out is
  risky, not a certain TypeError.
"""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by, write_tree

ENGINE = """
    from abc import ABC, abstractmethod


    class Executor:{property}
        def run(self):
            return 0


    class Core:
        def __init__(self, executor_class: type[Executor]):
            self.model_executor = executor_class()


    class SchedulerInterface(ABC):
        @abstractmethod
        def __init__(self, config, block_size{required}):
            raise NotImplementedError


    class Scheduler(SchedulerInterface):
        def __init__(self, config, block_size{defaulted}):
            self.config = config


    def get_scheduler_cls() -> type[SchedulerInterface]:
        return Scheduler
    """
PROPERTY = """
        @property
        def max_concurrent_batches(self):
            return 1
"""
BEFORE = {"gizmo/engine.py": ENGINE.format(property=PROPERTY, required="", defaulted="")}
AFTER = {"gizmo/engine.py": ENGINE.format(property="", required=", hash_block_size", defaulted=", hash_block_size=None")}
MINE = """
    from gizmo.engine import Core, Executor, get_scheduler_cls


    class MyCore(Core):
        def batches(self):
            return self.model_executor.max_concurrent_batches

        def runs(self):
            return self.model_executor.run()


    def build():
        sched_cls = get_scheduler_cls()
        return sched_cls(config=1, block_size=16)
    """


def test_an_attribute_built_from_a_type_parameter_is_an_object_of_that_class(tmp_path):
    case = Case("type-param", BEFORE, AFTER, {"app/mine.py": MINE},
                [("DRIFT060", line_of(MINE, "self.model_executor.max_concurrent_batches")),
                 ("DRIFT011", line_of(MINE, "return sched_cls(config=1, block_size=16)"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    assert only(findings, "DRIFT060").severity is Severity.BREAKING
    required = only(findings, "DRIFT011")
    assert required.severity is Severity.RISKY and "abstract" in (required.details or "")
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", {"app/mine.py": MINE})
    assert raised_by([after, app], "app.mine", "MyCore(Executor).batches()") \
        == "AttributeError: 'Executor' object has no attribute 'max_concurrent_batches'"
    assert raised_by([after, app], "app.mine", "build()") is None  # the default implementation defaults it


def test_unchanged_target_is_silent(tmp_path):
    case = Case("type-param-unchanged", BEFORE, BEFORE, {"app/mine.py": MINE}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
