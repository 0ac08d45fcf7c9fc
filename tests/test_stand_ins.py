"""Replacements written inside a module-level `if` (probes/ir.py walks the defs and classes of a
module-level `if`/`try`/`with` as the module's own), judged as every replacement is
(drift/analysis/rules/reach.py: a stand-in class by DRIFT070 and DRIFT082, a function by
`_declared_findings`):
- a stand-in method the target now calls with a new argument is DRIFT070 at its `def`;
- a method the replaced class gained, that the target now uses and the stand-in lacks, is
  DRIFT082 at the stand-in's `class`;
- a function assigned over a target function whose parameter the target renamed in place is at
  most risky (`_positional_renames`: callers written positionally still reach it);
each checked against what Python raises once the consumer's `install()` ran.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/manager.py": """
        class Manager:
            def __init__(self, size):
                self.size = size

            def create(self, model):
                return model


        def scale(config, shape):
            return config


        class Runner:
            def __init__(self):
                self.manager: Manager = Manager(1)

            def run(self, model):
                scale({}, 2)
                return self.manager.create(model)
        """,
}
AFTER = {
    "gizmo/manager.py": """
        class Manager:
            def __init__(self, size):
                self.size = size

            def create(self, model, config):
                return model

            def supports_towers(self):
                return True


        def scale(config, rng):
            return config


        class Runner:
            def __init__(self):
                self.manager: Manager = Manager(1)

            def run(self, model):
                scale({}, 2)
                return self.manager.create(model, None)

            def towers(self):
                return self.manager.supports_towers()
        """,
}
CONSUMER = """
    import gizmo.manager

    if hasattr(gizmo.manager, "Manager"):
        class MyManager:
            def __init__(self, size):
                self.size = size

            def create(self, model):
                return model

        def my_scale(config, shape):
            return config

        def install():
            gizmo.manager.Manager = MyManager
            gizmo.manager.scale = my_scale
    """


def test_a_stand_in_is_held_to_how_the_target_calls_the_class_it_replaces(tmp_path):
    found = findings_of(tmp_path, Case("stand-in", BEFORE, AFTER, {"app/patches.py": CONSUMER}))
    assert_findings(found, [("DRIFT070", line_of(CONSUMER, "def create(self, model)")),
                            ("DRIFT082", line_of(CONSUMER, "class MyManager")),
                            ("DRIFT070", "renamed at the same position")])
    renamed = next(f for f in found if "renamed" in f.title)
    assert renamed.severity.value == "risky" and "rng" in renamed.title
    after = [tmp_path / "after", tmp_path / "consumer"]
    arity = next(f for f in found if f.consumer_site.line == line_of(CONSUMER, "def create(self, model)"))
    assert raised_by(after, "app.patches", "(install(), gizmo.manager.Runner().run('m'))") == arity.predicted_failure
    assert raised_by(after, "app.patches", "(install(), gizmo.manager.Runner().towers())") \
        == "AttributeError: 'MyManager' object has no attribute 'supports_towers'"
    assert raised_by(after, "app.patches", "(install(), gizmo.manager.scale({}, 2))") is None
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.patches",
                     "(install(), gizmo.manager.Runner().run('m'))") is None


def test_a_stand_in_of_an_unchanged_class_gives_nothing(tmp_path):
    found = findings_of(tmp_path, Case("stand-in-kept", BEFORE, BEFORE, {"app/patches.py": CONSUMER}))
    assert_findings(found, [])

