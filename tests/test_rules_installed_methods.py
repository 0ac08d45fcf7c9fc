"""Functions the consumer installs onto a target class (`Cls.m = fn`, `Cls.__init__ = fn`) run
with `self` an instance of that class, on both sides: every attribute and call rule judges their
bodies as it judges the class's own methods. These cases hold the ways the class is reached."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, src, write_tree

# The target keeps an old class name as a module-level alias of the new class (a backward
# compatibility shim); the consumer patches the class through the old name.
ALIAS_BEFORE = {
    "gizmo/topo.py": """
        class Topology:
            def __init__(self, n):
                self.n = n

            @property
            def split(self):
                return self.n > 1
        """,
    "gizmo/pull.py": """
        from gizmo.topo import Topology

        class PullWorker:
            def __init__(self, n):
                self.topo = Topology(n)

            def to_kernel(self, ids):
                return list(ids)
        """,
    "gizmo/worker.py": """
        from gizmo.pull import PullWorker

        Worker = PullWorker
        """,
}
ALIAS_AFTER = {
    "gizmo/topo.py": """
        class Topology:
            def __init__(self, n):
                self.n = n
        """,
    "gizmo/pull.py": """
        from gizmo.topo import Topology

        class PullWorker:
            def __init__(self, n):
                self.topo = Topology(n)

            def to_kernel(self, ids, ratio):
                return [i * ratio for i in ids]
        """,
    "gizmo/worker.py": ALIAS_BEFORE["gizmo/worker.py"],
}
ALIAS_CONSUMER = {"app/patch.py": """
    from gizmo.worker import Worker


    def register(self):
        return self.topo.split


    def post(self, ids):
        return self.to_kernel(ids)


    def fine(self):
        return self.topo.n


    Worker.register = register
    Worker.post = post
    Worker.fine = fine
    """}


def test_installed_methods_through_a_target_alias_are_judged(tmp_path):
    patch = ALIAS_CONSUMER["app/patch.py"]
    findings = findings_of(tmp_path, Case("alias", ALIAS_BEFORE, ALIAS_AFTER, ALIAS_CONSUMER))
    assert_findings(findings, [
        ("DRIFT060", line_of(patch, "return self.topo.split")),
        ("DRIFT011", line_of(patch, "return self.to_kernel(ids)")),
    ])


def test_python_fails_where_the_findings_say(tmp_path):
    after = write_tree(tmp_path / "after", ALIAS_AFTER)
    app = write_tree(tmp_path / "app", ALIAS_CONSUMER)
    assert raised_by([after, app], "app.patch", "Worker(2).register()") == \
        "AttributeError: 'Topology' object has no attribute 'split'"
    assert raised_by([after, app], "app.patch", "Worker(2).post([1])") == \
        "TypeError: PullWorker.to_kernel() missing 1 required positional argument: 'ratio'"
    assert raised_by([after, app], "app.patch", "Worker(2).fine()") is None


# The consumer replaces a target class's `__init__` wholesale; the target's new `__init__` sets
# state the class's own methods (which the consumer left in place) now read.
INIT_BEFORE = {"gizmo/conn.py": """
    class Connector:
        def __init__(self, cfg):
            self.cfg = cfg
            self.peers = {}

        def handshake(self, peer):
            self.peers[peer] = True
            return peer

        def send(self, data):
            return data

    class Owner:
        def __init__(self, connector: Connector):
            self.connector = connector

        def start(self, peer):
            return self.connector.handshake(peer)
    """}
INIT_AFTER = {"gizmo/conn.py": """
    class Connector:
        def __init__(self, cfg):
            self.cfg = cfg
            self.peers = {}
            self.pp_size = 1
            self.offset = 0

        def handshake(self, peer):
            self.peers[peer] = self.pp_size
            return peer

        def send(self, data):
            return data[self.offset:]

    class Owner:
        def __init__(self, connector: Connector):
            self.connector = connector

        def start(self, peer):
            return self.connector.handshake(peer)
    """}
INIT_CONSUMER = {"app/conn.py": """
    from gizmo.conn import Connector


    def new_init(self, cfg):
        self.cfg = cfg
        self.peers = {}


    def new_send(self, data):
        return list(data)


    def connect(self, peer):
        return self.handshake(peer)


    Connector.__init__ = new_init
    Connector.send = new_send
    Connector.connect = connect
    """}
# The same, but the replacement runs the original first: nothing is missing.
WRAPPED_CONSUMER = {"app/conn.py": """
    from gizmo.conn import Connector

    _orig_init = Connector.__init__


    def new_init(self, cfg):
        _orig_init(self, cfg)
        self.extra = 1


    Connector.__init__ = new_init
    """}


def test_a_wholesale_init_replacement_misses_new_state_its_kept_methods_read(tmp_path):
    conn = INIT_CONSUMER["app/conn.py"]
    findings = findings_of(tmp_path, Case("replaced-init", INIT_BEFORE, INIT_AFTER, INIT_CONSUMER))
    hit = [f for f in findings if f.rule_id == "DRIFT075"]
    assert_findings(findings, [("DRIFT075", line_of(conn, "def new_init(self, cfg):"))])
    assert "`pp_size`" in hit[0].title and "handshake" in hit[0].title  # `offset` is read only by the replaced `send`
    assert hit[0].severity.value == "breaking"


def test_a_replacement_that_runs_the_original_init_is_silent(tmp_path):
    assert findings_of(tmp_path, Case("wrapped-init", INIT_BEFORE, INIT_AFTER, WRAPPED_CONSUMER)) == ()


# A copy of the original's body (afd-plugin's `EngineCore.__init__`) calls the class's own steps,
# `self._prepare_kv_init()`, `self._initialize_peers()`: steps of the copy, not the original.
COPIED_CONSUMER = {"app/conn.py": INIT_CONSUMER["app/conn.py"].replace(
    "        self.peers = {}\n\n\n    def new_send",
    "        self.peers = {}\n        self._prepare_kv_init()\n        self._initialize_peers()\n\n\n    def new_send")}


def test_a_copied_init_calling_the_classs_own_init_steps_is_still_wholesale(tmp_path):
    conn = COPIED_CONSUMER["app/conn.py"]
    assert "self._prepare_kv_init()" in conn
    findings = findings_of(tmp_path, Case("copied-init", INIT_BEFORE, INIT_AFTER, COPIED_CONSUMER))
    assert [f.rule_id for f in findings if f.rule_id == "DRIFT075"] == ["DRIFT075"]
    assert "`pp_size`" in next(f.title for f in findings if f.rule_id == "DRIFT075")


def test_python_fails_in_the_kept_method(tmp_path):
    after = write_tree(tmp_path / "after", INIT_AFTER)
    app = write_tree(tmp_path / "app", INIT_CONSUMER)
    assert raised_by([after, app], "app.conn", "Connector(1).connect('p')") == \
        "AttributeError: 'Connector' object has no attribute 'pp_size'"
    assert raised_by([after, app], "app.conn", "Connector(1).send('ab')") is None
    wrapped = write_tree(tmp_path / "wrapped", WRAPPED_CONSUMER)
    assert raised_by([after, wrapped], "app.conn", "Connector(1).handshake('p')") is None


# A target layer built on torch.nn.Module, whose `__getattr__` answers only what is registered on
# the instance: once the layer's `__init__` stops setting a plain attribute, a function the
# consumer installs as its `forward` (`self` annotated as the layer) fails reading it. torch is
# not installed here, so the failure itself is torch's (`'MLA' object has no attribute 'scales'`).
MODULE_BEFORE = {"gizmo/mla.py": """
    import torch.nn as nn
    from torch import nn as tnn

    class MLA(nn.Module):
        def __init__(self, scales):
            super().__init__()
            self.scales = scales
            self.weight = None
            self.q_scale = 1.0
            self.name = "mla"

    class Quant:
        def create(self, layer):
            layer.register_parameter("weight", None)

    def Builder(scales) -> MLA:
        return MLA(scales)
    """}
MODULE_AFTER = {"gizmo/mla.py": """
    import torch.nn as nn

    class MLA(nn.Module):
        def __init__(self):
            super().__init__()
            self.name = "mla"

    class Quant:
        def create(self, layer):
            layer.register_parameter("weight", None)

    def set_default_scales(layer):
        layer.q_scale = 1.0

    def Builder(scales) -> MLA:
        return MLA()
    """}
MODULE_CONSUMER = {"app/mla.py": """
    from gizmo.mla import MLA, Builder


    def forward(self: MLA, x):
        if self.scales:
            return x
        return self.weight, self.training, self.name, self.q_scale


    def built(layer: Builder):
        return layer.scales


    MLA.forward = forward
    """}


def _with_sources(facts: dict, root) -> dict:
    """Facts as a fetched release has them: with the tree they were read from."""
    return {**facts, "target": {**(facts.get("target") or {}), "root": str(root)}}


def test_an_attribute_an_nn_module_layer_stopped_setting_is_missing(tmp_path):
    from drift.pipeline.run import check
    from tests.rule_cases import consumer_of, facts_of

    before = write_tree(tmp_path / "before", MODULE_BEFORE)
    after = write_tree(tmp_path / "after", MODULE_AFTER)
    cons = consumer_of(write_tree(tmp_path / "consumer", MODULE_CONSUMER))
    outcome = check(consumer=cons, target_facts=_with_sources(facts_of(after), after),
                    baseline_facts=_with_sources(facts_of(before), before), target_package="gizmo")
    mla = MODULE_CONSUMER["app/mla.py"]
    # `weight` is registered by string elsewhere, `q_scale` set by a helper on the layers it is
    # handed, `training` is nn.Module's own, `name` is still set;
    # `layer: Builder` names a factory kept where a class was: what it holds is not judged
    assert_findings(outcome.report.findings, [("DRIFT060", line_of(mla, "if self.scales:"))])
    assert "scales" in outcome.report.findings[0].title


def test_without_the_targets_sources_nothing_is_assumed_missing(tmp_path):
    findings = findings_of(tmp_path, Case("module-no-sources", MODULE_BEFORE, MODULE_AFTER, MODULE_CONSUMER))
    assert_findings(findings, [])


# A patch framework's decorator names the target attribute as a dotted string; the decorated
# function is installed there (by the framework, later). Its `self` is the class's instance.
DECO_BEFORE = {"gizmo/moe.py": """
    class Router:
        def route(self, x):
            return x

        def scale(self):
            return 1

    class Block:
        def __init__(self, router: Router):
            self.router = router

        def run(self, x):
            return self.router.route(x)
    """}
DECO_AFTER = {"gizmo/moe.py": """
    class Router:
        def route(self, x, sequence_parallel=False):
            return x

    class Block:
        def __init__(self, router: Router):
            self.router = router

        def run(self, x):
            return self.router.route(x, sequence_parallel=True)

    class Planner:
        def route(self, x, eager):
            return x

    class EagerPlanner(Planner):
        def route(self, x, eager):
            return super().route(x, True)  # `self` is a Planner here, never a Router

    def plan(planner: EagerPlanner, x):
        return planner.route(x, eager=False)
    """}
DECO_CONSUMER = {
    "app/registry.py": """
        import importlib

        PATCHES = []


        def register_patch(target, reason=""):
            def wrap(fn):
                PATCHES.append((target, fn))
                return fn
            return wrap


        def apply():
            for target, fn in PATCHES:
                mod, cls, name = target.rsplit(".", 2)
                setattr(getattr(importlib.import_module(mod), cls), name, fn)
        """,
    "app/moe.py": """
        from app.registry import register_patch


        @register_patch(target="gizmo.moe.Router.route", reason="a kernel of ours")
        def patched_route(self, x):
            return self.scale() * x
        """,
}


def test_a_patch_a_decorator_names_by_string_is_judged(tmp_path):
    moe = DECO_CONSUMER["app/moe.py"]
    findings = findings_of(tmp_path, Case("decorator", DECO_BEFORE, DECO_AFTER, DECO_CONSUMER))
    assert_findings(findings, [
        ("DRIFT070", line_of(moe, "def patched_route(self, x):")),  # the target now passes sequence_parallel=
        ("DRIFT060", line_of(moe, "return self.scale() * x")),  # `scale` is gone from Router
    ])


def test_python_fails_where_the_decorator_patch_findings_say(tmp_path):
    after = write_tree(tmp_path / "after", DECO_AFTER)
    app = write_tree(tmp_path / "app", DECO_CONSUMER)
    assert raised_by([after, app], "app.moe", "__import__('app.registry').registry.apply() or 0") is None
    got = raised_by([after, app], "app.moe",
                    "__import__('app.registry').registry.apply() or "
                    "__import__('gizmo.moe').moe.Block(__import__('gizmo.moe').moe.Router()).run(1)")
    assert got == "TypeError: patched_route() got an unexpected keyword argument 'sequence_parallel'"


# The target keeps a class's name for a factory function that builds another class: a method
# the consumer sets on the name is set on the function object, and no object ever runs it.
FACTORY_BEFORE = {"gizmo/layer.py": """
    class Layer:
        def __init__(self, n):
            self.n = n
    """}
FACTORY_AFTER = {"gizmo/layer.py": """
    class Runner:
        def __init__(self, n):
            self.n = n

    def Layer(n) -> Runner:
        return Runner(n)
    """}
FACTORY_CONSUMER = {"app/layer.py": """
    from gizmo.layer import Layer

    _orig_init = Layer.__init__


    def tagged_init(self, *args, **kwargs):
        _orig_init(self, *args, **kwargs)
        self.tag = "ours"


    Layer.__init__ = tagged_init
    """}


def test_a_patch_of_a_class_that_became_a_factory_replaces_nothing(tmp_path):
    layer = FACTORY_CONSUMER["app/layer.py"]
    findings = findings_of(tmp_path, Case("factory", FACTORY_BEFORE, FACTORY_AFTER, FACTORY_CONSUMER))
    assert_findings(findings, [("DRIFT080", line_of(layer, "Layer.__init__ = tagged_init"))])
    assert "`Runner`" in findings[0].title and findings[0].severity.value == "risky"


def test_python_never_runs_the_patched_init(tmp_path):
    after = write_tree(tmp_path / "after", FACTORY_AFTER)
    app = write_tree(tmp_path / "app", FACTORY_CONSUMER)
    assert raised_by([after, app], "app.layer", "Layer(1).tag") == "AttributeError: 'Runner' object has no attribute 'tag'"
    before = write_tree(tmp_path / "before", FACTORY_BEFORE)
    assert raised_by([before, app], "app.layer", "Layer(1).tag") is None


# The same patch, written to take the target's new keyword: the only call it does not fit is a
# `super().route(...)` in a class unrelated to Router, whose `self` is never a Router.
DECO_FITTING = {
    "app/registry.py": DECO_CONSUMER["app/registry.py"],
    "app/moe.py": """
        from app.registry import register_patch


        @register_patch(target="gizmo.moe.Router.route")
        def patched_route(self, x, *, sequence_parallel=False):
            return x
        """,
}


def test_a_call_on_self_in_an_unrelated_class_is_no_caller_of_the_patch(tmp_path):
    assert_findings(findings_of(tmp_path, Case("decorator-fits", DECO_BEFORE, DECO_AFTER, DECO_FITTING)), [])


# What a replacement `__init__` stores on `self` is there, whatever its value, also when the class
# is patched through a target alias: the target's `__init__` no longer setting it is no break.
STORED_BEFORE = {
    "gizmo/pull.py": """
        class PullWorker:
            def __init__(self, n):
                self.mode = "pull"
                self.width = n

            def step(self):
                return self.width
        """,
    "gizmo/worker.py": ALIAS_BEFORE["gizmo/worker.py"],
}
STORED_AFTER = {
    "gizmo/pull.py": """
        class PullWorker:
            def __init__(self, n):
                self.width = n

            def step(self):
                return self.width
        """,
    "gizmo/worker.py": ALIAS_BEFORE["gizmo/worker.py"],
}
STORED_CONSUMER = {"app/patch.py": """
    from gizmo.worker import Worker


    def new_init(self, n):
        self.width = n
        self.mode = "push" if n > 1 else "pull"


    def describe(self):
        return self.mode


    Worker.__init__ = new_init
    Worker.describe = describe
    """}


def test_what_a_replacement_init_stores_is_there(tmp_path):
    findings = findings_of(tmp_path, Case("stored", STORED_BEFORE, STORED_AFTER, STORED_CONSUMER))
    assert_findings(findings, [])
    after = write_tree(tmp_path / "after", STORED_AFTER)
    app = write_tree(tmp_path / "app", STORED_CONSUMER)
    assert raised_by([after, app], "app.patch", "Worker(2).describe()") is None


# Methods installed by a loop over literal names (`for name in (...): setattr(Cls, name, ...)`),
# here through a module-level tuple: each name is a patch, judged like `Cls.name = fn`.
LOOP_BEFORE = {"gizmo/serving.py": """
    class Serving:
        def render(self):
            return 1

        def legacy(self):
            return 0
    """}
LOOP_AFTER = {"gizmo/serving.py": """
    class Serving:
        def render(self):
            return 1
    """}
LOOP_CONSUMER = {"app/serving.py": """
    from gizmo.serving import Serving

    PATCHED = ("render", "legacy")


    class Ours:
        def render(self):
            return 2

        def legacy(self):
            return 3


    for _name in PATCHED:
        setattr(Serving, _name, getattr(Ours, _name))
    """}


def test_setattr_over_a_loop_of_names_patches_each(tmp_path):
    serving = LOOP_CONSUMER["app/serving.py"]
    findings = findings_of(tmp_path, Case("loop", LOOP_BEFORE, LOOP_AFTER, LOOP_CONSUMER))
    assert_findings(findings, [("DRIFT080", line_of(serving, 'PATCHED = ("render", "legacy")'))])
    assert "legacy" in findings[0].title


# A function installed only under a name the target no longer has runs nowhere on the target
# (unless the consumer calls it itself): its patch is the break; what its body reads is the next
# one, met once the install is fixed (risky, naming the install).
DEAD_BEFORE = {"gizmo/spec.py": """
    class Spec:
        def __init__(self):
            self.factor = 2

        def get_handlers(self):
            return [self.factor]
    """}
DEAD_AFTER = {"gizmo/spec.py": """
    class Spec:
        def __init__(self):
            self.chunk = 2

        def get_workers(self):
            return [self.chunk]
    """}
DEAD_CONSUMER = {"app/spec.py": """
    from gizmo.spec import Spec


    def get_handlers(self):
        return [self.factor * 2]


    Spec.get_handlers = get_handlers
    """}


def test_reads_in_a_function_installed_under_a_gone_name_are_the_next_break(tmp_path):
    spec = DEAD_CONSUMER["app/spec.py"]
    findings = findings_of(tmp_path, Case("dead", DEAD_BEFORE, DEAD_AFTER, DEAD_CONSUMER))
    assert_findings(findings, [("DRIFT080", line_of(spec, "Spec.get_handlers = get_handlers")),
                               ("DRIFT060", line_of(spec, "return [self.factor * 2]"))])
    (read,) = [f for f in findings if f.rule_id == "DRIFT060"]
    assert read.severity.value == "risky" and "Spec.get_handlers = get_handlers" not in read.details
    assert f"the install at app.spec line {line_of(spec, 'Spec.get_handlers = get_handlers')}" in read.predicted_failure
    called = {"app/spec.py": src(spec) + "\n\ndef use(s: Spec):\n    return s.get_handlers()\n"}
    findings = findings_of(tmp_path / "called", Case("called", DEAD_BEFORE, DEAD_AFTER, called))
    assert_findings(findings, [("DRIFT080", line_of(spec, "Spec.get_handlers = get_handlers")),
                               ("DRIFT060", line_of(spec, "return [self.factor * 2]"))])
