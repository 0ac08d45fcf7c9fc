"""DRIFT070 does not count a target call site inside a target method the consumer replaces
outright (`Runner.reshape = my_reshape`): the target's own body never runs again, so the new
keyword it passes never reaches the consumer's override (drift/analysis/rules/callers.py
`patched_away`). A replacement that keeps the original to call it (`orig = Runner.reshape`)
leaves the site counted, and the finding stays."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/backend.py": """
        class Backend:
            @staticmethod
            def get_shape(blocks, size):
                return (blocks, size)
        """,
    "gizmo/runner.py": """
        from gizmo.backend import Backend


        class Runner:
            def __init__(self, backend=Backend):
                self.backend = backend

            def reshape(self, blocks):
                return self.backend.get_shape(blocks, 16)
        """,
}
AFTER = {
    "gizmo/backend.py": """
        class Backend:
            @staticmethod
            def get_shape(blocks, size, cache_dtype="auto"):
                return (blocks, size)
        """,
    "gizmo/runner.py": """
        from gizmo.backend import Backend


        class Runner:
            def __init__(self, backend=Backend):
                self.backend = backend

            def reshape(self, blocks):
                return self.backend.get_shape(blocks, 16, cache_dtype="auto")
        """,
}
BACKEND = """
    from gizmo.backend import Backend


    class MyBackend(Backend):
        @staticmethod
        def get_shape(blocks, size):
            return (blocks, size, 2)
    """
REPLACED = """
    from gizmo.runner import Runner

    from app.backend import MyBackend


    def my_reshape(self, blocks):
        return MyBackend.get_shape(blocks, 16)


    Runner.reshape = my_reshape
    """
KEPT = """
    from gizmo.runner import Runner

    _orig_reshape = Runner.reshape


    def my_reshape(self, blocks):
        print("reshaping")
        return _orig_reshape(self, blocks)


    Runner.reshape = my_reshape
    """


IMPORTED_REPLACEMENT = """
    from gizmo.runner import Runner

    from app.reshape import my_reshape

    Runner.reshape = my_reshape
    """
RESHAPE = """
    import gizmo.runner  # a module the probe reads: it names the target

    from app.backend import MyBackend


    def my_reshape(self, blocks):
        return MyBackend.get_shape(blocks, 16)
    """


def _drift070(tmp_path, patch, **more):
    found = findings_of(tmp_path, Case("patched", BEFORE, AFTER, {"app/__init__.py": "", "app/backend.py": BACKEND,
                                                                 "app/patch.py": patch, **more}))
    return [f for f in found if f.rule_id == "DRIFT070"]


def test_a_caller_the_consumer_replaced_outright_is_not_counted(tmp_path):
    assert _drift070(tmp_path, REPLACED) == []
    after = [tmp_path / "after", tmp_path / "consumer"]
    call = "(__import__('app.patch'), __import__('gizmo.runner').runner.Runner(MyBackend).reshape(4))[1]"
    assert raised_by(after, "app.backend", call) is None  # the target's reshape, and its new keyword, never run


def test_a_replacement_imported_from_another_module_of_the_consumer_counts_too(tmp_path):
    assert _drift070(tmp_path, IMPORTED_REPLACEMENT, **{"app/reshape.py": RESHAPE}) == []


def test_a_replacement_that_calls_the_original_keeps_the_finding(tmp_path):
    found = _drift070(tmp_path, KEPT)
    assert [f.consumer_site.line for f in found] == [line_of(BACKEND, "def get_shape")]
    after = [tmp_path / "after", tmp_path / "consumer"]
    call = "(__import__('app.patch'), __import__('gizmo.runner').runner.Runner(MyBackend).reshape(4))[1]"
    assert (raised_by(after, "app.backend", call) or "").startswith("TypeError")
