"""A branch under an `or` of version tests (`if vllm_version_is("0.10.1.1") or
vllm_version_is("0.10.1"):`, vllm-ascend 0.10.1rc1) runs where either holds: shut on a target that
is neither, so what it reads there is not judged on that target (seven false breaking findings on
vllm-ascend against vLLM 0.10.2), and live where one of them is the target. The `else` of an `and`
of version tests runs where either fails."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import assert_findings, consumer_of, facts_of, line_of, write_tree


def _lib(version: str, method: str) -> dict[str, str]:
    return {"gizmo/__init__.py": f'__version__ = "{version}"\nfrom gizmo.core import get_context\n',
            "gizmo/core.py": f"""
                class Context:
                    def {method}(self):
                        return 0


                def get_context() -> Context:
                    return Context()
                """}


UTIL = """
    import gizmo


    def version_is(v):
        return gizmo.__version__ == v
    """
MAIN = """
    from gizmo import get_context
    from app.util import version_is


    def old():
        ctx = get_context()
        if version_is("1.0") or version_is("1.1"):
            return ctx.drop()
        return ctx.drop_all()


    def either():
        ctx = get_context()
        if version_is("1.1") or version_is("2.0"):
            return ctx.drop()
        return 0


    def both():
        ctx = get_context()
        if version_is("1.0") and version_is("1.1"):
            return 0
        return ctx.drop()
    """


def _check(tmp_path, main: str):
    t = facts_of(write_tree(tmp_path / "after", _lib("2.0", "drop_all")))
    t["packages"]["gizmo"]["version"] = "2.0"
    b = facts_of(write_tree(tmp_path / "before", _lib("1.0", "drop")))
    b["packages"]["gizmo"]["version"] = "1.0"
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/util.py": UTIL, "app/main.py": main}))
    out = check(consumer=cons, target_facts=t, baseline_facts=b, target_package="gizmo")
    assert out.report is not None, out.error
    return out.report.findings


def test_a_branch_under_an_or_of_version_tests_runs_where_one_holds(tmp_path):
    found = [f for f in _check(tmp_path, MAIN) if f.severity.value == "breaking"]
    # `old`'s body is shut on 2.0; `either`'s runs there (2.0 is one of its versions); the else of
    # `both` runs wherever the two tests are not both true
    assert_findings(found, [("DRIFT060", line_of(MAIN, "ctx.drop()", 2)), ("DRIFT060", line_of(MAIN, "ctx.drop()", 3))])
