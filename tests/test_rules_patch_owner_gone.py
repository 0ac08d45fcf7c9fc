"""DRIFT080 where the patched owner itself is gone (synthetic before/after pairs).

`gizmo.legacy.Engine.step = my_step` where the target removed the module `gizmo.legacy`: the
patch statement raises (reaching the owner fails), and even once that is mended there is
nothing left to patch. A migration must see every such patch, not only the first to raise.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

LEGACY = """
    class Engine:
        def step(self):
            return 1

        def stop(self):
            return 0


    def helper():
        return 2
    """
CORE = """
    class Core:
        def run(self):
            return 3
    """
MINE = """
    import gizmo.legacy
    import gizmo.core

    from gizmo.core import Core


    def my_step(self):
        return 10


    def my_helper():
        return 20


    def install():
        gizmo.legacy.Engine.step = my_step
        gizmo.legacy.helper = my_helper
        gizmo.core.Core.run = my_step
    """


def _case(mine=MINE):
    before = {"gizmo/__init__.py": "", "gizmo/legacy.py": LEGACY, "gizmo/core.py": CORE}
    after = {"gizmo/__init__.py": "", "gizmo/core.py": CORE}
    return Case("owner-gone", before, after, {"app/__init__.py": "", "app/mine.py": mine})


def test_a_patch_through_a_removed_module_is_a_break_at_the_patch(tmp_path):
    findings = findings_of(tmp_path, _case())
    patches = [f for f in findings if f.rule_id == "DRIFT080"]
    assert sorted(f.consumer_site.line for f in patches) == [line_of(MINE, "gizmo.legacy.Engine.step ="),
                                                             line_of(MINE, "gizmo.legacy.helper =")]
    assert all(f.severity.value == "breaking" for f in patches)
    step = next(f for f in patches if f.consumer_site.line == line_of(MINE, "gizmo.legacy.Engine.step ="))
    assert step.symbol == "gizmo.legacy.Engine.step"
    assert "no `gizmo.legacy.Engine` to patch" in step.title
    # the patch of a class that is still there is no finding; the removed module's import is its own
    assert_findings(findings, [("DRIFT001", line_of(MINE, "import gizmo.legacy")),
                               ("DRIFT080", line_of(MINE, "gizmo.legacy.Engine.step =")),
                               ("DRIFT080", line_of(MINE, "gizmo.legacy.helper ="))])


def test_the_predicted_failure_is_what_python_raises(tmp_path):
    """Without the import (another module imported it on the baseline), the chain itself raises
    where the module is reached."""
    mine = MINE.replace("    import gizmo.legacy\n", "")
    assert mine != MINE
    findings = findings_of(tmp_path, _case(mine))
    step = next(f for f in findings if f.rule_id == "DRIFT080" and "Engine.step" in f.title)
    assert step.predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "install()")
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine",
                     "__import__('gizmo.legacy') and install()") is None


def test_a_patch_under_a_failing_from_import_is_reported_at_each_patch(tmp_path):
    mine = """
        from gizmo.legacy import Engine


        def my_step(self):
            return 10


        Engine.step = my_step
        Engine.stop = my_step
        Engine.extra = my_step
        """
    findings = findings_of(tmp_path, _case(mine))
    # `extra` was no name of the baseline's Engine either: that patch only ever added one. DRIFT005
    # (risky) names each evaluated use of the removed `Engine`; at the two patches DRIFT080 says more
    # of the same removal and wins (drift/analysis/subsumed.py), so DRIFT005 stays only at `extra`
    assert_findings(findings, [("DRIFT001", line_of(mine, "from gizmo.legacy import Engine")),
                               ("DRIFT080", line_of(mine, "Engine.step = my_step")),
                               ("DRIFT080", line_of(mine, "Engine.stop = my_step")),
                               ("DRIFT005", line_of(mine, "Engine.extra = my_step"))])
