"""A call on a callable a consumer helper chooses at run time (drift/analysis/chosen_callees.py):
`impl = get_impl()` where `get_impl` returns the consumer's own function by default and the
target's only under a switch. The target dropped a keyword the call passes: the call breaks only
where the switch picks the target's function, so the finding is risky with that reason, never
breaking and never dropped. A helper that only ever returns the target's function keeps it
breaking. Each case runs on the target release to show which paths raise."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/moe.py": """
    def fused_experts(x, w, inplace=False):
        return x
    """}
AFTER = {"gizmo/moe.py": """
    def fused_experts(x, w):
        return x
    """}
OWN = """
    def fused_experts(x, w, inplace=False):
        return x
    """
PICK = """
    import os

    from gizmo.moe import fused_experts as lib_fused_experts
    from app.own import fused_experts as own_fused_experts


    def get_impl():
        if os.getenv("USE_LIB") == "1":
            return lib_fused_experts
        return own_fused_experts


    def get_lib():
        return lib_fused_experts
    """
USE = """
    import gizmo.moe


    class Method:
        def apply(self, x, w):
            from app.pick import get_impl

            impl = get_impl()
            return impl(x, w, inplace=True)

        def apply_lib(self, x, w):
            from app.pick import get_lib

            impl = get_lib()
            return impl(x, w, inplace=True)
    """


def _case():
    return Case("chosen", BEFORE, AFTER, {"app/own.py": OWN, "app/pick.py": PICK, "app/use.py": USE})


def test_a_callee_the_helper_may_choose_among_the_consumers_own_is_risky(tmp_path):
    found = findings_of(tmp_path, _case())
    chosen, fixed = line_of(USE, "inplace=True", 1), line_of(USE, "inplace=True", 2)
    assert_findings(found, [("DRIFT010", chosen), ("DRIFT010", fixed)])
    by_line = {f.consumer_site.line: f for f in found}
    assert by_line[chosen].severity.value == "risky"
    assert "may be the consumer's own `fused_experts` (app.own.fused_experts)" in by_line[chosen].title
    assert by_line[fixed].severity.value == "breaking"
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.use", "Method().apply(1, 2)") is None  # the default: the consumer's own
    switched = "(__import__('os').environ.update(USE_LIB='1'), Method().apply(1, 2))"
    try:
        assert raised_by(after, "app.use", switched) == by_line[chosen].predicted_failure
    finally:
        __import__("os").environ.pop("USE_LIB", None)
    assert raised_by(after, "app.use", "Method().apply_lib(1, 2)") == by_line[fixed].predicted_failure
