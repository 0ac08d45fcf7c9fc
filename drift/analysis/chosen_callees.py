"""A call on a value a consumer function chooses at run time, which may be the consumer's own, is risky.

Why: a platform plugin often picks its implementation through a helper, `fn = get_impl()`, where
`get_impl` returns the plugin's own function by default and the target's only under a switch (an
environment variable, a debug flag). The call `fn(..., inplace=True)` then breaks on the target
only on the paths where the target's function is chosen; on the default path it runs the
consumer's own function, which still takes `inplace`. The patterns' call record follows the
target's return only, so the rules judge the call as the target's. The solved consumer model
(drift/consumer/infer.py: `returned_functions`, `returned`, `returned_objects`) knows every value
the helper may return: where one of them is the consumer's own, the finding is kept, risky, with
that reason. The first-contact reviews counted such breaking findings false.
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext, ResolvedCall
from drift.findings import Finding, Severity


def downgrade_chosen_callees(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking finding at a call whose callee a consumer function returns,
    when that function may also return the consumer's own value, made risky."""
    solution = ctx.consumer.inferred
    own = _own_returns(solution)
    if not own or not any(f.severity is Severity.BREAKING for f in findings):
        return findings
    calls: dict[str, list[ResolvedCall]] = {}
    for rc in ctx.calls:
        calls.setdefault(rc.module.get("path") or "", []).append(rc)
    out = []
    for f in findings:
        if f.severity is Severity.BREAKING and f.symbol:
            chooser = _chooser(calls.get(f.consumer_site.path, ()), f)
            alternatives = own.get(chooser or "")
            if alternatives:
                other = alternatives[0].rsplit(".", 1)[-1]
                f = replace(f, severity=Severity.RISKY,
                            title=f"{f.title}; the callee is what `{chooser.rsplit('.', 1)[-1]}()` returns, which "
                                  f"may be the consumer's own `{other}` ({alternatives[0]}): it breaks only on the "
                                  f"paths that choose the target's")
        out.append(f)
    return out


def _own_returns(solution) -> dict[str, list[str]]:
    """Consumer function -> the consumer's own callables (functions, classes) it may return."""
    out: dict[str, set[str]] = {}
    for table in ("returned_functions", "returned"):  # what can be called in the target's place; an
        # object the helper builds is not (its methods, inherited from the target, are the target's)
        for fn, values in (getattr(solution, table, None) or {}).items():
            out.setdefault(fn, set()).update(values)
    return {fn: sorted(v) for fn, v in out.items() if v}


def _chooser(calls, f: Finding) -> str | None:
    """The consumer function whose result is the very callee of the call `f` was found at (the call
    spans `f`'s line and reaches `f`'s symbol; its callee path is calling that function and nothing
    more: `sym:pkg.get_impl ()`, `self:pkg.Cls .get_impl ()`); else None. A longer path
    (`get_impl().run`) reads on past the chosen value: which attribute it reaches is not asked here."""
    line = f.consumer_site.line
    for rc in calls:
        first, last = rc.rec.get("line") or 0, rc.rec.get("end_line") or rc.rec.get("line") or 0
        if not (first <= line <= last) or rc.dotted != f.symbol:
            continue
        path = list((rc.rec.get("callee") or {}).get("path") or ())
        if len(path) == 2 and isinstance(path[0], str) and path[0].startswith("sym:") and path[1] == "()":
            return path[0][4:]
        if len(path) == 3 and isinstance(path[0], str) and path[0].startswith("self:") \
                and isinstance(path[1], str) and path[1].startswith(".") and path[2] == "()":
            return f"{path[0][5:]}{path[1]}"
    return None
