"""Fix tiers, as ruff's safe/unsafe fixes: what `drift patch` writes by default, on request, never.

Real rules over synthetic before/after trees (tests/rule_cases.py), then the real planner on the
consumer's real files: a safe fix is written, an unsafe one only with `unsafe_fixes`, a manual one
never (with `add_todo`, a `# TODO(drift):` comment carries the edit and the evidence).
"""

from __future__ import annotations

import textwrap

import libcst as cst
from libcst.codemod import CodemodContext, CodemodTest

from drift.findings import MANUAL, SAFE, UNSAFE
from drift.fixes import plan
from drift.fixes.kinds.add_second_phase import AddSecondPhase
from drift.reports._common import fix_text
from tests.rule_cases import Case, findings_of, line_of, only, src

MAKE_BEFORE = """
    def make(a, size=1, mode="fast"):
        return [a] * size if mode else []
    """
MAKE_AFTER = """
    def make(a):
        return [a]
    """


def consumer_calling(args: str) -> str:
    return f"""
    from gizmo.core import make

    def main():
        return make(1, {args})
    """


def drop_case(args: str) -> Case:
    return Case("drop", {"gizmo/core.py": MAKE_BEFORE}, {"gizmo/core.py": MAKE_AFTER},
                {"app/main.py": consumer_calling(args)})


def test_dropping_the_baseline_default_is_safe(tmp_path):
    f = only(findings_of(tmp_path, drop_case("size=1")), "DRIFT010")
    assert f.fix.tier == SAFE
    assert "size=1" in f.fix.description
    g = only(findings_of(tmp_path / "q", drop_case("mode='fast'")), "DRIFT010")
    assert g.fix.tier == SAFE  # the same value, written with other quotes
    for i, nothing in enumerate(("size=None", "size={}", "size=[]", "size=dict()")):
        h = only(findings_of(tmp_path / f"n{i}", drop_case(nothing)), "DRIFT010")
        assert h.fix.tier == SAFE, nothing  # passes no data: dropping it loses none
    for i, choice in enumerate(("size=0", "mode=False", "size=n")):
        h = only(findings_of(tmp_path / f"c{i}", drop_case(choice)), "DRIFT010")
        assert h.fix.tier == UNSAFE, choice


def test_dropping_a_chosen_value_is_unsafe_and_not_written_by_default(tmp_path):
    findings = findings_of(tmp_path, drop_case("size=2"))
    f = only(findings, "DRIFT010")
    assert f.fix.tier == UNSAFE and f.fix.codemod == "drop_keyword"
    # `make` lost `size` and gained nothing: safe only inside a range consumer's version branch
    assert fix_text(f.fix).startswith("unsafe (--unsafe-fixes; safe when version-gated): drop `size=2`")
    files = {"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}
    held = plan(files, findings)
    assert held.empty and [x.key for x, _ in held.held] == [f.key]
    applied = plan(files, findings, unsafe_fixes=True)
    assert applied.changes[0].after.decode().count("make(1)") == 1
    assert applied.finding_keys == (f.key,)


GUIDED_BEFORE = """
    class SamplingParams:
        def __init__(self, max_tokens=16, guided_decoding=None, structured_outputs=None):
            self.max_tokens = max_tokens
            self.structured_outputs = structured_outputs or guided_decoding
    """
GUIDED_AFTER = """
    class SamplingParams:
        def __init__(self, max_tokens=16, structured_outputs=None):
            self.max_tokens = max_tokens
            self.structured_outputs = structured_outputs
    """
GUIDED_CONSUMER = """
    from gizmo.sampling import SamplingParams

    def params(regex):
        return SamplingParams(
            max_tokens=8,
            guided_decoding={"regex": regex},
        )
    """


def test_a_dropped_constraint_is_never_written_without_unsafe_fixes(tmp_path):
    """`SamplingParams(guided_decoding=...)` dropped would silently lose the regex constraint."""
    case = Case("guided", {"gizmo/sampling.py": GUIDED_BEFORE}, {"gizmo/sampling.py": GUIDED_AFTER},
                {"app/main.py": GUIDED_CONSUMER})
    findings = findings_of(tmp_path, case)
    f = only(findings, "DRIFT010")
    assert f.fix.tier == UNSAFE
    files = {"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}
    p = plan(files, findings)
    assert p.empty and p.finding_keys == ()
    marked = plan(files, findings, add_todo=True)
    text = marked.changes[0].after.decode()
    assert marked.todos == (f.key,)
    # above the statement that holds the keyword, at its indentation, with the edit and the evidence
    assert "    # TODO(drift): DRIFT010 drop `guided_decoding={\"regex\": regex}`" in text
    assert text.index("# TODO(drift)") < text.index("return SamplingParams(")
    assert "gizmo/sampling.py:" in text.split("# TODO(drift)")[1].split("\n")[0]
    assert 'guided_decoding={"regex": regex},' in text  # the code itself is untouched
    compile(text, "main.py", "exec")
    again = plan({"app/main.py": marked.changes[0].after}, findings, add_todo=True)
    assert again.empty  # the comment is there already: a second run changes nothing


RUNNER_BEFORE = """
    class Runner:
        def __init__(self):
            self.state = None

        def run(self, x):
            return [x]
    """
RUNNER_AFTER = """
    class Runner:
        def __init__(self):
            self.state = None

        def run(self, x):
            self.state = [x]
            return None

        def collect(self, grammar):
            out = self.state
            self.state = None
            return out
    """
OWN_OVERRIDE = """
    from gizmo.runner import Runner

    class MyRunner(Runner):
        def run(self, x):
            out = super().run(x)
            return out
    """
PLAIN_CALLER = """
    from gizmo.runner import Runner

    class App:
        def __init__(self):
            self.r = Runner()

        def step(self, x):
            out = self.r.run(x)
            return out
    """


def _two_phase(tmp_path, consumer):
    case = Case("two-phase", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_AFTER},
                {"app/main.py": consumer})
    findings = findings_of(tmp_path, case)
    return [f for f in findings if f.rule_id == "DRIFT020"], findings


def test_second_phase_inside_the_consumers_own_override_is_manual(tmp_path):
    hits, findings = _two_phase(tmp_path, OWN_OVERRIDE)
    f = only(tuple(hits), "DRIFT020")
    assert f.fix.tier == MANUAL and f.fix.codemod is None
    assert "override" in f.fix.manual_reason
    files = {"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}
    assert plan(files, findings, unsafe_fixes=True).empty


def test_second_phase_with_placeholder_arguments_is_unsafe(tmp_path):
    hits, findings = _two_phase(tmp_path, PLAIN_CALLER)
    f = only(tuple(hits), "DRIFT020")
    assert f.fix.tier == UNSAFE and f.fix.args["sibling_args"] == ["None"]
    files = {"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}
    assert plan(files, findings).empty
    text = plan(files, findings, unsafe_fixes=True).changes[0].after.decode()
    assert "out = self.r.collect(None)" in text


class TestAddSecondPhaseNeverInsideTheOverride(CodemodTest):
    """The codemod itself refuses, whatever a rule (or a plugin rule) asks of it."""

    TRANSFORM = AddSecondPhase

    def test_inside_the_override(self) -> None:
        before = src("""
            class MyRunner(Base):
                def execute_model(self, so):
                    out = super().execute_model(so)
                    return out
            """)
        module = cst.parse_module(before)
        command = AddSecondPhase(CodemodContext(), line=line_of(before, "super().execute_model"))
        assert command.transform_module(module).code == before
        assert command.outcome.status == "not_found" and "override" in command.outcome.reason

    def test_outside_the_override(self) -> None:
        before = src("""
            def step(ex, so):
                out = ex.execute_model(so)
                return out
            """)
        after = src("""
            def step(ex, so):
                out = ex.execute_model(so)
                if out is None:
                    out = ex.sample_tokens(None)
                return out
            """)
        self.assertCodemod(before, after, line=line_of(before, "ex.execute_model"))
        self.assertCodemod(after, after, line=line_of(after, "ex.execute_model"))  # idempotent


def test_every_format_shows_the_tier():
    from drift.findings import Fix

    assert fix_text(Fix("drop `a=1`", codemod="drop_keyword", tier=SAFE)) == "safe: drop `a=1`"
    assert fix_text(Fix("drop `a=2`", codemod="drop_keyword")) == "unsafe (--unsafe-fixes): drop `a=2`"
    assert fix_text(Fix("pass `b=`", manual_reason="a decision")) == "manual: pass `b=`"
    assert fix_text(Fix("pass `b=`", manual_reason="a decision"), verbose=True) == "manual: pass `b=` (a decision)"
    assert Fix("x", codemod="drop_keyword", tier="bogus").tier == UNSAFE
    assert Fix("x", tier=SAFE).tier == MANUAL
