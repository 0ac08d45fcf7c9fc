"""An object the consumer builds and hands to a target callable that now reads a field it never sets.

A class has a field with a default (`has_structured_output_requests: bool = False`) that the
target's own producers set (`output.has_x |= ...` where the target builds the object), and the
target makes a callable branch on it where the baseline's did not (`if not output.has_x: return None`). A consumer that builds that
object itself (an override of the producer that constructs its own `SchedulerOutput`) and hands it
to the callable never sets the field: the callable always sees the default and silently does
nothing. No call fails to bind; the constructor accepts the missing keyword.

Read from facts and the consumer's usage: the call's positional argument is a local
(`arg_names`, probes/reach.py) that a construction of a target class earlier in the same function
was assigned to (the call record's `result.var`); the target's callable dereferences that
parameter's attribute first (`param_derefs`, probes/derefs.py) and the baseline's did not; the
attribute is a field of the class with a default (new or not: what changed is that the callable
now depends on it); the construction does not pass it and the consumer's module never names it; the target's own code
assigns it somewhere (so the default is not what the target's producers leave there). Risky: the
default may be right for this consumer.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from drift.analysis.context import CheckContext, ResolvedCall, site_of
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Needle, PackageIndex, Symbol


def _assigned_in_target(index: PackageIndex, name: str) -> bool:
    """Whether the target's text assigns `<x>.name` (`=`, `|=`, `+=`, ...) anywhere; False without
    sources (a host's reply): then nothing is claimed."""
    if not index.has_sources:
        return False
    pattern = re.compile(rb"\.%s\s*(?:[-+*/|&^]|//|<<|>>)?=(?!=)" % re.escape(name.encode()))
    return bool(index.memo("field-assigned", name, lambda: index.source_search(Needle(name.encode(), pattern))))


def _constructions(ctx: CheckContext) -> dict[tuple[str, str, str], list[ResolvedCall]]:
    """(module path, function, local) -> constructions of target classes assigned to that local."""
    out: dict[tuple[str, str, str], list[ResolvedCall]] = {}
    for rc in ctx.calls:
        var = (rc.rec.get("result") or {}).get("var")
        if rc.is_constructor and var and rc.target is not None and rc.baseline is not None:
            out.setdefault((rc.module.get("path") or "", rc.rec.get("function") or "", var), []).append(rc)
    return out


def _names_in_module(mod: dict[str, Any], name: str) -> bool:
    """Whether the consumer's module reads, writes or passes `name` by that name anywhere it records."""
    step = "." + name
    for rec in mod.get("uses") or []:
        if step in (rec.get("path") or ()):
            return True
    return any(name in (rec.get("keywords") or ()) or step in ((rec.get("callee") or {}).get("path") or ())
               for rec in mod.get("calls") or [])


@rule("DRIFT088", RuleKind.FIELD_UNSET, Severity.RISKY)
def unset_field_read(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer passes an object it built from a target class (a local assigned the construction
    earlier in the same function) to a target callable whose target version first reads an
    attribute of that parameter the baseline's did not: a field of the class with a default, which
    the construction does not pass, the consumer's module never names, and the target's own
    code assigns. The callable sees only the default."""
    if ctx.baseline is None:
        return
    built = _constructions(ctx)
    if not built:
        return
    for rc in ctx.calls:
        names = rc.rec.get("arg_names")
        if not names or rc.is_constructor or rc.target is None or rc.baseline is None \
                or rc.target_params is None or rc.baseline_params is None:
            continue
        for i, var in enumerate(names):
            if not var:
                continue
            ctors = [c for c in built.get((rc.module.get("path") or "", rc.rec.get("function") or "", var), ())
                     if c.rec["line"] < rc.rec["line"]]
            if len(ctors) != 1:
                continue
            found = _unset(ctx, rc, i, ctors[0])
            if found is not None:
                yield found


def _positional(params: list, i: int):
    pos = [p for p in params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    return pos[i] if i < len(pos) else None


def _first_attr(sym: Symbol, param: str) -> tuple[str, int] | None:
    if sym.kind not in ("method", "function"):
        return None
    deref = sym.as_function.behaviour.param_derefs.get(param)
    if not deref or len(deref) < 4 or deref[2] != "attr":
        return None
    return str(deref[3]), int(deref[0])


def _unset(ctx: CheckContext, rc: ResolvedCall, i: int, ctor: ResolvedCall) -> Finding | None:
    tp, bp = _positional(rc.target_params or [], i), _positional(rc.baseline_params or [], i)
    if tp is None or bp is None or tp.name != bp.name:
        return None
    now = _first_attr(rc.target, tp.name)
    if now is None:
        return None
    field, read_line = now
    before = _first_attr(rc.baseline, bp.name)
    if before is not None and before[0] == field:
        return None
    tfield = next((p for p in ctor.target_params or [] if p.name == field), None)
    if tfield is None or tfield.required:
        return None
    if field in (ctor.rec.get("keywords") or ()) or ctor.rec.get("star_kwargs") or ctor.rec.get("star_args"):
        return None
    if _names_in_module(rc.module, field) or not _assigned_in_target(ctx.target, field):
        return None
    cls = ctor.label
    callee = rc.target.dotted.rsplit(".", 2)
    callee_label = ".".join(callee[-2:]) if rc.target.kind == "method" else callee[-1]
    at = ctor.target_params_at or ctor.target
    return Finding(
        rule_id="DRIFT088", kind=RuleKind.FIELD_UNSET, severity=Severity.RISKY,
        title=f"`{callee_label}` now reads `{tp.name}.{field}` first, a field of `{cls}` with a default "
              f"(`{tfield.default}`); the `{cls}` built at line {ctor.rec['line']} never sets it",
        consumer_site=site_of(rc.module, rc.rec),
        target_evidence=(Location(rc.target.path, read_line, symbol=rc.target.dotted),
                         Location(at.path, tfield.line or at.line, symbol=f"{at.dotted}.{field}")),
        baseline_evidence=(),
        predicted_failure=f"no exception: `{callee_label}` always sees `{field}={tfield.default}`",
        fix=Fix(f"set `{var_of(ctor)}.{field}` as the target's own code does before this call",
                manual_reason="the value depends on what the consumer's code scheduled or built"),
        symbol=f"{at.dotted}.{field}",
        details=f"the target's own code assigns `.{field}`; the baseline's `{callee_label}` did not read it",
    )


def var_of(rc: ResolvedCall) -> str:
    return (rc.rec.get("result") or {}).get("var") or "the object"


RULES = [unset_field_read]
