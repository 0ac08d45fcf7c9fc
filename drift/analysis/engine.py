"""Run rules over a context; one broken rule is a note, never a crash."""

from __future__ import annotations

from drift.analysis.context import CheckContext
from drift.findings import SEVERITY_ORDER, Finding, UseChecked
from drift.analysis.rules.base import Rule
from drift.analysis.caught import downgrade_caught
from drift.analysis.chosen_callees import downgrade_chosen_callees
from drift.analysis.consumer_set import downgrade_consumer_set
from drift.analysis.orphaned import downgrade_orphaned
from drift.analysis.signature_tests import drop_dead_signature_sides
from drift.analysis.subsumed import drop_subsumed
from drift.analysis.swapped_imports import downgrade_swapped_imports
from drift.analysis.unloaded import downgrade_unloaded


def run_rules(ctx: CheckContext, rules: list[Rule]) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
    findings: dict[str, Finding] = {}
    notes = []
    for r in sorted(rules, key=lambda r: r.answered_ahead):  # stable: the rest keep their order
        try:
            for f in r.check(ctx):
                findings.setdefault(f.key, f)
        except Exception as exc:  # noqa: BLE001 - reported, the other rules still run
            notes.append(f"rule {r.id} failed: {type(exc).__name__}: {exc}")
    live = drop_dead_signature_sides(ctx, list(findings.values()))  # `else` of `"p" in signature(C)`
    live = drop_subsumed(live)  # a general rule's finding a specific one at the same line says more of
    kept = downgrade_unloaded(ctx, live)  # a module that never loads on the target: risky
    kept = downgrade_caught(ctx, kept)  # a handler that names the error swallows it: risky
    kept = downgrade_swapped_imports(ctx, kept)  # the consumer's import hook answers the import: risky
    kept = downgrade_orphaned(ctx, kept)  # a gone method's use in an override nothing calls any more: risky
    kept = downgrade_consumer_set(ctx, kept)  # a gone attribute the consumer sets itself on that object: risky
    kept = downgrade_chosen_callees(ctx, kept)  # a callee a helper may choose among the consumer's own: risky
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
