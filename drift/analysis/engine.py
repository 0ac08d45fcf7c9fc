"""Run the rules, then the refinements (drift/analysis/refinements.py), then place each finding where Python raises (surfacing.py), over a context; one broken rule or refinement is a note, never a crash."""

from __future__ import annotations

from drift.analysis.context import CheckContext
from drift.findings import SEVERITY_ORDER, Finding, UseChecked
from drift.analysis.rules.base import Rule
from drift.analysis.refinements import REFINEMENTS
from drift.analysis.surfacing import surface_sites


def run_rules(ctx: CheckContext, rules: list[Rule]) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
    findings: dict[str, Finding] = {}
    notes = []
    for r in sorted(rules, key=lambda r: r.answered_ahead):  # stable: the rest keep their order
        try:
            for f in r.check(ctx):
                findings.setdefault(f.key, f)
        except Exception as exc:  # noqa: BLE001 - reported, the other rules still run
            notes.append(f"rule {r.id} failed: {type(exc).__name__}: {exc}")
    kept = list(findings.values())
    for refinement in REFINEMENTS:  # each drops or downgrades some (drift/analysis/refinements.py)
        try:
            kept = refinement.apply(ctx, kept)
        except Exception as exc:  # noqa: BLE001 - reported; the findings stay as the rules made them
            notes.append(f"refinement {refinement.name} failed: {type(exc).__name__}: {exc}")
    kept = surface_sites(ctx, kept)  # one line rule for all: where Python raises (surfacing.py)
    ordered = sorted(kept, key=lambda f: (SEVERITY_ORDER[f.severity], f.consumer_site.path,
                                          f.consumer_site.line, f.rule_id))
    return tuple(ordered), tuple(notes)


def uses_checked(ctx: CheckContext) -> tuple[UseChecked, ...]:
    """Every consumer use drift checked: imports, calls it could resolve, bound functions."""
    out = []
    for mod, imp in ctx.iter_imports():
        out.append(UseChecked(imp["target"], ctx.site(mod, imp["line"]), "import"))
    for rc in ctx.calls:
        out.append(UseChecked(rc.dotted, rc.site, "call"))
    for mod in ctx.usage:
        for bind in mod.get("binds") or []:
            for m, lines in sorted((bind.get("self_calls") or {}).items()):
                out.append(UseChecked(f"{bind['onto']}.{m}", ctx.site(mod, lines[0]), "bind"))
    return tuple(out)
