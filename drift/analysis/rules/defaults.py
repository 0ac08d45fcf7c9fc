"""Defaults that changed under a consumer that relies on them by not passing the argument."""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.findings import Finding, Fix, Location, RuleKind, Severity
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
            yield Finding(
                rule_id="DRIFT050", kind=RuleKind.DEFAULT_CHANGED, severity=Severity.RISKY,
                title=f"`{rc.label}`: default of `{p.name}` changed {b.default} → {p.default}; the call relies on it",
                consumer_site=rc.site,
                target_evidence=(Location(rc.target_params_at.path, p.line, symbol=f"{rc.target_params_at.dotted}.{p.name}",
                                          snippet=f"{p.name} = {p.default}"),),
                baseline_evidence=(Location(rc.baseline_params_at.path, b.line, symbol=f"{rc.baseline_params_at.dotted}.{p.name}",
                                            snippet=f"{p.name} = {b.default}"),),
                predicted_failure=None,
                fix=Fix(f"pass `{p.name}={b.default}` to keep the old behaviour, or adopt the new one",
                        manual_reason="which behaviour the consumer wants is a decision"),
                symbol=f"{rc.dotted}.{p.name}",
            )
