"""Return values whose shape now depends on an argument the consumer passes."""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Sequence

from drift.analysis.context import CheckContext
from drift.model.index import Symbol
from drift.findings import SAFE, Finding, Fix, Location, RuleKind, Severity
from drift.analysis.rules.base import rule


def _shapes(sym: Symbol | None) -> Sequence[Mapping[str, Any]]:
    return sym.as_function.behaviour.return_shapes if sym is not None else ()


@rule("DRIFT030", RuleKind.RETURN_SHAPE)
def return_shape(ctx: CheckContext) -> Iterator[Finding]:
    """The callable now returns `x[0] if <arg> else x`, the consumer passes that argument and
    indexes (or iterates, or truth-tests) the result as it did when it was always the sequence.
    """
    for rc in ctx.calls:
        if rc.rec.get("result") is None or rc.target is None:
            continue
        kw_values = rc.rec.get("kw_values") or {}
        passed = {k for k in rc.rec["keywords"] if kw_values.get(k, "").strip() != "None"}
        params = rc.target_params or []
        passed |= {p.name for p in params[: rc.rec["positional"]]}
        base_dep = {d for s in _shapes(rc.baseline) for d in s.get("depends_on") or []}
        for shape in _shapes(rc.target):
            deps = set(shape.get("depends_on") or [])
            hit = deps & passed
            if not hit or (ctx.baseline is not None and hit <= base_dep):
                continue
            used = rc.rec["result"]
            arg = sorted(hit)[0]
            for idx in used.get("indexed") or []:
                truth = idx.get("then_truth_tested") or []
                failure = (f"RuntimeError: Boolean value of Tensor with more than one value is ambiguous "
                           f"(the truth test at line {truth[0]} now sees one element, e.g. a tensor)" if truth else
                           f"the `[{idx['index']}]` now indexes into the element itself: wrong data or IndexError/TypeError")
                yield Finding(
                    rule_id="DRIFT030", kind=RuleKind.RETURN_SHAPE, severity=Severity.BREAKING,
                    title=f"`{rc.label}(..., {arg}=...)` now returns the element, not a list; the result is indexed",
                    consumer_site=Location(rc.module["path"], idx["line"], snippet=f"{used.get('var') or ''}[{idx['index']}]"),
                    target_evidence=(Location(rc.target.path, shape["line"], symbol=rc.target.dotted, snippet=shape["src"]),),
                    baseline_evidence=(ctx.evidence(rc.baseline),) if rc.baseline is not None else (),
                    predicted_failure=failure,
                    fix=Fix(f"use the result directly instead of `[{idx['index']}]`", codemod="unwrap_index", tier=SAFE,
                            args={"index": idx["index"], "name": used.get("var")}),
                    symbol=rc.dotted,
                    details=f"call at line {rc.rec['line']} passes `{arg}`",
                )
            for it in used.get("iterated") or []:
                yield Finding(
                    rule_id="DRIFT031", kind=RuleKind.RETURN_SHAPE, severity=Severity.RISKY,
                    title=f"`{rc.label}(..., {arg}=...)` now returns one element; the result is iterated",
                    consumer_site=Location(rc.module["path"], it["line"]),
                    target_evidence=(Location(rc.target.path, shape["line"], symbol=rc.target.dotted, snippet=shape["src"]),),
                    baseline_evidence=(ctx.evidence(rc.baseline),) if rc.baseline is not None else (),
                    predicted_failure="iterates over the element's contents instead of the list",
                    fix=Fix("wrap the single result in a list", manual_reason="iteration fixes depend on the element type"),
                    symbol=rc.dotted,
                )
