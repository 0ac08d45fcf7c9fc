"""DRIFT120: a custom op the consumer reaches by name, `torch.ops.<ns>.<op>`, that the target no
longer registers, or whose schema no longer takes the consumer's call.

vLLM registers functions as torch custom ops (`direct_register_custom_op`, `@custom_op`) and
plugins call them through the op registry without importing them (probes/torch_ops.py records
each `torch.ops.<ns>.<op>` written). The op's schema is inferred from the registered function's
signature, so the target's function is the contract (drift/analysis/custom_ops.py). Op schemas
are stricter than Python calls: every parameter without a default is required, so a parameter
inserted before the last one always breaks a call that filled the old list positionally.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.custom_ops import GONE, Registered, binding_error, registration
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity


def _kind(error: str) -> RuleKind:
    if error.startswith("takes"):
        return RuleKind.POSITIONAL_ARITY
    if error.startswith("got an unexpected keyword"):
        return RuleKind.KEYWORD_REMOVED
    return RuleKind.REQUIRED_ADDED


@rule("DRIFT120", RuleKind.ATTRIBUTE_MISSING)
def custom_op_changed(ctx: CheckContext) -> Iterator[Finding]:
    """`torch.ops.<ns>.<op>` whose op the baseline registered from a Python function and the
    target registers nowhere (breaking: the op namespace raises AttributeError), or whose
    target function no longer takes the call the baseline's took (breaking: the op's schema
    check raises). An op the release's text registers in a way drift cannot read is left alone, and
    so is an op of a name the consumer registers itself (the call may be to its own op)."""
    if ctx.baseline is None:
        return
    own = {op for mod in ctx.usage for op in mod.get("op_defs") or ()}  # ops the consumer registers itself
    for mod in ctx.usage:
        dead = ctx.dead_on_baseline(mod)
        for use in mod.get("op_calls") or ():
            ns, op = use.get("ns") or "", use.get("op") or ""
            if op in own:
                continue  # the consumer's own op of that name (or a clash it has on the baseline too)
            before = registration(ctx.baseline, ns, op)
            if not isinstance(before, Registered):
                continue
            now = registration(ctx.target, ns, op)
            col = use.get("col")
            site = Location(mod["path"], use["line"], col=col + 1 if isinstance(col, int) else None)
            severity = Severity.RISKY if dead else Severity.BREAKING
            if now == GONE:
                yield Finding(
                    rule_id="DRIFT120", kind=RuleKind.ATTRIBUTE_MISSING, severity=severity,
                    title=f"`torch.ops.{ns}.{op}`: the target no longer registers the custom op `{ns}::{op}`",
                    consumer_site=site,
                    baseline_evidence=(ctx.evidence(before.function),),
                    predicted_failure=f"AttributeError: '_OpNamespace' '{ns}' object has no attribute '{op}'",
                    details=f"the baseline registered `{before.function.dotted}` under that name",
                    fix=Fix(f"stop calling `torch.ops.{ns}.{op}`",
                            manual_reason="the op is gone; what replaced it is a design choice"),
                    symbol=f"torch.ops.{ns}.{op}",
                )
                continue
            if not isinstance(now, Registered) or not use.get("called"):
                continue
            error = binding_error(now.function, use)
            if error is None or binding_error(before.function, use) is not None:
                continue  # binds on the target, or never bound on the baseline either: not drift
            params = ", ".join(p.name for p in now.function.as_function.params)
            yield Finding(
                rule_id="DRIFT120", kind=_kind(error), severity=severity,
                title=f"`torch.ops.{ns}.{op}(...)` no longer fits the op's schema: {error}",
                consumer_site=site,
                target_evidence=(ctx.evidence(now.function),),
                baseline_evidence=(ctx.evidence(before.function),),
                predicted_failure=f"RuntimeError: {ns}::{op}() {error}",
                details=f"the target registers `{now.function.dotted}({params})` as `{ns}::{op}`",
                fix=Fix(f"pass what `{ns}::{op}({params})` takes",
                        manual_reason="the new parameters' values are the caller's to choose"),
                symbol=f"torch.ops.{ns}.{op}",
            )


RULES = [custom_op_changed]
