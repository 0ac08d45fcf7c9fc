"""A stand-in class assigned over a target class (`gizmo.manager.Manager = Manager`, not extending
it) is built by the target's own code, so its `__init__` must take what the target's callers now
pass. Two mechanisms meet here:

- the consumer binds one of two functions as the class's `__init__` on different paths (`new_init`
  where the target's constructor takes `config`, `old_init` otherwise): the alternative that takes
  what the baseline's constructor takes is the one that ran there, and it is the one judged; the
  other, written for an older release, says nothing about this pair;
- the stand-in extends another target class (a shared abstract base): it still replaces the
  constructor of the class it is assigned over;
- a parameter removed from the middle of the target's constructor shifts the later ones up a
  slot (`(config, device, modules, padding, model_cls=None)` -> `(config, device, modules,
  model_cls=None)`): `model_cls`, which the baseline already had, is no rename of `padding`, so
  the consumer's required `padding` is a break, not a rename callers still fill by position.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {
    "gizmo/manager.py": """
    class AbstractManager:
        def __init__(self, device):
            self.device = device


    class Manager(AbstractManager):
        def __init__(self, config, device, modules, padding, model_cls=None):
            super().__init__(device)
            self.modules = modules


    class LRUManager(Manager):
        pass
    """,
    "gizmo/runner.py": """
    from gizmo import manager


    def load(config, device, model):
        return manager.LRUManager(config, device, model.modules, model.padding)
    """,
}
AFTER = {
    "gizmo/manager.py": """
    class AbstractManager:
        def __init__(self, device):
            self.device = device


    class Manager(AbstractManager):
        def __init__(self, config, device, modules, model_cls=None):
            super().__init__(device)
            self.modules = modules


    class LRUManager(Manager):
        pass
    """,
    "gizmo/runner.py": """
    from gizmo import manager


    def load(config, device, model):
        return manager.LRUManager(config, device, model.modules)
    """,
}

MANAGER = """
    import inspect

    from gizmo.manager import AbstractManager
    from gizmo.manager import Manager as TargetManager


    class Manager(AbstractManager):
        def lookup(self, name):
            return self.modules.get(name)


    def old_init(self, max_seqs, device, modules, padding, model_cls=None):
        AbstractManager.__init__(self, device)
        self.modules = modules


    def new_init(self, config, device, modules, padding, model_cls=None):
        old_init(self, config, device, modules, padding, model_cls)


    keys = inspect.signature(TargetManager.__init__).parameters.keys()
    if "config" in keys:
        Manager.__init__ = new_init
    else:
        Manager.__init__ = old_init


    class LRUManager(Manager):
        pass


    def install():
        import gizmo.manager

        gizmo.manager.Manager = Manager
        gizmo.manager.LRUManager = LRUManager
    """
CONSUMER = {"app/manager.py": MANAGER}


def test_the_init_the_baseline_ran_is_held_to_the_targets_callers(tmp_path):
    findings = findings_of(tmp_path, Case("stand-in-inits", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [("DRIFT070", line_of(MANAGER, "def new_init("))])
    f = findings[0]
    assert "requires `padding`" in f.title, f.title
    assert f.predicted_failure == "TypeError: new_init() missing 1 required positional argument: 'padding'"


def test_one_init_that_already_fits_the_target_says_nothing(tmp_path):
    """new_init with `padding=None`: the target's callers, which no longer pass it, still bind."""
    consumer = {"app/manager.py": MANAGER.replace(
        "def new_init(self, config, device, modules, padding, model_cls=None)",
        "def new_init(self, config, device, modules, padding=None, model_cls=None)")}
    assert_findings(findings_of(tmp_path, Case("stand-in-fits", BEFORE, AFTER, consumer)), [])


def test_python_fails_where_the_finding_says(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    run = ("(install(), __import__('gizmo.runner').runner.load(1, 'cpu', "
           "type('M', (), {'modules': {}, 'padding': []})()))")
    assert raised_by([before, app], "app.manager", run) is None
    assert raised_by([after, app], "app.manager", run) == \
        "TypeError: new_init() missing 1 required positional argument: 'padding'"
