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

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

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
