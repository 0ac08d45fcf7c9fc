"""DRIFT060's fix for a removed setting of a settings module that nothing pinned (`read_env`): the
target drops `GIZMO_PAD_GAP`, and the consumer's `envs.GIZMO_PAD_GAP` becomes the expression the
baseline's settings module evaluated, so it reads the same value from the same environment. Real
rules over synthetic trees, the real planner, the patched code run on the target with the variable
set and unset; a setting whose expression needs a helper of the settings module stays manual; and
the codemod's before/after/idempotence in libcst's CodemodTest shape.
"""

from __future__ import annotations

import os

from libcst.codemod import CodemodTest

from drift.findings import MANUAL, SAFE
from drift.fixes import plan
from drift.fixes.kinds.read_env import ReadEnv
from tests.rule_cases import Case, findings_of, line_of, only, raised_by, src

ENVS = """
    import os
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        GIZMO_LOG: str = "info"
    {declared}

    def _cache_root():
        return os.path.expanduser("~/.cache")


    environment_variables = {{
        {setting}
        "GIZMO_LOG": lambda: os.getenv("GIZMO_LOG", "info").lower(),
    }}


    def __getattr__(name):
        if name in environment_variables:
            return environment_variables[name]()
        raise AttributeError(name)
    """
GAP = '"GIZMO_PAD_GAP": lambda: int(os.environ["GIZMO_PAD_GAP"]) if "GIZMO_PAD_GAP" in os.environ else 0,'
ROOT = '"GIZMO_PAD_GAP": lambda: os.getenv("GIZMO_PAD_GAP", _cache_root()),'

CONSUMER = """
    import gizmo.envs as gizmo_envs


    def paddings(top):
        gap = gizmo_envs.GIZMO_PAD_GAP
        return [top + gizmo_envs.GIZMO_PAD_GAP * 2, gap]
    """


def _trees(setting: str) -> tuple[dict, dict]:
    before = {"gizmo/__init__.py": "", "gizmo/envs.py": ENVS.format(declared="    GIZMO_PAD_GAP: int = 0",
                                                                    setting=setting)}
    after = {"gizmo/__init__.py": "", "gizmo/envs.py": ENVS.format(declared="", setting="")}
    return before, after


def test_a_dropped_setting_is_read_from_the_environment_as_the_baseline_read_it(tmp_path):
    before, after = _trees(GAP)
    case = Case("gap", before, after, {"app/__init__.py": "", "app/main.py": CONSUMER})
    findings = findings_of(tmp_path, case)
    assert {f.rule_id for f in findings} == {"DRIFT060"} and len(findings) == 2
    for f in findings:
        assert f.fix.tier == SAFE and f.fix.codemod == "read_env"
        assert f.fix.description.startswith("read `GIZMO_PAD_GAP` from the environment as the baseline's `gizmo.envs`")
        assert "gizmo/envs.py:" in f.fix.description
    p = plan({"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}, findings)
    text = p.changes[0].after.decode()
    expr = '(int(os.environ["GIZMO_PAD_GAP"]) if "GIZMO_PAD_GAP" in os.environ else 0)'
    assert text.startswith("import os\n") and "gizmo_envs" not in text  # the settings import went with its last use
    assert f"gap = {expr}\n" in text  # the baseline's own words
    assert text.count('in os.environ else 0) * 2') == 1  # the second read, parenthesised inside `* 2`
    (tmp_path / "consumer/app/main.py").write_text(text)
    roots = [tmp_path / "consumer", tmp_path / "after"]
    assert raised_by(roots, "app.main", "paddings(8)") is None
    old = os.environ.pop("GIZMO_PAD_GAP", None)
    try:
        os.environ["GIZMO_PAD_GAP"] = "3"  # the user's setting still counts, as on the baseline
        assert raised_by(roots, "app.main", "(_ for _ in ()).throw(ValueError(paddings(8)))") == "ValueError: [14, 3]"
    finally:
        os.environ.pop("GIZMO_PAD_GAP", None)
        if old is not None:
            os.environ["GIZMO_PAD_GAP"] = old
    again = findings_of(tmp_path / "again", Case("gap", before, after, {"app/__init__.py": "", "app/main.py": text}))
    assert not again  # nothing left to find, so a second run has nothing to do


def test_a_setting_that_needs_a_helper_of_the_settings_module_stays_manual(tmp_path):
    before, after = _trees(ROOT)
    findings = findings_of(tmp_path, Case("root", before, after, {"app/__init__.py": "", "app/main.py": CONSUMER}))
    for f in findings:
        assert f.rule_id == "DRIFT060" and f.fix.tier == MANUAL and f.fix.codemod is None


class TestReadEnv(CodemodTest):
    TRANSFORM = ReadEnv
    EXPR = 'int(os.getenv("PAD", "0"))'

    def check(self, before: str, after: str, needle: str, expr: str = EXPR) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), attr="PAD", expr=expr)
        self.assertCodemod(after, after, line=line_of(before, needle), attr="PAD", expr=expr)

    def test_a_call_expression_replaces_the_read_and_os_is_imported(self) -> None:
        self.check("""
            import vllm.envs as envs

            x = envs.PAD + 1
            """, """
            import os

            x = int(os.getenv("PAD", "0")) + 1
            """, "x =")

    def test_a_conditional_expression_is_parenthesised(self) -> None:
        self.check("""
            import os
            from vllm import envs

            def f(n):
                return n * envs.PAD
            """, """
            import os

            def f(n):
                return n * (int(os.environ["PAD"]) if "PAD" in os.environ else 0)
            """, "return", expr='int(os.environ["PAD"]) if "PAD" in os.environ else 0')

    def test_the_settings_import_stays_while_another_read_uses_it(self) -> None:
        self.check("""
            import vllm.envs as envs

            a = envs.PAD
            b = envs.OTHER
            """, """
            import vllm.envs as envs
            import os

            a = int(os.getenv("PAD", "0"))
            b = envs.OTHER
            """, "a =")

    def test_a_store_is_left_alone(self) -> None:
        self.check("""
            envs.PAD = 3
            """, """
            envs.PAD = 3
            """, "envs.PAD")
