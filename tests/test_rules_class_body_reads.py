"""A target attribute read in a class body runs when the class is defined.

`_orig = EngineArgs._supported` in the body of a patching subclass saves the original to call
later; Python evaluates it when the module is imported, so a member the target no longer has is an
AttributeError at the class statement (DRIFT060 there), not only where the saved original is
called. A member the target keeps is silent. The failure is Python's own.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/args.py": """
    class EngineArgs:
        def create(self):
            return self._supported()

        def _supported(self):
            return True
    """}
AFTER = {"gizmo/args.py": """
    class EngineArgs:
        def create(self):
            return True
    """}
PATCH = """
    from gizmo.args import EngineArgs


    class Patched(EngineArgs):
        _orig_create = EngineArgs.create
        _orig_supported = EngineArgs._supported

        def supported(self):
            return self._orig_supported()
    """


def test_a_saved_original_read_in_a_class_body_is_checked_where_the_class_is_defined(tmp_path):
    found = findings_of(tmp_path, Case("class-body", BEFORE, AFTER, {"app/args.py": PATCH}))
    assert_findings(found, [("DRIFT060", line_of(PATCH, "_orig_supported ="))])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.args", "Patched") == \
        "AttributeError: type object 'EngineArgs' has no attribute '_supported'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.args", "Patched().supported()") is None
