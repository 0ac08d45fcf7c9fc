"""A key an override reads out of its `**kwargs` for a parameter the target renamed or removed (DRIFT146).

vllm-ascend 0.7.1 subclassed `GroupCoordinator` with `def __init__(self, *args, **kwargs)` and
read `kwargs.get("use_tpu_communicator", False)`. vLLM 0.7.3 renamed that parameter to
`use_device_communicator`; its callers pass the new name, so the key never arrives, the default
wins and the device communicator is silently never set up. Nothing raises: neither a signature
nor an import changed for the consumer. The probe records the string keys each method of a
subclass reads from its own `**kwargs` (probes/kwarg_keys.py); the overridden method's parameters
on both sides say which of them the target no longer passes.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _lookup_method, _module_of
from drift.analysis.rules.renamed_slots import _renamed_in_place
from drift.findings import Finding, Fix, Location, RuleKind, Severity


def _passed_by_consumer(ctx: CheckContext) -> set[str]:
    """Every keyword some consumer call passes by name: a key the consumer hands itself still arrives."""
    out = ctx.memo.get("kwarg_keys.passed")
    if out is None:
        out = ctx.memo["kwarg_keys.passed"] = {k for mod in ctx.usage for rec in mod.get("calls") or ()
                                                for k in rec.get("keywords") or ()}
    return out


def _successor(tparams: list, bparams: list, key: str) -> str | None:
    """The target's parameter at the slot the baseline's `key` had, where that slot was renamed
    in place (renamed_slots' test: as many positional slots, the old name gone, the new one new)."""
    slots = [p.name for p in bparams if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    pair = _renamed_in_place(tparams, bparams, slots.index(key)) if key in slots else None
    return pair[0].name if pair is not None else None


@rule("DRIFT146", RuleKind.OVERRIDE_INCOMPATIBLE)
def kwarg_key_gone(ctx: CheckContext) -> Iterator[Finding]:
    """An override of a target method that takes `**kwargs` and reads one key by name
    (`kwargs.get("use_tpu_communicator")`, `kwargs["x"]`, `"x" in kwargs`) where the overridden
    method took a parameter of that name in the baseline and the target's takes none (nor
    `**kwargs` of its own): the target's callers no longer pass it, so a `.get` silently falls
    back to its default and a `kwargs["x"]` raises KeyError. Not reported where the consumer's
    own calls pass that keyword (the key still arrives from them)."""
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    passed = None
    for ref, cls in ctx.consumer.classes.items():
        methods = cls.get("methods") or {}
        if not any(m.get("kwarg_keys") for m in methods.values()):
            continue
        tbases, bbases = ctx.target_paths.target_bases(ref), ctx.baseline_paths.target_bases(ref)
        for name, m in methods.items():
            keys = m.get("kwarg_keys")
            if not keys:
                continue
            tm, bm = _lookup_method(ctx.target, tbases, name), _lookup_method(ctx.baseline, bbases, name)
            if tm is None or bm is None:
                continue
            tparams, bparams = list(tm.as_function.params), list(bm.as_function.params)
            if any(p.kind == "VAR_KEYWORD" for p in tparams):
                continue
            tnames, bnames = {p.name for p in tparams}, {p.name for p in bparams}
            mod = _module_of(ctx, cls)
            seen: set[str] = set()
            for key, line, col, how in keys:
                if key in seen or key not in bnames or key in tnames:
                    continue
                passed = _passed_by_consumer(ctx) if passed is None else passed
                if key in passed:
                    continue
                seen.add(key)
                new = _successor(tparams, bparams, key)
                label = f"{ref.rsplit('.', 1)[-1]}.{name}"
                yield Finding(
                    rule_id="DRIFT146", kind=RuleKind.OVERRIDE_INCOMPATIBLE,
                    severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
                    title=f"`{label}` reads `{key}` from its `**kwargs`, which the target's `{tm.dotted}` no longer "
                          f"takes" + (f" (`{new}` is new in its place)" if new else ""),
                    consumer_site=Location(mod.get("path") or "?", line, symbol=ref, col=col + 1),
                    target_evidence=(Location(tm.path, tm.line, symbol=tm.dotted),),
                    baseline_evidence=(Location(bm.path, bm.line, symbol=f"{bm.dotted}.{key}"),),
                    predicted_failure=("KeyError: " + repr(key)) if how == "item" else
                    f"no error: the target's callers pass no `{key}`, so the override always sees its default",
                    fix=Fix(f"read `{new}` instead of `{key}`" if new else f"stop reading `{key}`",
                            manual_reason="the key is a string the consumer chose; check the target's parameter"),
                    symbol=f"{tm.dotted}.{key}",
                )


RULES = [kwarg_key_gone]
