"""DRIFT122: a Namespace the consumer builds by hand, handed to a target function that now reads a
field the Namespace never set.

A service that starts vLLM's server or engine without its argument parser writes
`args = argparse.Namespace(model=..., port=...)` and hands it to vLLM (`run_server(args)`). vLLM's
function reads `args.X` for every option it knows; the day the target's body reads one more
option the consumer's Namespace lacks, the call raises AttributeError inside vLLM, though no
signature changed. Read from the probe's record of each hand-built Namespace
(probes/built_namespaces.py: the fields set, where it is handed) and what each release's body
reads on the parameter it binds to (`param_reads`). Only a read the baseline's body did not make
counts (one it made was failing already, or guarded), and a Namespace handed to another call
first (which may fill it) is left alone.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext, ResolvedCall
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity


def _bound_param(rc: ResolvedCall, params: list | None, local: str) -> Any:
    """The parameter of `params` the local binds to in this call (by position or keyword)."""
    if not params:
        return None
    names = rc.rec.get("arg_names") or []
    if local in names:
        i = names.index(local)
        positional = [p for p in params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        return positional[i] if i < len(positional) else None
    for kw, src in (rc.rec.get("kw_values") or {}).items():
        if src == local:
            return next((p for p in params if p.name == kw), None)
    return None


def _reads(params_at: Any, param: Any) -> dict[str, int] | None:
    if params_at is None or params_at.kind not in ("function", "method"):
        return None
    return dict(params_at.as_function.behaviour.param_reads.get(param.name) or {})


@rule("DRIFT122", RuleKind.FIELD_UNSET)
def namespace_lacks_field(ctx: CheckContext) -> Iterator[Finding]:
    """A hand-built `Namespace(...)` handed to a target function whose target body reads, on that
    parameter, a field the Namespace does not set and the baseline's body did not read:
    AttributeError inside the target's function."""
    if ctx.baseline is None:
        return
    for rc in ctx.calls:
        built = (rc.module.get("built_namespaces") or {}).get(rc.rec.get("function") or "")
        if not built or rc.target is None or rc.baseline is None:
            continue
        for local, ns in built.items():
            if ns["line"] > rc.rec["line"] or any(ns["line"] < h < rc.rec["line"] for h in ns.get("handed") or ()):
                continue  # built after this call, or handed to another call first (which may fill it)
            tparam = _bound_param(rc, rc.target_params, local)
            bparam = _bound_param(rc, rc.baseline_params, local)
            if tparam is None or bparam is None or tparam.name != bparam.name:
                continue
            tfn = rc.target_params_at or rc.target
            bfn = rc.baseline_params_at or rc.baseline
            now, before = _reads(tfn, tparam), _reads(bfn, bparam)
            if not now or before is None:
                continue
            have = set(ns["fields"])
            missing = {a: line for a, line in now.items() if a not in have and a not in before and not a.startswith("_")}
            if not missing:
                continue
            names = sorted(missing, key=lambda a: (missing[a], a))
            listed = ", ".join(f"`{n}`" for n in names)
            yield Finding(
                rule_id="DRIFT122", kind=RuleKind.FIELD_UNSET, severity=Severity.BREAKING,
                title=f"the Namespace `{local}` handed to `{rc.label}` as `{tparam.name}` lacks {listed}, which "
                      f"the target now reads on it",
                consumer_site=rc.site,
                target_evidence=tuple(Location(tfn.path, missing[n], symbol=f"{tfn.dotted}.{tparam.name}.{n}")
                                      for n in names),
                baseline_evidence=(Location(bfn.path, bfn.line, symbol=bfn.dotted),),
                predicted_failure=f"AttributeError: 'Namespace' object has no attribute '{names[0]}'",
                details=f"`{local}` is built at line {ns['line']} with {len(have)} field(s)",
                fix=Fix(f"set {listed} on `{local}` (the values vLLM's own parser gives them)",
                        manual_reason="the value each option needs is the consumer's choice"),
                symbol=f"{tfn.dotted}.{tparam.name}.{names[0]}",
            )


RULES = [namespace_lacks_field]
