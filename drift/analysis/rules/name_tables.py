"""A name the target's function now refuses because its table no longer holds it.

Why: some functions take a name and look it up in a table of their module, raising for one it
lacks (`envs.is_set(name)`: `if name in environment_variables: return ...; raise
AttributeError`). The signature is the same on both sides, so no signature rule sees it; the
break is in the table's keys. The probe records such functions and their tables
(probes/name_tables.py); the consumer's call passes the name as a string literal (positionally,
`name_arg`, or by keyword). Where the baseline's table held the name and the target's does not,
the call now raises.
"""

from __future__ import annotations

import ast
from typing import Any, Iterator

from drift.analysis.context import CheckContext, ResolvedCall
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ModuleFacts


def _check(index, sym) -> tuple[dict[str, Any], list[str]] | None:
    """The name check of function `sym` and the keys of its table, on one side."""
    if sym is None or sym.kind != "function" or index is None:
        return None
    raw = index.modules.get(sym.module)
    if raw is None:
        return None
    mod = ModuleFacts(raw)
    check = (mod.name_checks or {}).get(sym.dotted.rsplit(".", 1)[-1])
    if not isinstance(check, dict):
        return None
    keys = (mod.name_tables or {}).get(check.get("table"))
    return (check, list(keys)) if isinstance(keys, list) else None


def _passed_name(rc: ResolvedCall, check: dict[str, Any]) -> str | None:
    """The string literal the call passes for the checked parameter, if it writes one."""
    if check.get("index") == 0 and rc.rec.get("positional", 0) >= 1:
        return rc.rec.get("name_arg")
    text = (rc.rec.get("kw_values") or {}).get(check.get("param"))
    try:
        value = ast.literal_eval(text) if text else None
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


@rule("DRIFT130", RuleKind.VALUE_REJECTED)
def name_dropped_from_table(ctx: CheckContext) -> Iterator[Finding]:
    """A string literal passed to a target function that raises for a name its module's table
    lacks (`envs.is_set("VLLM_X")`), where the baseline's table held the name and the target's
    does not: the call now raises."""
    if ctx.baseline is None:
        return
    for rc in ctx.calls:
        now = _check(ctx.target, rc.target)
        before = _check(ctx.baseline, rc.baseline)
        if now is None or before is None:
            continue
        check, keys = now
        name = _passed_name(rc, check)
        if name is None or name in keys or name not in before[1]:
            continue
        table = check.get("table")
        yield Finding(
            rule_id="DRIFT130", kind=RuleKind.VALUE_REJECTED, severity=Severity.BREAKING,
            title=f"`{rc.label}(\"{name}\")`: the target's `{table}` no longer holds `{name}`, and "
                  f"`{rc.label}` raises for a name it lacks",
            consumer_site=rc.site,
            target_evidence=(Location(rc.target.path, check.get("raise_line") or rc.target.line, symbol=rc.target.dotted),),
            baseline_evidence=(Location(rc.baseline.path, before[0].get("line") or rc.baseline.line,
                                        symbol=f"{rc.baseline.module}.{table}"),),
            predicted_failure=f"{check.get('raises') or 'an exception'} raised by {rc.label}('{name}'): "
                              f"'{name}' is not in {table}",
            details=f"`{rc.label}` checks `{check.get('param')}` against `{table}` and raises otherwise",
            fix=Fix(f"drop the use of `{name}` or guard it for the release that still has it",
                    manual_reason="what replaced the name is the target's choice"),
            symbol=f"{rc.target.module}.{table}.{name}",
        )


RULES = [name_dropped_from_table]
