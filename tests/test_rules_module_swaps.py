"""A target module the consumer answers with its own module through an import hook (DRIFT084), on
synthetic before/after trees; the prediction is held to the ImportError the synthetic code raises."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

WRAPPER_BEFORE = """
    class OldWrapper:
        pass
    """
WRAPPER_AFTER = """
    class NewWrapper:
        pass
    """
DECORATORS_BEFORE = """
    from gizmo.wrapper import OldWrapper


    def support(cls):
        return OldWrapper
    """
DECORATORS_AFTER = DECORATORS_BEFORE.replace("OldWrapper", "NewWrapper")
HOOK = """
    import builtins
    import importlib
    import sys

    import gizmo

    _OLD_IMPORT = builtins.__import__


    def _custom_import(name, globals=None, locals=None, fromlist=(), level=0):
        mappings = {
            "gizmo.wrapper": "app.wrapper",
        }
        if name in mappings and name not in sys.modules:
            module = importlib.import_module(mappings[name])
            sys.modules[name] = module
        return _OLD_IMPORT(name, globals, locals, fromlist, level)


    builtins.__import__ = _custom_import
    """
MINE = """
    import gizmo


    class OldWrapper:
        pass
    """


def _case(mine: str) -> Case:
    return Case("swap", {"gizmo/wrapper.py": WRAPPER_BEFORE, "gizmo/decorators.py": DECORATORS_BEFORE},
                {"gizmo/wrapper.py": WRAPPER_AFTER, "gizmo/decorators.py": DECORATORS_AFTER},
                {"app/__init__.py": HOOK, "app/wrapper.py": mine})


def test_a_replaced_module_lacks_a_name_the_target_now_imports_from_it(tmp_path):
    found = findings_of(tmp_path, _case(MINE))
    assert_findings(found, [("DRIFT084", line_of(HOOK, '"gizmo.wrapper": "app.wrapper"'))])
    f = only(found, "DRIFT084")
    assert "`NewWrapper`" in f.title and f.target_evidence[0].line == line_of(DECORATORS_AFTER, "import NewWrapper")
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    load = "__import__('gizmo.decorators')"
    assert raised_by(roots("before"), "app", load) is None
    raised = raised_by(roots("after"), "app", load) or ""
    assert raised.startswith(f.predicted_failure)  # Python adds the replacement's file in parentheses


def test_a_replacement_that_defines_the_name_or_cannot_load_itself_is_silent(tmp_path):
    complete = MINE + """

    class NewWrapper:
        pass
    """
    assert_findings(findings_of(tmp_path / "complete", _case(complete)), [])
    # its own import of a name the target dropped fails first (DRIFT001 reports that import)
    broken = MINE.replace("import gizmo\n", "import gizmo\nfrom gizmo.wrapper import OldWrapper as _Base\n")
    found = findings_of(tmp_path / "broken", _case(broken))
    assert not [f for f in found if f.rule_id == "DRIFT084"], [f.title for f in found]
