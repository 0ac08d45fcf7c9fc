"""A duck-typed object the consumer hands a target callable that now reads an attribute it lacks.

A plugin drives a vLLM object with a small class of its own that stands in for the vLLM class the
parameter is annotated with, without extending it (an adapter that has the few `Request`
attributes `KVCacheManager.allocate_slots` reads). The stand-in works for as long as the target's
body reads only what it has; when the target's body starts reading another attribute on that
parameter (`request.num_in_flight_tokens`), the call raises AttributeError inside vLLM, though the
signature did not change and nothing in the consumer names the attribute.

Read from the solved consumer model and the facts: the consumer objects a target call is handed
(`Solution.registered`, the entries with "instance": the fixpoint types the argument, through
locals, parameters' annotations and attributes), the target callable and the parameter the argument
binds on each side (`slots.handed_param`), and what each side's body reads on that parameter
(`param_reads`, probes/param_reads.py). An attribute the target reads that the baseline's body did
not, which the consumer's class does not have (its own and its consumer bases' methods, properties,
class attributes and the `self.x` any of its methods sets; a class with `__getattr__` has
everything), is reported at the consumer's call. A class that extends a target class is no stand-in:
what it inherits is the other rules' question.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import plural, rule
from drift.analysis.rules.handed import _available
from drift.analysis.rules.slots import handed_param
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Symbol


def _reads(fn: Symbol, param: Any) -> dict[str, int]:
    return dict(fn.as_function.behaviour.param_reads.get(param.name) or {})


def _label(fn: Symbol) -> str:
    parts = fn.dotted.rsplit(".", 2)
    return ".".join(parts[-2:]) if fn.kind == "method" else parts[-1]


@rule("DRIFT116", RuleKind.INTERFACE_METHOD_MISSING)
def stand_in_lacks_read(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer object whose class extends no target class is handed to a target callable whose
    target body reads an attribute on that parameter that the baseline's body did not read and
    the class does not have: AttributeError inside the target's callable."""
    tpaths, bpaths = ctx.target_paths, ctx.baseline_paths
    if ctx.baseline is None or tpaths is None or bpaths is None:
        return
    seen: set[tuple[str, int, str, str]] = set()
    for entry in ctx.consumer.inferred.registered:
        ref = entry["class"]
        if not entry.get("instance") or ref not in ctx.consumer.classes or tpaths.target_bases(ref) \
                or bpaths.target_bases(ref):
            continue
        tfn, tparam = handed_param(ctx.target, entry, tpaths)
        bfn, bparam = handed_param(ctx.baseline, entry, bpaths)
        if tparam is None or bparam is None or tparam.name != bparam.name:
            continue
        key = (entry.get("path") or "", entry["line"], ref, tfn.dotted)
        if key in seen:
            continue
        before = _reads(bfn, bparam)
        if not before:
            continue  # the baseline's body rebinds it or reads nothing on it: what it asked is unknown
        has = _available(ctx, ctx.target, ref)
        if has is None:
            continue  # `__getattr__` answers every name
        missing = {a: line for a, line in _reads(tfn, tparam).items()
                   if a not in before and a not in has and not a.startswith("__")}
        if not missing:
            continue
        seen.add(key)
        yield _finding(ctx, entry, ref, tfn, tparam.name, bfn, missing)


def _finding(ctx: CheckContext, entry: dict[str, Any], ref: str, fn: Symbol, param: str, bfn: Symbol,
             missing: dict[str, int]) -> Finding:
    crec = ctx.consumer.classes[ref]
    short = crec["qual"].rsplit(".", 1)[-1]
    names = sorted(missing, key=lambda a: (missing[a], a))
    listed = ", ".join(f"`{n}`" for n in names)
    callee = _label(fn)
    return Finding(
        rule_id="DRIFT116", kind=RuleKind.INTERFACE_METHOD_MISSING, severity=Severity.BREAKING,
        title=f"`{short}` handed to `{callee}` as `{param}` lacks {listed}, which the target's `{callee}` "
              f"now reads on `{param}`",
        consumer_site=Location(entry.get("path") or "?", entry["line"], symbol=fn.dotted),
        target_evidence=tuple(Location(fn.path, missing[n], symbol=f"{fn.dotted}.{param}.{n}") for n in names),
        baseline_evidence=(Location(bfn.path, bfn.line, symbol=bfn.dotted),),
        predicted_failure=f"AttributeError: '{short}' object has no attribute '{names[0]}'",
        fix=Fix(f"give `{crec['qual']}` {listed} (what the target's `{callee}` reads on `{param}`)",
                manual_reason="what the attribute must hold is the target's contract for that parameter"),
        symbol=f"{fn.dotted}.{param}.{names[0]}",
        details=f"{plural(len(names), 'attribute')} the target reads on `{param}` and the baseline did not; "
                f"`{short}` extends no target class",
    )


RULES = [stand_in_lacks_read]
