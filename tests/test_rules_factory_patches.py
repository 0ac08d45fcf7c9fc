"""A replacement a factory builds in a module that never names the target (`make_patched(orig)`
returns a closure taking `self`), installed by another module through a function-local import
that an `except` arm sets to None: the factory's module is read, the closure's `self` is the
patched class's object, and its signature is held to the target's calls (DRIFT070); its reads
of attributes the target's class no longer has are DRIFT060."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/__init__.py": "", "gizmo/runner.py": """
    class Runner:
        def __init__(self):
            self.positions = [0]

        def prepare(self, batch):
            return batch

        def step(self, batch):
            return self.prepare(batch)
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/runner.py": """
    class Runner:
        def __init__(self):
            self.pos = [0]

        def prepare(self, batch, padded):
            return batch

        def step(self, batch):
            return self.prepare(batch, padded=8)
    """}
FACTORY = """
    def make_patched(original):
        def _patched(self, batch):
            out = original(self, batch)
            return out, self.positions

        return _patched
    """
INSTALLER = """
    from app.factory import make_patched


    def install():
        try:
            import gizmo.runner as runner_mod
        except ImportError:
            runner_mod = None
        if runner_mod is not None:
            orig = runner_mod.Runner.prepare
            runner_mod.Runner.prepare = make_patched(orig)
    """


def test_a_factory_built_replacement_is_read_and_held_to_the_target(tmp_path):
    consumer = {"app/__init__.py": "", "app/factory.py": FACTORY, "app/install.py": INSTALLER}
    found = findings_of(tmp_path, Case("factory-patch", BEFORE, AFTER, consumer))
    got = sorted((f.rule_id, f.consumer_site.path, f.consumer_site.line) for f in found
                 if f.rule_id in ("DRIFT060", "DRIFT070"))
    assert got == [("DRIFT060", "app/factory.py", line_of(FACTORY, "self.positions")),
                   ("DRIFT070", "app/factory.py", line_of(FACTORY, "def _patched"))], \
        [(f.rule_id, f.consumer_site.path, f.consumer_site.line, f.title) for f in found]
