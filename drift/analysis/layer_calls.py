"""A binding finding on a call of a layer (`layer(x)`, through `nn.Module.__call__`) is risky.

Why: the call is judged against the `forward` of the class the consumer built or annotated
(`context._module_call`), but a vLLM layer is often a dispatcher: a CustomOp hands `forward` on to
a per-platform method, and platform plugins install their own (`FusedMoE.forward_oot = mine`),
with other parameters than the class's `forward` declares. The binding failure is then likely,
not proven: the finding stays, risky, saying so. Calls written as `layer.forward(...)` keep their
severity. A call of a model the target's loader returned (`self.model(...)`,
`self.model.compute_logits(h, None)`), held to the protocol vLLM's models implement
(analysis/model_protocols.py), is risky however it is written: which class the loader builds is
the checkpoint's choice, and a consumer that registers its own models (SGLang 0.3 loaded its own
through vLLM's `get_model`) gets its own `forward`.
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext
from drift.analysis.model_protocols import is_protocol
from drift.findings import Finding, Severity

BINDING_RULES = ("DRIFT010", "DRIFT011", "DRIFT012", "DRIFT013")


def downgrade_layer_calls(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking binding finding on a layer call made risky."""
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}  # (path, symbol) -> the layer calls' lines
    models: set[str] = set()  # symbols that are a model protocol's `forward` (a loaded model's call)
    protocols: dict[str, bool] = {}  # owner class -> whether it is a protocol (asked once per class)
    for rc in ctx.binding_calls:
        owner = rc.target.owner if rc.target is not None else None
        if owner is not None and owner.dotted not in protocols:
            protocols[owner.dotted] = is_protocol(ctx.target, owner)
        protocol = owner is not None and protocols[owner.dotted]
        if rc.through_call or protocol:
            line = rc.rec["line"]
            spans.setdefault((rc.module.get("path"), rc.dotted), []).append(
                (min(line, rc.rec.get("call_line") or line), rc.rec.get("end_line") or line))
            if protocol:
                models.add(rc.dotted)
    if not spans:
        return findings
    out = []
    for f in findings:
        if f.severity is Severity.BREAKING and f.rule_id in BINDING_RULES:
            lines = spans.get((f.consumer_site.path, f.symbol)) or ()
            if any(a <= f.consumer_site.line <= b for a, b in lines):
                why = ("a call of the model the target's loader returned, held to the protocol vLLM's models "
                       "implement: the class is the one the checkpoint names, and a model the consumer registers "
                       "(or one whose own method takes `**kwargs`) may still take it"
                       if f.symbol in models else
                       "a call of the layer object: its class may hand `forward` on to a per-platform "
                       "method (a CustomOp, or one a plugin installs) that takes other arguments")
                f = replace(f, severity=Severity.RISKY, details=(f.details + "; " if f.details else "") + why)
        out.append(f)
    return out
