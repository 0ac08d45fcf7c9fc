"""A consumer class whose base is read off a target module alias (`class Mine(mod.Base)`), where the
target's module no longer has that name (DRIFT060 at the class): the module fails to import with
the AttributeError Python raises while defining the class."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/ct/moe.py": "class A:\n    pass\n\n\nclass B:\n    pass\n"}
# the module became a package that re-exports A only; B lives in a submodule
AFTER = {"gizmo/ct/moe/__init__.py": "from gizmo.ct.moe.a import A\n", "gizmo/ct/moe/a.py": "class A:\n    pass\n",
         "gizmo/ct/moe/b.py": "class B:\n    pass\n"}
MINE = """
    from gizmo.ct import moe as ct_moe


    class MyA(ct_moe.A):
        pass


    class MyB(ct_moe.B):
        def apply(self):
            return 1
    """


def test_a_base_read_off_a_module_alias_that_the_module_lost(tmp_path):
    found = findings_of(tmp_path, Case("alias-base", BEFORE, AFTER, {"app/mine.py": MINE}))
    assert_findings(found, [("DRIFT060", line_of(MINE, "class MyB"))])
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("before"), "app.mine", "MyB") is None
    assert raised_by(roots("after"), "app.mine", "MyB") == "AttributeError: module 'gizmo.ct.moe' has no attribute 'B'"
    assert found[0].predicted_failure == "AttributeError: module 'gizmo.ct.moe' has no attribute 'B'"
