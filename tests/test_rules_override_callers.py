"""DRIFT070 counts only the target's call sites that can run on the consumer's object.

A platform plugin subclasses the target's worker, runner and executor together; the target's new
calls of an overridden method often sit where the plugin's object is never the receiver: inside a
target method the plugin overrides (in the same class or in another of its classes), on `self` in
a target class the plugin's class does not inherit, in a sibling subclass's delegation to its base,
or on another attribute of the object (`self.drafter.m(...)`). The same call on the object itself
is still reported, and so is one inside a method the plugin overrides but delegates to
(`super().f()`).
"""

from __future__ import annotations

from drift.model.targets import load_facts
from drift.pipeline.run import check
from tests.rule_cases import Case, assert_findings, consumer_of, findings_of, line_of, raised_by, write_tree

BEFORE = {
    "gizmo/runner.py": """
        class Drafter:
            def init_backend(self, cfg):
                return cfg

        class Runner:
            def __init__(self):
                self.drafter: Drafter = Drafter()

            def load(self):
                return 1

            def init_backend(self, cfg):
                return cfg

            def init_cache(self, cfg):
                self.init_backend(cfg)

            def prepare(self, cfg):
                self.drafter.init_backend(cfg)

            def capture(self):
                self.warm(1)

            def warm(self, n):
                return n

            def encode(self, x):
                return x

        class ShardedRunner(Runner):
            def encode(self, x):
                return super().encode(x)
        """,
    "gizmo/worker.py": """
        from gizmo.runner import Runner

        class Worker:
            def __init__(self):
                self.runner: Runner = Runner()

            def load(self):
                self.runner.load()
        """,
}
AFTER = {
    "gizmo/runner.py": """
        class Drafter:
            def init_backend(self, cfg, sizes):
                return cfg

        class Runner:
            def __init__(self):
                self.drafter: Drafter = Drafter()

            def load(self, dummy=False):
                return 1

            def init_backend(self, cfg, sizes=None):
                return cfg

            def init_cache(self, cfg, sizes):
                self.init_backend(cfg, sizes=sizes)

            def prepare(self, cfg, sizes):
                self.drafter.init_backend(cfg, sizes)

            def capture(self):
                self.warm(1, loras=0)

            def warm(self, n, loras=0):
                return n

            def encode(self, x, flag=0):
                return x

        class ShardedRunner(Runner):
            def encode(self, x, flag=0):
                return super().encode(x, flag)
        """,
    "gizmo/worker.py": """
        from gizmo.runner import Runner

        class Worker:
            def __init__(self):
                self.runner: Runner = Runner()

            def load(self):
                self.runner.load(dummy=True)
        """,
}
# The plugin's worker overrides `load`, so the target's `self.runner.load(dummy=True)` never runs
# for it; its runner overrides `init_cache`, so neither call there reaches `init_backend`; the
# drafter's `init_backend(cfg, sizes)` is another object's method; `ShardedRunner`'s
# `super().encode(x, flag)` runs on a ShardedRunner, never on the plugin's runner.
PLUGIN = """
    from gizmo.runner import Runner
    from gizmo.worker import Worker

    class MyWorker(Worker):
        def load(self):
            self.runner.load()

    class MyRunner(Runner):
        def load(self):
            return 2

        def init_backend(self, cfg):
            return cfg

        def init_cache(self, cfg):
            self.init_backend(cfg)

        def warm(self, n):
            return n

        def encode(self, x):
            return x
    """


def test_calls_that_never_reach_the_consumers_object_are_not_evidence(tmp_path):
    found = findings_of(tmp_path, Case("callers", BEFORE, AFTER, {"app/plugin.py": PLUGIN}))
    # only `capture`'s `self.warm(1, loras=0)` runs on MyRunner (it inherits `capture`)
    assert_findings(found, [("DRIFT070", line_of(PLUGIN, "def warm"))])
    assert "loras" in found[0].predicted_failure
    after = tmp_path / "after"
    consumer = tmp_path / "consumer"
    assert raised_by([after, consumer], "app.plugin", "MyRunner().capture()") == \
        "TypeError: MyRunner.warm() got an unexpected keyword argument 'loras'"
    # and what was left out really runs: the plugin's worker loads, its runner builds its cache
    assert raised_by([after, consumer], "app.plugin", "MyWorker().load()") is None
    assert raised_by([after, consumer], "app.plugin", "MyRunner().init_cache(1)") is None


def test_an_override_that_delegates_to_the_targets_method_keeps_its_calls(tmp_path):
    plugin = """
        from gizmo.runner import Runner
        from gizmo.worker import Worker

        class MyRunner(Runner):
            def load(self):
                return 2

        class MyWorker(Worker):
            def __init__(self):
                super().__init__()
                self.runner = MyRunner()

            def load(self):
                super().load()
        """
    found = findings_of(tmp_path, Case("delegates", BEFORE, AFTER, {"app/plugin.py": plugin}))
    assert_findings(found, [("DRIFT070", line_of(plugin, "def load"))])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.plugin", "MyWorker().load()") == \
        "TypeError: MyRunner.load() got an unexpected keyword argument 'dummy'"


def test_a_method_overridden_in_the_same_class_that_delegates_keeps_the_bases_calls(tmp_path):
    """The plugin's runner overrides `init_cache` but hands the call on to the target's on the
    path it does not handle itself: the target's `self.init_backend(cfg, sizes=...)` inside it
    still runs on the plugin's runner, whose `init_backend` keeps the old parameters."""
    plugin = """
        from gizmo.runner import Runner

        class MyRunner(Runner):
            def init_backend(self, cfg):
                return cfg

            def init_cache(self, cfg, sizes=None):
                if cfg is None:
                    return None
                return super().init_cache(cfg, sizes)
        """
    found = findings_of(tmp_path, Case("same-class", BEFORE, AFTER, {"app/plugin.py": plugin}))
    assert_findings(found, [("DRIFT070", line_of(plugin, "def init_backend"))])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.plugin", "MyRunner().init_cache(1, 2)") == \
        "TypeError: MyRunner.init_backend() got an unexpected keyword argument 'sizes'"
    # the same override without the hand-on replaces the base's call: nothing to report
    own = plugin.replace("return super().init_cache(cfg, sizes)", "return cfg")
    assert not findings_of(tmp_path / "own", Case("own", BEFORE, AFTER, {"app/plugin.py": own}))


def test_a_second_consumer_subclass_that_keeps_the_targets_method_keeps_its_calls(tmp_path):
    plugin = """
        from gizmo.runner import Runner
        from gizmo.worker import Worker

        class MyWorker(Worker):
            def load(self):
                self.runner.load()

        class PlainWorker(Worker):
            pass

        class MyRunner(Runner):
            def load(self):
                return 2
        """
    found = findings_of(tmp_path, Case("plain", BEFORE, AFTER, {"app/plugin.py": plugin}))
    assert_findings(found, [("DRIFT070", line_of(plugin, "def load", 2))])


MOE_BEFORE = {"gizmo/moe.py": """
    class FusedMoE:
        def forward(self, x):
            return x

    class SharedFusedMoE(FusedMoE):
        pass

    def run(layer, x):
        return layer.forward(x)
    """}
MOE_AFTER = {"gizmo/moe.py": """
    class FusedMoE:
        def forward(self, x, ids):
            return x

    def run(layer, x, ids):
        return layer.forward(x, ids)
    """}


def test_an_override_in_a_class_whose_base_is_gone_is_at_most_risky(tmp_path):
    """A class extending a target class the target no longer defines anywhere cannot be built as
    written (the import is the break); registered as the replacement for that name, the target
    never asks for it either. Its sibling that extends a class the target still has is breaking."""
    plugin = """
        from gizmo.moe import FusedMoE, SharedFusedMoE

        class MyFused(FusedMoE):
            def forward(self, x):
                return x

        class MyShared(SharedFusedMoE, MyFused):
            def forward(self, x):
                return x
        """
    found = findings_of(tmp_path, Case("gone", MOE_BEFORE, MOE_AFTER, {"app/plugin.py": plugin}))
    over = {f.consumer_site.line: f for f in found if f.rule_id == "DRIFT070"}
    assert over[line_of(plugin, "def forward")].severity.value == "breaking"
    shared = over[line_of(plugin, "def forward", 2)]
    assert shared.severity.value == "risky"
    assert "`gizmo.moe.SharedFusedMoE` is gone" in shared.title
    assert any(f.consumer_site.line == line_of(plugin, "import") and f.severity.value == "breaking" for f in found)


def test_a_call_of_the_same_name_on_a_local_object_is_not_a_delegation(tmp_path):
    """`manager.cache(...)` inside the coordinator's own `cache` calls the managers, the consumer's
    among them: only a subclass of the declaring class delegates to its base that way."""
    before = {"gizmo/kv.py": """
        class Manager:
            def cache(self, request, n):
                return n

        class Coordinator:
            def __init__(self, managers):
                self.managers = managers

            def cache(self, request, n):
                for manager in self.managers:
                    manager.cache(request, n)
        """}
    after = {"gizmo/kv.py": """
        class Manager:
            def cache(self, request, n, keep=0):
                return n

        class Coordinator:
            def __init__(self, managers):
                self.managers = managers

            def cache(self, request, n):
                for manager in self.managers:
                    manager.cache(request, n, keep=1)
        """}
    plugin = """
        from gizmo.kv import Manager

        class MyManager(Manager):
            def cache(self, request, n):
                return n
        """
    found = findings_of(tmp_path, Case("local", before, after, {"app/plugin.py": plugin}))
    assert_findings(found, [("DRIFT070", line_of(plugin, "def cache"))])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.plugin",
                     "__import__('gizmo.kv').kv.Coordinator([MyManager()]).cache(None, 1)") == \
        "TypeError: MyManager.cache() got an unexpected keyword argument 'keep'"


def test_a_stand_in_classs_method_copied_onto_a_target_class_is_held_to_it(tmp_path):
    """`Manager.__init__ = StandIn.__init__`: the stand-in does not extend the target's class, but
    its method now runs for every Manager, so it must take what the target now passes."""
    before = {"gizmo/manager.py": """
        class Manager:
            def __init__(self, model, device):
                self.model = model

        class LRUManager(Manager):
            def __init__(self, model, device):
                super().__init__(model, device)
        """}
    after = {"gizmo/manager.py": """
        class Manager:
            def __init__(self, model, device, config=None):
                self.model = model

        class LRUManager(Manager):
            def __init__(self, model, device, config):
                super().__init__(model, device, config)
        """}
    plugin = """
        from gizmo.manager import Manager

        class StandIn:
            def __init__(self, model, device):
                self.model = model

        Manager.__init__ = StandIn.__init__
        """
    found = findings_of(tmp_path, Case("copied", before, after, {"app/plugin.py": plugin}))
    assert_findings(found, [("DRIFT070", line_of(plugin, "def __init__"))])
    assert found[0].predicted_failure == raised_by(
        [tmp_path / "after", tmp_path / "consumer"], "app.plugin",
        "__import__('gizmo.manager').manager.LRUManager(1, 2, 3)")


def _worker_tree(load_call: str) -> dict[str, str]:
    return {
        "vllm/platforms.py": """
            class Platform:
                @classmethod
                def check_and_update_config(cls, vllm_config):
                    return None
            """,
        "vllm/v1/worker/worker_base.py": """
            class WorkerBase:
                def __init__(self, cfg):
                    self.cfg = cfg
            """,
        "vllm/v1/worker/gpu_model_runner.py": f"""
            class GPUModelRunner:
                def load_model(self{', dummy=False' if 'dummy' in load_call else ''}):
                    return 1
            """,
        "vllm/v1/worker/gpu_worker.py": f"""
            from vllm.v1.worker.gpu_model_runner import GPUModelRunner
            from vllm.v1.worker.worker_base import WorkerBase

            class Worker(WorkerBase):
                def __init__(self, cfg):
                    super().__init__(cfg)
                    self.model_runner: GPUModelRunner = GPUModelRunner()

                def load_model(self):
                    {load_call}
            """,
    }


def test_the_default_worker_the_platform_replaces_by_name_calls_nothing_on_the_plugins_runner(tmp_path):
    """vLLM's GPU worker calls `self.model_runner.load_model(dummy=...)`; a platform that names its
    own worker (`worker_cls`), which does not extend vLLM's, never has that worker built."""
    before = _worker_tree("self.model_runner.load_model()")
    after = _worker_tree("self.model_runner.load_model(dummy=True)")
    plugin = {
        "app/platform.py": """
            from vllm.platforms import Platform

            class MyPlatform(Platform):
                @classmethod
                def check_and_update_config(cls, vllm_config):
                    vllm_config.parallel_config.worker_cls = "app.worker.MyWorker"
            """,
        "app/worker.py": """
            from vllm.v1.worker.gpu_model_runner import GPUModelRunner
            from vllm.v1.worker.worker_base import WorkerBase

            class MyRunner(GPUModelRunner):
                def load_model(self):
                    return 2

            class MyWorker(WorkerBase):
                def load_model(self):
                    self.model_runner = MyRunner()
                    self.model_runner.load_model()
            """,
    }
    assert_findings(findings_of(tmp_path / "named", Case("named", before, after, plugin), lib="vllm"), [])
    # the same plugin without naming its worker: vLLM's GPU worker may run, with the plugin's runner
    unnamed = dict(plugin, **{"app/platform.py": plugin["app/platform.py"].replace("app.worker.MyWorker", "auto")})
    found = findings_of(tmp_path / "unnamed", Case("unnamed", before, after, unnamed), lib="vllm")
    assert_findings(found, [("DRIFT070", 5)])


def _profiling_tree(new: bool, dispatch: str = "") -> dict[str, str]:
    keyword = ", profiling=True" if new else ""
    return {"gizmo/runner.py": f"""
        class Runner:
            def init_cache(self, cfg{', profiling=False' if new else ''}):
                return cfg

            def _minimal_cache(self, cfg):
                self.init_cache(cfg{keyword})

            def profile(self, cfg):
                self._minimal_cache(cfg)

        class Worker:
            def __init__(self, runner: Runner):
                self.runner = runner

            def measure(self, cfg):
                self.runner.profile(cfg)

            def ping(self):
                return "{dispatch}"
        """}


def test_a_call_whose_callers_never_run_for_the_consumer_is_not_evidence(tmp_path):
    """`init_cache(cfg, profiling=True)` sits in `_minimal_cache`, called only from `profile`,
    called only from `Worker.measure`, which the plugin's worker overrides: nothing calls it."""
    plugin = """
        from gizmo.runner import Runner, Worker

        class MyRunner(Runner):
            def init_cache(self, cfg):
                return cfg

        class MyWorker(Worker):
            def measure(self, cfg):
                self.runner.init_cache(cfg)
        """
    assert_findings(_on_demand(tmp_path / "a", _profiling_tree(False), _profiling_tree(True), plugin), [])
    # the same chain where the target also names `profile` in a string (dispatched by name): kept
    found = _on_demand(tmp_path / "b", _profiling_tree(False, "profile"), _profiling_tree(True, "profile"), plugin)
    assert_findings(found, [("DRIFT070", line_of(plugin, "def init_cache"))])


def _on_demand(tmp_path, before, after, plugin):
    """The trees read as `drift check` reads a release on disk (demand-driven, sources at hand:
    whether the target writes a name as a string is a search of its text)."""
    facts = {}
    for side, files in (("before", before), ("after", after)):
        root = write_tree(tmp_path / side, dict(files, **{"gizmo/__init__.py": f"# {tmp_path} {side}\n"}))
        loaded = load_facts(str(root), packages=["gizmo"], demand=True)
        assert loaded.ok, loaded.error
        facts[side] = loaded.facts
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/p.py": plugin}))
    outcome = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"], target_package="gizmo")
    assert outcome.error is None, outcome.error
    return outcome.report.findings
