"""An override that keeps a parameter the target's base gave to a value of another type.

vLLM 0.18's V2 runner calls `self.prepare_inputs(scheduler_output, batch_desc)` where 0.13
passed the int `num_tokens_after_padding`; the base now declares `(scheduler_output, batch_desc:
BatchExecutionDescriptor)`. A plugin's override written as `(scheduler_output,
num_tokens_after_padding: int)` still binds the call (two positionals), so no arity rule fires,
but its body now slices buffers with a descriptor. What says so is the base's own declaration:
the slot the override keeps under the baseline's name was renamed and retyped to a type that
shares nothing with the old one.
"""

from __future__ import annotations

from collections.abc import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import (
    _consumer_classes,
    _lookup_method,
    _module_of,
    _site_failure,
    _sites_of,
)
from drift.analysis.rules.signature import _type_names
from drift.findings import Finding, Fix, Location, RuleKind, Severity

_POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _slots(params, *, bound: bool) -> list:
    """Positional slots after the bound `self`/`cls`."""
    slots = [p for p in params if (p.kind if hasattr(p, "kind") else p[1]) in _POSITIONAL]
    return slots[1:] if bound and slots else slots


def outer_types(annotation: str | None) -> set[str] | None:
    """The outermost type names an annotation admits: `dict[str, Tensor] | None` -> {"dict"}
    (what the value is, not what it holds). None when it admits anything or is absent."""
    inner = _type_names(annotation)
    if inner is None:
        return None
    from drift.analysis.diff.annotations import normalise

    text = (normalise(annotation) or annotation).strip()
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "|" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    heads = {p.strip().split("[", 1)[0].strip().rsplit(".", 1)[-1] for p in parts} - {"None", ""}
    if {"Optional", "Union"} & heads:
        return inner  # written the old way: its members are its arguments
    return heads or None


def retyped_slots(params: list, tm, bm, *, outer: bool = False) -> list:
    """(slot, baseline's parameter, target's parameter) for each positional slot where a method
    taking `params` keeps the baseline's name and the target's declaration renamed and retyped it,
    the two annotations sharing no type (`outer`: no outermost type, so `Tensor` and
    `dict[str, Tensor]` differ): the calls now hand it another kind of value."""
    names = outer_types if outer else _type_names
    own = _slots(params, bound=True)
    now, was = _slots(tm.as_function.params, bound=True), _slots(bm.as_function.params, bound=True)
    old_names = {p.name for p in was}
    out = []
    for i, p in enumerate(own[: min(len(now), len(was))]):
        old, new = was[i], now[i]
        if p[0] != old.name or new.name == old.name or new.name in old_names:
            continue  # the override follows the target, or the slot was only reordered (DRIFT013's)
        wrote, lands = names(old.annotation), names(new.annotation)
        if wrote is None or lands is None or wrote & lands:
            continue
        out.append((i, old, new))
    return out


def _reads_fit(ctx: CheckContext, slot: str) -> bool:
    """Whether the override's body reads the parameter only through members the value the target
    now hands in has (`scheduler_output.total_num_scheduled_tokens` on a `SchedulerOutput` where an
    `ExecuteModelRequest` came): the probe's uses rooted at the slot (`over:` roots), each first
    member found on the target's value. False when the body reads none that way (nothing to go by)."""
    root = "over:" + slot
    uses = [rec["path"] for mod in ctx.usage for rec in [*(mod.get("uses") or ()), *(mod.get("calls") or ())]
            if (rec.get("path") or [None])[0] == root and len(rec["path"]) > 1]
    if not uses:
        return False
    return all(ctx.target_paths.steps(path[:2])[1].kind not in ("missing", "unknown") for path in uses)


@rule("DRIFT081", RuleKind.OVERRIDE_INCOMPATIBLE)
def override_parameter_retyped(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer override whose positional parameter keeps the baseline's name at a slot the
    target's base renamed and retyped, the two annotations sharing no type (`int` then
    `BatchExecutionDescriptor`), for a method the target still calls: the target's calls now
    hand the override a different kind of value under the old name. Only where some call of
    the target's passes that slot by position (by keyword, the old name would not bind at all),
    and the override's body reads the parameter (one it never mentions ignores what it gets) through
    some member the new value lacks (or drift cannot tell).
    """
    if ctx.baseline is None:
        return
    for ref, cls, tb, bb in _consumer_classes(ctx):
        mod = _module_of(ctx, cls)
        for name, m in sorted((cls.get("methods") or {}).items()):
            if name.startswith("__"):
                continue
            tm, bm = _lookup_method(ctx.target, tb, name), _lookup_method(ctx.baseline, bb, name)
            if tm is None or bm is None or "staticmethod" in tm.as_function.decorators:
                continue
            for i, old, new in retyped_slots(m.get("params") or [], tm, bm):
                if old.name in (m.get("unread") or ()):
                    continue  # the body never reads it: another kind of value there changes nothing
                if _reads_fit(ctx, f"{ref}.{name}:{i + 1}:{old.name}"):
                    continue  # every member the body reads on it, the new value has too
                sites = [s for s in _sites_of(ctx.target, name, tm) or [] if s[2] > i and not s[4]]
                if not any(_site_failure("", m.get("params") or [], s) is None for s in sites):
                    break  # no call passes that slot by position and binds (one that fails is DRIFT070's)
                short = ref.rsplit(".", 1)[-1]
                yield Finding(
                    rule_id="DRIFT081", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
                    title=f"`{short}.{name}` takes `{old.name}` ({old.annotation}) where the target's "
                          f"`{tm.dotted.rsplit('.', 2)[-2]}.{name}` now passes `{new.name}: {new.annotation}`",
                    consumer_site=Location(mod.get("path") or "?", m.get("line") or cls.get("line") or 1,
                                           col=(m.get("col") or 0) + 1),
                    target_evidence=(Location(tm.path, tm.line, symbol=tm.dotted),),
                    baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),),
                    predicted_failure=None,
                    details=f"positional argument {i + 1} binds `{old.name}` in the override; the target's "
                            f"calls now pass a `{new.annotation}` there, which the override's body treats "
                            f"as a `{old.annotation}`",
                    fix=Fix(f"take `{new.name}: {new.annotation}` in `{short}.{name}` as the target does",
                            manual_reason="the body must be rewritten for the new value"),
                    symbol=tm.dotted,
                )
                break


RULES = [override_parameter_retyped]
