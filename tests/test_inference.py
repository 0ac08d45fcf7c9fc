"""The consumer typed by inference (probes/ir.py -> drift/consumer/infer.py): ways of reaching the
target that no pattern names, each in a synthetic before/after pair with the consumer that
meets it, and what Python really raises where there is an error to raise.

- a stand-in class whose `__init__` is bound after the class (`Cls.__init__ = new_init`): the
  attributes it sets are typed from new_init's annotated parameter and from a `Type[X] = X`
  default, so a removed field and a removed keyword of a classmethod are found;
- a consumer class and a function assigned into a target module (`gizmo.manager.Manager = Mine`):
  the target's own code now calls them, so their parameters must take what the target passes;
- a value flowing through a helper in another consumer module (a parameter typed by the call);
- a guarded import whose name is gone (DRIFT077, risky), and the guards that keep it silent;
- nothing reported where the names still exist on the target.
"""

from __future__ import annotations

from drift.consumer.infer import MAX_VALUES, solve
from tests.rule_cases import APP, LIB, assert_findings, consumer_of, findings_of, Case, line_of, raised_by, \
    src, write_tree

BEFORE = {
    "gizmo/config.py": """
        class LoRAConfig:
            def __init__(self):
                self.max_loras = 1
                self.extra_vocab = 2
        """,
    "gizmo/models.py": """
        class LoRAModel:
            @classmethod
            def from_local_checkpoint(cls, path, old_kw=None):
                return cls()
        """,
    "gizmo/manager.py": """
        class Manager:
            def __init__(self, a, b):
                self.a = a

        def build(a, b):
            return Manager(a, b)

        def get_rope(size):
            return size
        """,
    "gizmo/feature.py": """
        def thing():
            return 1

        def kept():
            return 2
        """,
}
AFTER = {
    "gizmo/config.py": """
        class LoRAConfig:
            def __init__(self):
                self.max_loras = 1
        """,
    "gizmo/models.py": """
        class LoRAModel:
            @classmethod
            def from_local_checkpoint(cls, path):
                return cls()
        """,
    "gizmo/manager.py": """
        class Manager:
            def __init__(self, a, b, c):
                self.a = a

        def build(a, b, c):
            return Manager(a, b, c)

        def get_rope(size, dtype=None):
            return size
        """,
    "gizmo/feature.py": """
        def kept():
            return 2
        """,
    "gizmo/newhome.py": """
        def thing():
            return 1
        """,
}

BOUND = """
    from typing import Type

    from gizmo.config import LoRAConfig
    from gizmo.models import LoRAModel


    class StandIn:
        def load(self, path):
            return self._model_cls.from_local_checkpoint(path, old_kw=1)

        def size(self):
            return self.lora_config.extra_vocab

        def still_there(self):
            return self.lora_config.max_loras


    def new_init(self, lora_config: LoRAConfig, model_cls: Type[LoRAModel] = LoRAModel):
        self.lora_config = lora_config
        self._model_cls = model_cls


    StandIn.__init__ = new_init
    """


def test_attributes_a_later_bound_init_sets_are_typed_from_its_parameters(tmp_path):
    consumer = {"app/lora.py": BOUND}
    found = findings_of(tmp_path, Case("bound", BEFORE, AFTER, consumer))
    assert_findings(found, [("DRIFT060", line_of(BOUND, "extra_vocab")),
                            ("DRIFT010", line_of(BOUND, "old_kw=1"))])
    roots = [tmp_path / "after", tmp_path / "consumer"]
    attr = next(f for f in found if f.rule_id == "DRIFT060")
    assert raised_by(roots, "app.lora", "StandIn(LoRAConfig()).size()") == attr.predicted_failure
    kw = next(f for f in found if f.rule_id == "DRIFT010")
    assert raised_by(roots, "app.lora", "StandIn(LoRAConfig()).load('p')") == kw.predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.lora",
                     "(StandIn(LoRAConfig()).size(), StandIn(LoRAConfig()).load('p'))") is None


REPLACED = """
    import gizmo.manager


    class PatchedManager:
        def __init__(self, a, b):
            self.a = a


    def my_get_rope(size):
        return size


    gizmo.manager.Manager = PatchedManager
    gizmo.manager.get_rope = my_get_rope
    """


def test_consumer_classes_and_functions_assigned_into_target_modules(tmp_path):
    consumer = {"app/patches.py": REPLACED}
    found = findings_of(tmp_path, Case("replaced", BEFORE, AFTER, consumer))
    assert_findings(found, [("DRIFT070", line_of(REPLACED, "def __init__")),
                            ("DRIFT070", line_of(REPLACED, "def my_get_rope"))])
    cls = next(f for f in found if "Manager" in f.title)
    assert cls.severity.value == "breaking" and "assigned over `gizmo.manager.Manager`" in cls.title
    fn = next(f for f in found if "get_rope" in f.title)
    assert fn.severity.value == "risky"  # optional: only the target's callers that pass it fail
    roots = [tmp_path / "after", tmp_path / "consumer"]
    # the target's own builder now constructs the consumer's class, with the new argument
    assert raised_by(roots, "gizmo.manager", "__import__('app.patches') and build(1, 2, 3)") == \
        "TypeError: PatchedManager.__init__() takes 3 positional arguments but 4 were given"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "gizmo.manager",
                     "__import__('app.patches') and build(1, 2)") is None


def test_a_value_handed_to_a_helper_in_another_module_types_its_parameter(tmp_path):
    helper = """
        def size_of(cfg):
            return cfg.extra_vocab
        """
    caller = """
        from gizmo.config import LoRAConfig
        from app.helper import size_of


        def run():
            return size_of(LoRAConfig())
        """
    # the helper never imports the target: it is read because it is a consumer module at all
    consumer = {"app/helper.py": "import gizmo\n" + src(helper), "app/main.py": caller}
    found = findings_of(tmp_path, Case("helper", BEFORE, AFTER, consumer))
    assert_findings(found, [("DRIFT060", 3)])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "run()") == \
        found[0].predicted_failure


GUARDED = """
    try:
        from gizmo.feature import thing
    except Exception:
        thing = None

    try:
        from gizmo.feature import kept
    except ImportError:
        kept = None

    try:
        from gizmo.feature import thing as moved_thing
    except ImportError:
        from gizmo.newhome import thing as moved_thing

    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from gizmo.feature import thing as only_typed
    """


def test_a_guarded_import_whose_name_is_gone_takes_the_except_path(tmp_path):
    consumer = {"app/optional.py": GUARDED}
    found = findings_of(tmp_path, Case("guarded", BEFORE, AFTER, consumer))
    # the name that stayed, the one with a working fallback, and a TYPE_CHECKING import: silent
    assert_findings(found, [("DRIFT077", line_of(GUARDED, "import thing"))])
    f = found[0]
    assert f.severity.value == "risky" and "except Exception" in f.title
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.optional", "thing is None or 1/0") is None  # the except path ran
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.optional", "thing is not None or 1/0") is None


NARROW_GUARD = """
    try:
        from gizmo.feature import thing
    except ModuleNotFoundError:
        thing = None

    try:
        from gizmo.legacy import old
    except ModuleNotFoundError:
        old = None
    """


PARENTHESISED = """
    try:
        from gizmo.proto import (
            Request,
            Response,
        )
    except ImportError:
        Request = Response = None
    """


def test_each_gone_name_of_a_parenthesised_guarded_import_is_reported_at_the_statement(tmp_path):
    """The module went away: every name the statement imports is lost to the except path, one
    finding each. Each sits where Python raises, the `from` line (round 19's line rule,
    drift/analysis/surfacing.py), and keeps its own name's line as `use_line` for the fix."""
    proto = {"gizmo/proto.py": "class Request:\n    pass\n\n\nclass Response:\n    pass\n"}
    found = findings_of(tmp_path, Case("parens", {**BEFORE, **proto}, AFTER, {"app/proto.py": PARENTHESISED}))
    at = line_of(PARENTHESISED, "from gizmo.proto import (")
    assert_findings(found, [("DRIFT077", "`Request`"), ("DRIFT077", "`Response`")])
    assert {f.consumer_site.line for f in found} == {at}
    assert sorted(f.consumer_site.use_line for f in found) == [line_of(PARENTHESISED, "Request,"),
                                                               line_of(PARENTHESISED, "Response,")]
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.proto", "Response is None or 1/0") is None


def test_an_except_module_not_found_does_not_guard_a_name_gone_from_a_module_still_there(tmp_path):
    """`from m import Name` with `m` present and `Name` gone raises ImportError, the base class
    `except ModuleNotFoundError:` lets through: the import is breaking (here DRIFT002: the name moved),
    not a fallback.
    A module that is gone raises ModuleNotFoundError itself, which that handler does catch."""
    before = dict(BEFORE, **{"gizmo/legacy.py": "def old():\n    return 0\n"})
    consumer = {"app/narrow.py": NARROW_GUARD}
    found = findings_of(tmp_path, Case("narrow", before, AFTER, consumer))
    assert_findings(found, [("DRIFT002", line_of(NARROW_GUARD, "import thing")),
                            ("DRIFT077", line_of(NARROW_GUARD, "import old"))])
    first = next(f for f in found if f.rule_id == "DRIFT002")
    assert first.severity.value == "breaking"
    actual = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.narrow", "1")
    assert actual is not None and actual.startswith("ImportError: cannot import name 'thing'")
    assert first.predicted_failure.startswith("ImportError: cannot import name 'thing'")
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.narrow", "1") is None


REWORDED = """
    try:
        from gizmo.feature import thing
    except ImportError as exc:
        hint = "pip install 'gizmo<2'"
        raise RuntimeError(hint) from exc
    """


def test_an_import_error_handler_that_raises_again_guards_nothing(tmp_path):
    """`except ImportError: raise RuntimeError(...)` only rewords the failure: the module still
    fails to import on the target, so the gone name is breaking, not a fallback (DRIFT077)."""
    consumer = {"app/reworded.py": REWORDED}
    found = findings_of(tmp_path, Case("reworded", BEFORE, AFTER, consumer))
    assert_findings(found, [("DRIFT002", line_of(REWORDED, "import thing"))])
    assert found[0].severity.value == "breaking"
    actual = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.reworded", "1")
    assert actual == "RuntimeError: pip install 'gizmo<2'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.reworded", "1") is None


def test_nothing_is_reported_where_the_target_kept_what_the_consumer_uses(tmp_path):
    consumer = {"app/lora.py": BOUND, "app/patches.py": REPLACED, "app/optional.py": GUARDED}
    found = findings_of(tmp_path, Case("same", AFTER, AFTER, consumer))
    assert_findings(found, [])


def test_the_solver_is_bounded_and_says_nothing_of_a_name_it_cannot_pin(tmp_path):
    """A field assigned more values than MAX_VALUES stops growing; a field that may hold two
    target values is not used to type a read (the evaluator asks for exactly one)."""
    many = "\n".join(f"from gizmo.m{i} import C{i}" for i in range(MAX_VALUES + 3))
    stores = "\n".join(f"        if k == {i}:\n            self.x = C{i}()" for i in range(MAX_VALUES + 3))
    code = f"{many}\n\n\nclass Holder:\n    def set(self, k):\n{stores}\n"
    root = write_tree(tmp_path / "consumer", {"app/poly.py": code})
    usage = consumer_of(root).usage
    solved = solve(usage, (LIB,))
    assert len(solved.attrs[f"{APP}.poly.Holder"]["x"]) == MAX_VALUES
    assert solved.rounds >= 1


WORKER_BEFORE = {
    "vllm/v1/worker/gpu_worker.py": """
        class WeightTransferEngine:
            def receive_weights(self, names, load_weights=None):
                return names


        class Worker:
            def __init__(self, config):
                self.config = config
                self.weight_transfer_engine = WeightTransferEngine()
        """,
    "vllm/engine.py": """
        class LLM:
            def __init__(self, model, worker_extension_cls=""):
                self.model = model
        """,
}
WORKER_AFTER = {
    "vllm/v1/worker/gpu_worker.py": """
        class WeightTransferEngine:
            def receive_weights(self, names):
                return names


        class Worker:
            def __init__(self, config):
                self.config = config
                self.weight_transfer_engine = WeightTransferEngine()
        """,
    "vllm/engine.py": WORKER_BEFORE["vllm/engine.py"],
}
EXTENSION = """
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from vllm.v1.worker.gpu_worker import Worker


    class WeightSync:
        def sync(self, names):
            return self.weight_transfer_engine.receive_weights(names, load_weights=True)
    """
LAUNCH = """
    from vllm.engine import LLM

    EXTENSION = "app.ext.WeightSync"


    def engine_kwargs(ext):
        return {"model": "m", "worker_extension_cls": ext}


    def start():
        return LLM(**engine_kwargs(EXTENSION))
    """


def test_a_class_named_in_worker_extension_cls_is_read_as_part_of_the_worker(tmp_path):
    """The dotted name flows through a module constant, a helper's parameter and a dict key; vLLM
    appends the class to its worker's bases, so `self.weight_transfer_engine` is the worker's."""
    from tests.rule_cases import run_case

    out = run_case(tmp_path, before=WORKER_BEFORE, after=WORKER_AFTER,
                   consumer={"app/ext.py": EXTENSION, "app/launch.py": LAUNCH}, lib="vllm")
    assert out.error is None
    assert_findings(out.report.findings, [("DRIFT010", line_of(EXTENSION, "load_weights=True"))])
    # what vLLM does with the name: a worker class with the extension among its bases
    mixed = "type('W', (Worker, __import__('app.ext').ext.WeightSync), {})(None).sync(['w'])"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "vllm.v1.worker.gpu_worker", mixed,
                     packages=("vllm", APP)) == out.report.findings[0].predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "vllm.v1.worker.gpu_worker", mixed,
                     packages=("vllm", APP)) is None


def test_a_class_that_names_itself_with_its_module_name_is_an_extension_too(tmp_path):
    """`EXT = f"{__name__}.WeightSync"` (or `__name__ + ".WeightSync"`) beside the class: the text is
    known without running anything, so the name reaches `worker_extension_cls` as a literal would."""
    from tests.rule_cases import run_case

    for spelled in ('f"{__name__}.WeightSync"', '__name__ + ".WeightSync"'):
        ext = EXTENSION + f"\n\n    EXT_CLS = {spelled}\n"
        launch = LAUNCH.replace('EXTENSION = "app.ext.WeightSync"', "from app.ext import EXT_CLS as EXTENSION")
        out = run_case(tmp_path / spelled[:2], before=WORKER_BEFORE, after=WORKER_AFTER,
                       consumer={"app/ext.py": ext, "app/launch.py": launch}, lib="vllm")
        assert out.error is None
        assert_findings(out.report.findings, [("DRIFT010", line_of(ext, "load_weights=True"))])
        silent = launch.replace("LLM(**engine_kwargs(EXTENSION))", "LLM(model='m')")
        out = run_case(tmp_path / (spelled[:2] + "-silent"), before=WORKER_BEFORE, after=WORKER_AFTER,
                       consumer={"app/ext.py": ext, "app/launch.py": silent}, lib="vllm")
        assert_findings(out.report.findings, [])


def test_a_dict_built_with_keywords_names_the_extension_as_a_literal_does(tmp_path):
    """`dict(model="m", worker_extension_cls=EXT)` is `{"model": "m", "worker_extension_cls": EXT}`."""
    from tests.rule_cases import run_case

    launch = LAUNCH.replace('return {"model": "m", "worker_extension_cls": ext}',
                            'return dict(model="m", worker_extension_cls=ext)')
    assert launch != LAUNCH
    out = run_case(tmp_path, before=WORKER_BEFORE, after=WORKER_AFTER,
                   consumer={"app/ext.py": EXTENSION, "app/launch.py": launch}, lib="vllm")
    assert out.error is None
    assert_findings(out.report.findings, [("DRIFT010", line_of(EXTENSION, "load_weights=True"))])


def test_a_malformed_module_ir_is_set_aside_and_the_rest_is_solved(tmp_path):
    """A host's reply is untrusted: an IR whose rows have the wrong shape or types is skipped
    whole, never half read, and never stops the other modules' solution."""
    root = write_tree(tmp_path / "consumer", {"app/lora.py": BOUND})
    usage = consumer_of(root).usage
    bad = [{"module": "app.bad", "path": "app/bad.py", "ir": {"store": [[["sym:x"], 5, None, 1]]}},
           {"module": "app.worse", "path": "app/worse.py", "ir": {"defs": {"app.worse.f": "not a def"}}},
           {"module": "app.odd", "path": "app/odd.py", "ir": ["not", "a", "dict"]}]
    solved = solve(bad + usage, (LIB,))
    assert solved.attrs["app.lora.StandIn"]["lora_config"] == [("sym:gizmo.config.LoRAConfig", "()")]
    assert not any(k.startswith("app.bad") or k.startswith("app.worse") for k in solved.signatures)
