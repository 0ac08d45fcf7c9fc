"""An import of a target module the consumer's import hook answers with its own module reads the
consumer's module (drift/analysis/swapped_imports.py): a name the target dropped from that module
but the replacement defines still imports, so the finding is risky with the reason; a name the
replacement lacks stays breaking. The consumer runs on the target with the hook on to show it."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/ops/__init__.py": "",
    "gizmo/ops/merge.py": """
        def merge_states(a, b):
            return a + b

        def merge_all(xs):
            return sum(xs)
        """,
}
AFTER = {"gizmo/__init__.py": "", "gizmo/ops/__init__.py": ""}  # the module is gone on the target
HOOK = """
    import builtins
    import importlib
    import sys

    _OLD_IMPORT = builtins.__import__


    def _custom_import(name, globals=None, locals=None, fromlist=(), level=0):
        mappings = {
            "gizmo.ops.merge": "app.ops.merge",
        }
        if name in mappings and name not in sys.modules:
            sys.modules[name] = importlib.import_module(mappings[name])
        return _OLD_IMPORT(name, globals, locals, fromlist, level)


    builtins.__import__ = _custom_import
    """
MINE = """
    import gizmo


    def merge_states(a, b):
        return a + b
    """
USER = """
    from gizmo.ops.merge import merge_states
    from gizmo.ops.merge import merge_all


    def run():
        return merge_states(1, 2), merge_all([1])
    """


def test_an_import_the_hook_answers_with_a_module_defining_the_name_is_risky(tmp_path):
    found = findings_of(tmp_path, Case("hooked", BEFORE, AFTER, {"app/__init__.py": HOOK, "app/ops/__init__.py": "",
                                                                 "app/ops/merge.py": MINE, "app/user.py": USER}))
    imports = {f.consumer_site.line: f for f in found if f.consumer_site.path == "app/user.py"}
    kept, lacking = imports[line_of(USER, "import merge_states")], imports[line_of(USER, "import merge_all")]
    assert kept.severity.value == "risky" and lacking.severity.value == "breaking"
    assert "the consumer's import hook answers `gizmo.ops.merge` with `app.ops.merge`" in kept.title
    after = [tmp_path / "after", tmp_path / "consumer"]
    code = "(__import__('app'), __import__('app.ops.merge'), __import__('app.user'))"
    raised = raised_by(after, "app", code) or ""
    assert "merge_all" in raised and "merge_states" not in raised  # the hooked module has one name, not the other
