"""Defaults that changed under a consumer that relies on them by not passing the argument."""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import FunctionFacts
from drift.analysis.rules.base import rule

# Literal defaults whose change flips behaviour (feature switches), as opposed to tuning values.
SWITCH_VALUES = {"None", "True", "False"}


@rule("DRIFT050", RuleKind.DEFAULT_CHANGED, Severity.RISKY)
def default_changed(ctx: CheckContext) -> Iterator[Finding]:
    """A constructor/function the consumer calls without passing `p`, whose default flipped
    between switch values (None/True/False): the consumer silently gets the new behaviour.
    """
    if ctx.baseline is None:
        return
    relied: dict[tuple[str, str], tuple[Finding, str, str, str]] = {}  # (file, field) -> (finding, old, new, kept)
    for found, name, old, new, kept in _relied_defaults(ctx):
        relied.setdefault((found.consumer_site.path, name), (found, old, new, kept))
        yield found
    yield from _where_it_acts(ctx, relied)


def _relied_defaults(ctx: CheckContext) -> Iterator[tuple[Finding, str, str, str, str]]:
    """The calls that leave a flipped switch at its default: (finding, parameter, old, new, the
    value that keeps the old behaviour)."""
    for rc in ctx.calls:
        if not rc.target_params or not rc.baseline_params or rc.rec["star_kwargs"]:
            continue
        base = {p.name: p for p in rc.baseline_params}
        slots = [p.name for p in rc.target_params][: rc.rec["positional"]]
        passed = set(rc.rec["keywords"]) | set(slots)
        for p in rc.target_params:
            b = base.get(p.name)
            if p.name in passed or b is None or p.required or b.required:
                continue
            if p.default == b.default or p.default not in SWITCH_VALUES or b.default not in SWITCH_VALUES:
                continue
            kept, why = old_value(b.default, p.annotation)
            yield Finding(
                rule_id="DRIFT050", kind=RuleKind.DEFAULT_CHANGED, severity=Severity.RISKY,
                title=f"`{rc.label}`: default of `{p.name}` changed {b.default} → {p.default}; the call relies on it",
                consumer_site=rc.site,
                target_evidence=(Location(rc.target_params_at.path, p.line, symbol=f"{rc.target_params_at.dotted}.{p.name}",
                                          snippet=f"{p.name} = {p.default}"),),
                baseline_evidence=(Location(rc.baseline_params_at.path, b.line, symbol=f"{rc.baseline_params_at.dotted}.{p.name}",
                                            snippet=f"{p.name} = {b.default}"),),
                predicted_failure=None,
                fix=Fix(f"pass `{p.name}={kept}` to keep the old behaviour{why}, or adopt the new one",
                        manual_reason="which behaviour the consumer wants is a decision"),
                symbol=f"{rc.dotted}.{p.name}",
            ), p.name, b.default, p.default, kept


def old_value(old: str, annotation: str | None) -> tuple[str, str]:
    """The value that keeps the old default's behaviour where the target still accepts it, and
    why it differs from the old default's text. A `None` switch the target now annotates as a
    plain `bool` (a validated config field rejects None) is written `False`: None was off under
    every truth test, and it is the one `bool` a truth test reads the same way."""
    if old == "None" and annotation is not None and annotation.replace(" ", "") == "bool":
        return "False", f" (the target's `{annotation}` no longer takes None, which a truth test read as off)"
    return old, ""


def _where_it_acts(ctx: CheckContext, relied: dict[tuple[str, str], tuple[Finding, str, str, str]]) -> Iterator[Finding]:
    """The consumer's calls of target methods that branch on a setting whose default the same
    file relies on: the place the new default changes what runs, not only where it was chosen.

    Evidence is the target's own branch test on `self.<held>.<field>` in the method (or in a
    method it calls on self), read by the probe (`held_tests`, facts +ht). Example: a loop that
    calls `scheduler.schedule()` and finishes each request after one step behaves differently
    once `enable_chunked_prefill` defaults to True, since a long prompt is then split across steps.
    """
    if not relied:
        return
    fields = {f for _, f in relied}
    seen: set[tuple[str, int, str]] = set()
    for rc in ctx.calls:
        if rc.is_constructor or rc.target is None or rc.target.kind != "method":
            continue
        for held, line in _branch_reads(rc.target, fields):
            field_name = held.rsplit(".", 1)[-1]
            key = (rc.site.path, rc.site.line, field_name)
            if (rc.site.path, field_name) not in relied or key in seen:
                continue
            seen.add(key)
            origin, old, new, kept = relied[(rc.site.path, field_name)]
            yield Finding(
                rule_id="DRIFT050", kind=RuleKind.DEFAULT_CHANGED, severity=Severity.RISKY,
                # no line in the title: it is the finding's identity when a patch re-check
                # compares findings, and an edit above the call moves the line
                title=f"`{rc.label}()` branches on `{held}`, whose default a call in this file relies on ({old} → {new})",
                consumer_site=rc.site,
                target_evidence=(Location(rc.target.path, line, symbol=f"{rc.target.dotted}",
                                          snippet=f"self.{held}"), *origin.target_evidence),
                baseline_evidence=origin.baseline_evidence,
                predicted_failure=None,
                details=(f"`{rc.label}` tests `self.{held}` (target line {line}); the call at line "
                         f"{origin.consumer_site.line} leaves it at the new default, so it takes the other branch "
                         f"here, where the consumer's code uses its result"),
                fix=Fix(f"pass `{field_name}={kept}` at line {origin.consumer_site.line} to keep the old behaviour here, "
                        f"or check this code under the new one",
                        manual_reason="which behaviour the consumer wants is a decision"),
                symbol=f"{rc.dotted}:{held}",
            )


def _branch_reads(method, fields: set[str]) -> list[tuple[str, int]]:
    """`(held.field, line)` the method's branch tests read, itself and one level of the
    methods it calls on self (the switch often sits in a helper `schedule()` calls)."""
    out: list[tuple[str, int]] = []
    behaviour = method.as_function.behaviour
    todo = [behaviour]
    owner = method.owner
    if owner is not None:
        methods = owner.facts.get("methods") or {}
        for name in behaviour.self_calls:
            callee = methods.get(name)
            if callee:
                todo.append(FunctionFacts(callee).behaviour)
    for b in todo:
        for held, lines in b.held_tests.items():
            if held.rsplit(".", 1)[-1] in fields and lines:
                out.append((held, lines[0] if b is behaviour else method.line))
    return out
