"""Consumer classes the target receives from an override or builds as a copy, on synthetic
before/after trees, each prediction held to what the synthetic code really raises:
- a duck-typed backend class in a module that never names the target (so the usage reader has no
  reason of its own to read it), returned by an override the target's base annotates
  `-> type[Backend]`, lacks a member the target now calls on whatever that method returns
  (DRIFT082, risky);
- a target base's inherited method builds `self.__class__(...)`, and the consumer's subclass
  `__init__` takes another first argument (DRIFT085)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

BACKEND_BEFORE = """
    class Backend:
        @staticmethod
        def get_name() -> str:
            raise NotImplementedError
    """
BACKEND_AFTER = """
    class Backend:
        @staticmethod
        def get_name() -> str:
            raise NotImplementedError

        @classmethod
        def is_ssm(cls) -> bool:
            return False
    """
LAYER = """
    from gizmo.backend import Backend


    class LayerBase:
        def get_backend(self) -> type[Backend]:
            raise NotImplementedError
    """
PLATFORM_BEFORE = """
    def pick(layers):
        for layer in layers:
            b = layer.get_backend()
            return b.get_name()
    """
PLATFORM_AFTER = """
    def pick(layers):
        for layer in layers:
            b = layer.get_backend()
            if not b.is_ssm():
                return b.get_name()
    """
MY_BACKENDS = """
    class MyBackend:
        accept_output: bool = False

        @staticmethod
        def get_name() -> str:
            return "MINE"
    """
MY_BACKENDS_FIXED = MY_BACKENDS + """
        @classmethod
        def is_ssm(cls) -> bool:
            return False
    """
MY_LAYER = """
    from app.backends import MyBackend
    from gizmo.layer import LayerBase


    class MyLayer(LayerBase):
        def __init__(self):
            self.backend = MyBackend

        def get_backend(self):
            return self.backend
    """


def _backend_case(backends: str, expected) -> Case:
    return Case("returned-duck-backend",
                before={"gizmo/backend.py": BACKEND_BEFORE, "gizmo/layer.py": LAYER, "gizmo/platform.py": PLATFORM_BEFORE},
                after={"gizmo/backend.py": BACKEND_AFTER, "gizmo/layer.py": LAYER, "gizmo/platform.py": PLATFORM_AFTER},
                consumer={"app/backends.py": backends, "app/layer.py": MY_LAYER}, expected=expected)


def test_a_duck_backend_in_a_module_that_never_names_the_target_is_held_to_the_new_member(tmp_path):
    case = _backend_case(MY_BACKENDS, [("DRIFT082", line_of(MY_BACKENDS, "class MyBackend"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    f = only(findings, "DRIFT082")
    assert f.severity.value == "risky" and f.consumer_site.path == "app/backends.py"
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "gizmo.platform",
                       "pick([__import__('app.layer', fromlist=['MyLayer']).MyLayer()])")
    assert raised == f.predicted_failure == "AttributeError: type object 'MyBackend' has no attribute 'is_ssm'"


def test_a_duck_backend_that_has_the_new_member_is_silent(tmp_path):
    case = _backend_case(MY_BACKENDS_FIXED, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "gizmo.platform",
                     "pick([__import__('app.layer', fromlist=['MyLayer']).MyLayer()])") is None


PREFILL_BEFORE = """
    class Prefill:
        def __init__(self, num_heads, scale):
            self.num_heads = num_heads
            self.scale = scale
    """
PREFILL_AFTER = PREFILL_BEFORE + """
        def clone(self):
            return self.__class__(num_heads=self.num_heads, scale=self.scale)
    """
BUILDER_BEFORE = """
    def build(ctx):
        return ctx.prefill
    """
BUILDER_AFTER = """
    def build(ctx):
        return ctx.prefill.clone()
    """
MINE = """
    from gizmo.prefill import Prefill


    class Mine(Prefill):
        def __init__(self, layer, num_heads, scale):
            super().__init__(num_heads=num_heads, scale=scale)
            self.layer = layer
    """
MINE_CLONES = MINE + """
        def clone(self):
            return Mine(self.layer, self.num_heads, self.scale)
    """
BUILD = "build(type('Ctx', (), {'prefill': __import__('app.mine', fromlist=['Mine']).Mine(None, 2, 0.5)})())"


def _clone_case(mine: str, before_prefill: str, expected) -> Case:
    return Case("self-class-copy",
                before={"gizmo/prefill.py": before_prefill, "gizmo/builder.py": BUILDER_BEFORE},
                after={"gizmo/prefill.py": PREFILL_AFTER, "gizmo/builder.py": BUILDER_AFTER},
                consumer={"app/mine.py": mine}, expected=expected)


def test_a_base_method_that_builds_the_receivers_class_runs_the_subclass_init(tmp_path):
    case = _clone_case(MINE, PREFILL_BEFORE, [("DRIFT085", line_of(MINE, "def __init__"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    f = only(findings, "DRIFT085")
    assert f.severity.value == "breaking"
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "gizmo.builder", BUILD)
    assert raised == "TypeError: Mine.__init__() missing 1 required positional argument: 'layer'"
    assert f.predicted_failure.startswith("TypeError: Mine.__init__()")


def test_a_subclass_that_overrides_the_copy_is_silent(tmp_path):
    case = _clone_case(MINE_CLONES, PREFILL_BEFORE, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "gizmo.builder", BUILD) is None


def test_a_copy_the_baseline_already_made_is_no_drift(tmp_path):
    case = _clone_case(MINE, PREFILL_AFTER, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


# -- objects handed over: the consumer builds them, the target keeps them as one of its classes ----
SINK_BEFORE = """
    class Sink:
        def write(self, item):
            raise NotImplementedError


    class Engine:
        def __init__(self):
            self.sink: Sink | None = None

        def attach(self, sink: Sink):
            self.sink = sink

        def step(self, item):
            self.sink.write(item)
    """
SINK_AFTER = """
    class Sink:
        def write(self, item):
            raise NotImplementedError

        def flush(self):
            pass


    class Engine:
        def __init__(self):
            self.sink: Sink | None = None

        def attach(self, sink: Sink):
            self.sink = sink

        def step(self, item):
            self.sink.write(item)
            self.sink.flush()
    """
MY_SINK = """
    from gizmo.engine import Engine


    class ListSink:
        def __init__(self, size):
            self.items = []

        def write(self, item):
            self.items.append(item)


    def start():
        engine = Engine()
        engine.attach(ListSink(4))
        return engine
    """


def test_a_duck_object_handed_to_the_target_is_held_to_what_the_target_now_uses_on_it(tmp_path):
    case = Case("handed-object", {"gizmo/engine.py": SINK_BEFORE}, {"gizmo/engine.py": SINK_AFTER},
                {"app/sink.py": MY_SINK}, [("DRIFT082", line_of(MY_SINK, "class ListSink"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    f = only(findings, "DRIFT082")
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.sink", "start().step(1)")
    assert raised == f.predicted_failure == "AttributeError: 'ListSink' object has no attribute 'flush'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.sink", "start().step(1)") is None


def test_handed_modules_are_the_same_read_cold_and_warm(tmp_path):
    """A module the reader looks into for another reason (it names a class in a `*_cls` string,
    calls `setattr`) and keeps a record of, naming nothing of the target, is handed like any
    file never read, on the first run and on runs that read the cache back."""
    from drift.consumer.usage import collect_usage
    from tests.rule_cases import write_tree

    backends = """
        from app.helpers import Helper

        default_cls = "app.helpers:Helper"


        class MyBackend:
            @staticmethod
            def get_name() -> str:
                return "MINE"


        def configure(obj):
            setattr(obj, "ready", True)
            return Helper
        """
    root = write_tree(tmp_path / "consumer", {"app/backends.py": backends, "app/layer.py": MY_LAYER,
                                              "app/helpers.py": "class Helper:\n    pass\n"})
    cache = str(tmp_path / "cache")
    runs = [collect_usage(root, ["app"], ["gizmo"], cache_dir=cache) for _ in range(3)]
    read = [sorted(m["module"] for m in usage if isinstance(m, dict)) for usage in runs]
    assert read[0] == read[1] == read[2]
    assert "app.backends" in read[0]
    backend = next(m for m in runs[2] if m["module"] == "app.backends")
    assert "MyBackend" in backend["classes"] and backend.get("handed")
