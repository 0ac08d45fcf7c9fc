"""A consumer class assigned over a target class it does not extend (`gizmo.runner.Manager =
MyManager`): the target's code now builds the stand-in where it built its own class, so each
method the replaced class also defines is held to the target's calls (DRIFT070), and a member the
target now uses on the objects it keeps is required of it (DRIFT082). Each prediction is held to
what the synthetic code really raises. The assignment is read by the solved model, and from the
patch record when it sits in a function defined under a module-level `if`."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

MANAGER_BEFORE = """
    class Manager:
        def __init__(self, cfg):
            self.cfg = cfg

        def create(self, model):
            return model
    """
MANAGER_AFTER = """
    class Manager:
        def __init__(self, cfg):
            self.cfg = cfg

        def create(self, model, config=None):
            return model

        def supports_tower(self) -> bool:
            return False
    """
RUNNER_BEFORE = """
    from gizmo.manager import Manager


    class Runner:
        def load(self, model, cfg):
            self.manager: Manager = Manager(cfg)
            return self.manager.create(model)

        def encode(self):
            return 1
    """
RUNNER_AFTER = """
    from gizmo.manager import Manager


    class Runner:
        def load(self, model, cfg):
            self.manager: Manager = Manager(cfg)
            return self.manager.create(model, cfg)

        def encode(self):
            if self.manager.supports_tower():
                return 2
            return 1
    """
STAND_IN = """
    import gizmo.runner


    class MyManager:
        def __init__(self, cfg):
            self.cfg = cfg

        def create(self, model):
            return model


    def apply():
        gizmo.runner.Manager = MyManager
    """
STAND_IN_UNDER_IF = """
    import importlib.util


    class MyManager:
        def __init__(self, cfg):
            self.cfg = cfg

        def create(self, model):
            return model


    if importlib.util.find_spec("gizmo") is not None:
        def apply():
            import gizmo.runner
            gizmo.runner.Manager = MyManager
    """


def _case(consumer: str) -> Case:
    return Case("stand-in", {"gizmo/manager.py": MANAGER_BEFORE, "gizmo/runner.py": RUNNER_BEFORE},
                {"gizmo/manager.py": MANAGER_AFTER, "gizmo/runner.py": RUNNER_AFTER}, {"app/patch.py": consumer},
                [("DRIFT070", line_of(consumer, "def create")), ("DRIFT082", line_of(consumer, "class MyManager"))])


def _held_to_python(tmp_path, findings) -> None:
    roots = [tmp_path / "after", tmp_path / "consumer"]
    setup = "__import__('app.patch', fromlist=['apply']).apply() or "
    by_rule = {f.rule_id: f for f in findings}
    assert raised_by(roots, "gizmo.runner", setup + "Runner().load(1, 2)") == by_rule["DRIFT070"].predicted_failure \
        == "TypeError: MyManager.create() takes 2 positional arguments but 3 were given"
    raised = raised_by(roots, "gizmo.runner",
                       "(lambda r: (r.__dict__.update(manager=__import__('app.patch', fromlist=['x']).MyManager(2)),"
                       " r.encode()))(Runner())")
    assert raised == by_rule["DRIFT082"].predicted_failure \
        == "AttributeError: 'MyManager' object has no attribute 'supports_tower'"
    assert by_rule["DRIFT082"].severity.value == "breaking"
    assert by_rule["DRIFT070"].severity.value == "risky"  # which target paths reach it is not followed


def test_a_stand_in_assigned_over_a_target_class_is_held_to_what_the_target_does_with_it(tmp_path):
    case = _case(STAND_IN)
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    _held_to_python(tmp_path, findings)


def test_a_stand_in_assigned_in_a_function_under_a_module_level_if(tmp_path):
    case = _case(STAND_IN_UNDER_IF)
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    _held_to_python(tmp_path, findings)


def test_a_stand_in_that_keeps_up_is_silent(tmp_path):
    fixed = STAND_IN.replace("def create(self, model):", "def create(self, model, config=None):").replace(
        "            return model\n", "            return model\n\n        def supports_tower(self):\n            return False\n")
    case = Case("stand-in-fixed", {"gizmo/manager.py": MANAGER_BEFORE, "gizmo/runner.py": RUNNER_BEFORE},
                {"gizmo/manager.py": MANAGER_AFTER, "gizmo/runner.py": RUNNER_AFTER}, {"app/patch.py": fixed}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


STAND_IN_AND_LOADER = STAND_IN.replace("""    def apply():
        gizmo.runner.Manager = MyManager
""", """    def my_load(self, model, cfg):
        self.manager = MyManager(cfg)
        return self.manager.create(model)


    def apply():
        gizmo.runner.Manager = MyManager
        gizmo.runner.Runner.load = my_load
""")


def test_a_call_inside_a_target_method_the_consumer_also_replaces_never_runs(tmp_path):
    case = Case("stand-in-and-loader", {"gizmo/manager.py": MANAGER_BEFORE, "gizmo/runner.py": RUNNER_BEFORE},
                {"gizmo/manager.py": MANAGER_AFTER, "gizmo/runner.py": RUNNER_AFTER},
                {"app/patch.py": STAND_IN_AND_LOADER},
                [("DRIFT082", line_of(STAND_IN_AND_LOADER, "class MyManager"))])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "gizmo.runner",
                     "__import__('app.patch', fromlist=['apply']).apply() or Runner().load(1, 2)") is None
