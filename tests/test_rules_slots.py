"""Classes the target builds in a slot of its own (DRIFT082, DRIFT083), on synthetic before/after
trees: a duck-typed class registered with a lazy registry by module and class name, and a subclass
named in a `*_cls` setting. Each prediction is held to what the synthetic code really raises."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

ENGINE_BEFORE = """
    class Engine:
        def __init__(self, config, parallel, model):
            self.config = config

        def receive(self, info):
            raise NotImplementedError
    """
ENGINE_AFTER = """
    class Engine:
        def __init__(self, config, full_config, device, model):
            self.config = config

        def receive(self, info):
            raise NotImplementedError

        def update_weights(self, info):
            self.receive(info)
    """
FACTORY = """
    import importlib

    from gizmo.engine import Engine


    class Factory:
        _registry = {}

        @classmethod
        def register_engine(cls, name, module_path_or_cls: "str | type[Engine]", class_name=None):
            if isinstance(module_path_or_cls, str):
                cls._registry[name] = lambda: getattr(importlib.import_module(module_path_or_cls), class_name)
            else:
                cls._registry[name] = lambda: module_path_or_cls

        @classmethod
        def create_engine(cls, name, *args) -> Engine:
            return cls._registry[name]()(*args)
    """
WORKER_BEFORE = FACTORY + """

    class Worker:
        def __init__(self, name):
            self.engine: Engine | None = None
            self.engine = Factory.create_engine(name, {}, "parallel", "model")

        def update(self, info):
            self.engine.receive(info)
    """
WORKER_AFTER = FACTORY + """

    class Worker:
        def __init__(self, name):
            self.engine: Engine | None = None
            self.engine = Factory.create_engine(name, {}, "full", "cpu", "model")

        def update(self, info):
            self.engine.update_weights(info)
    """
DELTA = """
    from gizmo.worker import Factory


    def register():
        Factory.register_engine("delta", "app.delta", "Delta")


    class Delta:
        def __init__(self, config, parallel, model):
            self.model = model

        def receive(self, info):
            return info
    """

SCHED = """
    class SchedulerInterface:
        def schedule(self):
            raise NotImplementedError


    class Scheduler(SchedulerInterface):
        def __init__(self):
            self.connector = None
            self.ec_connector = None

        def schedule(self):
            return []


    class SchedulerConfig:
        scheduler_cls = Scheduler
    """
CORE_BEFORE = SCHED + """

    class Core:
        def __init__(self, config):
            self.scheduler: SchedulerInterface = config.scheduler_cls()
            if self.scheduler.connector is not None:
                self.scheduler.schedule()
    """
CORE_AFTER = SCHED + """

    class Core:
        def __init__(self, config):
            self.scheduler: SchedulerInterface = config.scheduler_cls()
            if self.scheduler.connector is not None:
                self.scheduler.schedule()
            if self.scheduler.ec_connector is not None:
                self.scheduler.schedule()
    """
MINE = """
    from gizmo.core import SchedulerConfig, SchedulerInterface


    class MyScheduler(SchedulerInterface):
        def __init__(self):
            self.connector = None

        def schedule(self):
            return []


    def configure(config: SchedulerConfig):
        config.scheduler_cls = MyScheduler
    """


def test_registered_duck_typed_class_misses_a_method_and_the_new_constructor(tmp_path):
    case = Case("registered", {"gizmo/engine.py": ENGINE_BEFORE, "gizmo/worker.py": WORKER_BEFORE},
                {"gizmo/engine.py": ENGINE_AFTER, "gizmo/worker.py": WORKER_AFTER}, {"app/delta.py": DELTA})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT082", line_of(DELTA, "class Delta")),
                            ("DRIFT083", line_of(DELTA, "def __init__"))])
    missing = only(found, "DRIFT082")
    assert missing.severity.value == "breaking"
    assert "`update_weights`" in missing.title and "`receive`" not in missing.title
    assert missing.target_evidence[0].line == line_of(WORKER_AFTER, "self.engine.update_weights")
    init = only(found, "DRIFT083")
    assert "config, full_config, device, model" in init.title
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    run = "(register(), __import__('gizmo.worker').worker.Worker('delta').update({}))"
    assert raised_by(roots("before"), "app.delta", run) is None
    assert raised_by(roots("after"), "app.delta", run) == \
        "TypeError: Delta.__init__() takes 4 positional arguments but 5 were given"
    # with the constructor fixed, the missing method is what fails next
    fixed = {"app/delta.py": DELTA.replace("def __init__(self, config, parallel, model)",
                                           "def __init__(self, config, full_config, device, model)")}
    case2 = Case("registered-fixed-init", case.before, case.after, fixed)
    found2 = findings_of(tmp_path / "fixed", case2)
    assert_findings(found2, [("DRIFT082", line_of(DELTA, "class Delta"))])
    assert raised_by([tmp_path / "fixed" / "after", tmp_path / "fixed" / "consumer"], "app.delta", run) == \
        "AttributeError: 'Delta' object has no attribute 'update_weights'"


def test_a_registered_class_that_has_the_members_or_extends_the_slot_class_is_silent(tmp_path):
    complete = DELTA.replace("def __init__(self, config, parallel, model)", "def __init__(self, *args)") + """

        def update_weights(self, info):
            return self.receive(info)
    """
    case = Case("complete", {"gizmo/engine.py": ENGINE_BEFORE, "gizmo/worker.py": WORKER_BEFORE},
                {"gizmo/engine.py": ENGINE_AFTER, "gizmo/worker.py": WORKER_AFTER}, {"app/delta.py": complete})
    assert_findings(findings_of(tmp_path, case), [])


def test_subclass_named_in_a_cls_setting_lacks_state_the_target_now_reads(tmp_path):
    case = Case("named", {"gizmo/core.py": CORE_BEFORE}, {"gizmo/core.py": CORE_AFTER}, {"app/sched.py": MINE})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT082", line_of(MINE, "def __init__"))])
    f = only(found, "DRIFT082")
    assert "`ec_connector`" in f.title and "named in `scheduler_cls`" in f.title
    assert f.target_evidence[0].line == line_of(CORE_AFTER, "self.scheduler.ec_connector")
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    run = "(configure(__import__('gizmo.core').core.SchedulerConfig), " \
          "__import__('gizmo.core').core.Core(__import__('gizmo.core').core.SchedulerConfig))"
    assert raised_by(roots("before"), "app.sched", run) is None
    assert raised_by(roots("after"), "app.sched", run) == \
        "AttributeError: 'MyScheduler' object has no attribute 'ec_connector'"


def test_a_read_the_target_guards_with_hasattr_is_silent(tmp_path):
    guarded = CORE_AFTER.replace("if self.scheduler.ec_connector is not None:",
                                 "if getattr(self.scheduler, 'ec_connector', None) is not None:")
    case = Case("guarded", {"gizmo/core.py": CORE_BEFORE}, {"gizmo/core.py": guarded}, {"app/sched.py": MINE})
    assert_findings(findings_of(tmp_path, case), [])


BACKEND_BEFORE = """
    class Builder:
        support = 1


    class Backend:
        @staticmethod
        def get_builder_cls():
            raise NotImplementedError


    class FlashBuilder(Builder):
        pass


    class FlashBackend(Backend):
        @staticmethod
        def get_builder_cls() -> type["FlashBuilder"]:
            return FlashBuilder


    class TreeBuilder(Builder):
        pass


    class TreeBackend(Backend):
        @staticmethod
        def get_builder_cls() -> type["TreeBuilder"]:
            return TreeBuilder


    def select(backend):
        builder_cls = backend.get_builder_cls()
        return builder_cls.support
    """
BACKEND_AFTER = BACKEND_BEFORE.replace("""    class Builder:
        support = 1
""", """    class Builder:
        _support = 1

        @classmethod
        def get_support(cls, config):
            return cls._support
""").replace("return builder_cls.support", "return builder_cls.get_support(None)")
MY_BACKEND = """
    from gizmo.backend import Backend


    class MyBuilder:
        support = 2


    class MyBackend(Backend):
        @staticmethod
        def get_builder_cls():
            return MyBuilder
    """


def test_a_stand_in_returned_where_the_targets_implementations_return_a_slot_class(tmp_path):
    """The base's `get_builder_cls` has no return annotation; the target's own implementations say
    they return Builders, so the consumer's returned class stands in for a Builder, and lacks the
    classmethod the target now calls on what `get_builder_cls` returns (risky: the call is on a local)."""
    case = Case("returned", {"gizmo/backend.py": BACKEND_BEFORE}, {"gizmo/backend.py": BACKEND_AFTER},
                {"app/backend.py": MY_BACKEND})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT082", line_of(MY_BACKEND, "support = 2"))])
    f = only(found, "DRIFT082")
    assert f.severity.value == "risky" and "`get_support`" in f.title and "`support`" in f.title
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    run = "__import__('gizmo.backend').backend.select(MyBackend)"
    assert raised_by(roots("before"), "app.backend", run) is None
    assert raised_by(roots("after"), "app.backend", run) == f.predicted_failure
