"""DRIFT060's fix for a removed setting the baseline had pinned (`settle_setting`): the baseline's
own engine raises unless `GIZMO_USE_V1` is true and the target drops the setting, so the
consumer's read is that constant. Real rules over synthetic trees, the real planner, the patched
code run on the target; and the codemod's before/after/idempotence in libcst's CodemodTest shape.
"""

from __future__ import annotations

from libcst.codemod import CodemodTest

from drift.findings import SAFE
from drift.fixes import plan
from drift.fixes.kinds.settle_setting import SettleSetting
from tests.rule_cases import Case, findings_of, line_of, only, raised_by, src

ENVS = """
    import os
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        GIZMO_LOG: str = "info"
    {declared}

    environment_variables = {{
        {setting}
        "GIZMO_LOG": lambda: os.getenv("GIZMO_LOG", "info").lower(),
    }}


    def __getattr__(name):
        return environment_variables[name]()
    """
V1 = '"GIZMO_USE_V1": lambda: bool(int(os.getenv("GIZMO_USE_V1", "1"))),'
ENGINE = """
    from gizmo import envs


    class Engine:
        def __init__(self):
            if not envs.GIZMO_USE_V1:
                raise ValueError("Using the V1 engine, but GIZMO_USE_V1=False")
    """


def _trees(pinned: bool) -> tuple[dict, dict]:
    before = {"gizmo/__init__.py": "", "gizmo/engine.py": ENGINE if pinned else "class Engine:\n    pass\n",
              "gizmo/envs.py": ENVS.format(declared="    GIZMO_USE_V1: bool = True", setting=V1)}
    after = {"gizmo/__init__.py": "", "gizmo/engine.py": "class Engine:\n    pass\n",
             "gizmo/envs.py": ENVS.format(declared="", setting="")}
    return before, after


CONSUMER = """
    import gizmo.envs as gizmo_envs


    class Platform:
        @classmethod
        def check(cls, config):
            if not gizmo_envs.GIZMO_USE_V1:
                raise ValueError("this platform does not support V0")
            # the rest of the check
            return config
    """


def test_a_setting_the_baseline_pinned_is_settled_safely(tmp_path):
    before, after = _trees(pinned=True)
    findings = findings_of(tmp_path, Case("pinned", before, after, {"app/__init__.py": "", "app/main.py": CONSUMER}))
    f = only(findings, "DRIFT060")
    assert f.fix.tier == SAFE and f.fix.codemod == "settle_setting"
    assert f.fix.description.startswith("read `GIZMO_USE_V1` as `True`") and "gizmo/engine.py:7" in f.fix.description
    p = plan({"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}, findings)
    text = p.changes[0].after.decode()
    assert text == src("""
        class Platform:
            @classmethod
            def check(cls, config):
                # the rest of the check
                return config
        """)
    (tmp_path / "consumer/app/main.py").write_text(text)
    assert raised_by([tmp_path / "consumer", tmp_path / "after"], "app.main", "Platform.check(3)") is None
    again = findings_of(tmp_path / "again", Case("pinned", before, after, {"app/__init__.py": "", "app/main.py": text}))
    assert not again  # nothing left to find, so a second run has nothing to do


def test_a_setting_nothing_pinned_is_not_settled(tmp_path):
    # no raise pins it: no constant; the baseline's own expression is read instead (test_fix_env_read.py)
    before, after = _trees(pinned=False)
    findings = findings_of(tmp_path, Case("free", before, after, {"app/__init__.py": "", "app/main.py": CONSUMER}))
    f = only(findings, "DRIFT060")
    assert f.fix.codemod == "read_env" and f.fix.tier == SAFE


class TestSettleSetting(CodemodTest):
    TRANSFORM = SettleSetting

    def check(self, before: str, after: str, needle: str) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), attr="USE_V1", value=True)
        self.assertCodemod(after, after, line=line_of(before, needle), attr="USE_V1", value=True)

    def test_the_arm_that_runs_stays_and_the_other_goes(self) -> None:
        self.check("""
            def f(q):
                kw = {}
                if envs.USE_V1:
                    kw["out"] = q.shape
                else:
                    kw["out"] = None
                return kw
            """, """
            def f(q):
                kw = {}
                kw["out"] = q.shape
                return kw
            """, "if envs")

    def test_an_assert_that_holds_goes_and_an_empty_block_gets_pass(self) -> None:
        self.check("""
            def f():
                assert envs.USE_V1, "needs V1"
            """, """
            def f():
                pass
            """, "assert")

    def test_an_elif_left_becomes_the_if(self) -> None:
        self.check("""
            if not envs.USE_V1:
                raise ValueError("V0")
            elif ready:
                go()
            """, """
            if ready:
                go()
            """, "if not")

    def test_another_read_becomes_the_literal(self) -> None:
        self.check("""
            use = envs.USE_V1 and fast
            """, """
            use = True and fast
            """, "use =")
