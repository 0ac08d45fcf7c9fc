"""The refinements registry: every pass runs, in order, over the rules' findings in one loop, and a
pass that raises is a note that makes the run incomplete, never a crash (synthetic findings)."""

from __future__ import annotations

from dataclasses import replace

from drift.analysis import engine, refinements
from drift.analysis.rules.base import rule
from drift.findings import Finding, Location, RuleKind, Severity


def _finding(line: int) -> Finding:
    return Finding(rule_id="DRIFT900", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.BREAKING,
                   title=f"gone at {line}", consumer_site=Location("app/main.py", line), symbol=f"pkg.A.x{line}")


@rule("DRIFT900", RuleKind.ATTRIBUTE_MISSING)
def _two_findings(ctx):
    yield _finding(1)
    yield _finding(2)


def _drop_line_two(ctx, findings):
    return [f for f in findings if f.consumer_site.line != 2]


def _downgrade_all(ctx, findings):
    return [replace(f, severity=Severity.RISKY) for f in findings]


def _broken(ctx, findings):
    raise ValueError("boom")


def test_the_registry_holds_every_pass_once_each_with_a_reason():
    names = [r.name for r in refinements.REFINEMENTS]
    assert len(names) == len(set(names)) and "consumer_set" in names and "subsumed" in names
    assert all(r.why and callable(r.apply) for r in refinements.REFINEMENTS)
    assert names.index("dead_signature_sides") < names.index("unloaded")  # drops before downgrades


def test_the_passes_run_in_order_over_the_rules_findings(monkeypatch):
    monkeypatch.setattr(engine, "REFINEMENTS", (refinements.Refinement("drop", _drop_line_two, "drops"),
                                                refinements.Refinement("down", _downgrade_all, "downgrades")))
    found, notes = engine.run_rules(None, [_two_findings])
    assert [(f.consumer_site.line, f.severity) for f in found] == [(1, Severity.RISKY)] and notes == ()


def test_a_pass_that_raises_is_a_note_and_the_others_still_run(monkeypatch):
    monkeypatch.setattr(engine, "REFINEMENTS", (refinements.Refinement("broken", _broken, "raises"),
                                                refinements.Refinement("drop", _drop_line_two, "drops")))
    found, notes = engine.run_rules(None, [_two_findings])
    assert [f.consumer_site.line for f in found] == [1]
    assert notes == ("refinement broken failed: ValueError: boom",)
