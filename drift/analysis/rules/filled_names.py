"""A name the consumer reads off its own object after a target function filled it, which the
target's function no longer stores (DRIFT147).

Serving add-ons build a `State`, hand it to vLLM's `init_app_state(engine_client, state, args)`
and then read what vLLM put there: `state.openai_serving_chat`, or
`getattr(state, "openai_serving_tokenization", None)` (Ray). vLLM 0.25 stores
`state.serving_tokenization` instead; the read fails, or finds its default and the feature is
silently off. No signature, import or class changed for the consumer. The probe records the
reads after each such hand-over (probes/handed_bags.py); the target's facts record what each
function stores on each parameter, one hop into the helpers it hands that parameter to
(probes/param_sets.py, facts +ps).
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol

_POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _param_name(fn: Symbol, position: int | None, keyword: str | None) -> str | None:
    if keyword is not None:
        return keyword if any(p.name == keyword for p in fn.as_function.params) else None
    slots = [p for p in fn.as_function.params if p.kind in _POSITIONAL]
    return slots[position].name if position is not None and position < len(slots) else None


def stored_on(index: PackageIndex, fn: Symbol, param: str, hops: int = 1) -> dict[str, list] | None:
    """{attr: [line, built class]} the function (and, `hops` deep, the helpers it hands the
    parameter to by position) stores on `param`; None when the function stores nothing on it
    (the target's function is then no filler of that parameter)."""
    beh = fn.as_function.behaviour
    out = dict((beh.param_sets or {}).get(param) or {})
    if not out:
        return None
    for name, position in (beh.param_hands or {}).get(param) or ():
        if hops <= 0:
            break
        helper = index.resolve_in(fn.module, name)
        if helper is None or helper.kind != "function":
            continue
        inner = _param_name(helper, position, None)
        more = stored_on(index, helper, inner, hops - 1) if inner else None
        for attr, row in (more or {}).items():
            out.setdefault(attr, row)
    return out


def _filler(index: PackageIndex | None, dotted: str) -> Symbol | None:
    sym = index.lookup(dotted) if index is not None else None
    return sym if sym is not None and sym.kind == "function" else None


@rule("DRIFT147", RuleKind.ATTRIBUTE_MISSING)
def filled_name_gone(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer hands an object of its own to a target function that stores attributes on
    that parameter (`init_app_state(engine_client, state, args)`), then reads one of them
    (`state.openai_serving_tokenization`, or through `getattr(state, "...", None)`): the
    baseline's function stored it, the target's no longer does. A plain read raises
    AttributeError (breaking); a `getattr` with a default silently gets the default (risky).
    A name the target stores instead, built from the same class, is named as the rename."""
    if ctx.baseline is None:
        return
    for mod in ctx.usage:
        for rec in mod.get("handed_bags") or ():
            tfn, bfn = _filler(ctx.target, rec["callee"]), _filler(ctx.baseline, rec["callee"])
            if tfn is None or bfn is None:
                continue
            tparam = _param_name(tfn, rec.get("position"), rec.get("keyword"))
            bparam = _param_name(bfn, rec.get("position"), rec.get("keyword"))
            if not tparam or not bparam:
                continue
            before = stored_on(ctx.baseline, bfn, bparam)
            after = stored_on(ctx.target, tfn, tparam)
            if before is None or after is None:
                continue  # a side that fills nothing there: the object is not the target's to fill
            seen: set[str] = set()
            for attr, line, col, how in rec.get("reads") or ():
                if attr in seen or attr not in before or attr in after:
                    continue
                seen.add(attr)
                built = before[attr][1] if len(before[attr]) > 1 else ""
                new = sorted(a for a, row in after.items() if a not in before and built and len(row) > 1
                             and row[1] == built)
                label = rec["callee"].rsplit(".", 1)[-1]
                silent = how == "getattr_default"
                yield Finding(
                    rule_id="DRIFT147", kind=RuleKind.ATTRIBUTE_MISSING,
                    severity=Severity.RISKY if silent or ctx.dead_on_baseline(mod) else Severity.BREAKING,
                    title=f"`{label}` no longer stores `{attr}` on the `{tparam}` it is handed"
                          + (f"; it stores `{new[0]}` (a `{built}`)" if len(new) == 1 else ""),
                    consumer_site=Location(mod["path"], line, col=col + 1, symbol=attr),
                    target_evidence=(Location(tfn.path, tfn.line, symbol=tfn.dotted),),
                    baseline_evidence=(Location(bfn.path, before[attr][0], symbol=f"{bfn.dotted}.{bparam}.{attr}"),),
                    predicted_failure=(f"no error: `getattr` finds no `{attr}` and returns its default" if silent
                                       else f"AttributeError: object has no attribute '{attr}'"),
                    details=f"the object is handed to `{rec['callee']}` at line {rec['line']}",
                    fix=Fix(f"read `{new[0]}` instead of `{attr}`" if len(new) == 1 else f"stop reading `{attr}`",
                            manual_reason="check the name the target stores means the same"),
                    symbol=f"{rec['callee']}.{tparam}.{attr}",
                )


RULES = [filled_name_gone]
