"""A gone name used only where the consumer's own `hasattr` test found it is no break.

Why: `if tp > 1 and hasattr(self.experts, "all_reduce"): out = self.experts.all_reduce(out)` runs
its body only where the object has the name. A finding there that says the target's object no
longer has it (DRIFT060, DRIFT061) contradicts its own line: where the name is gone the test is
False and the body never runs (DRIFT065 reports the test, which is where the behaviour changes).
drift/analysis/signature_tests.py answers such tests when the solver types the subject; this pass
needs no typing, because the finding itself already says which answer the target gives.
"""

from __future__ import annotations

from drift.analysis.context import CheckContext
from drift.findings import Finding
from drift.probes.consumer_scan import ir_of

GONE_NAME_RULES = frozenset({"DRIFT060", "DRIFT061"})  # rules whose finding says the object lacks the name


def drop_gone_where_tested(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` without those that say a name is gone at a line run only where it is present."""
    paths = {f.consumer_site.path for f in findings if f.rule_id in GONE_NAME_RULES}
    if not paths:
        return findings
    spans: dict[str, list[tuple[str, int, int]]] = {}
    for mod in ctx.usage:
        path = mod.get("path") if isinstance(mod, dict) else None
        if path not in paths:
            continue
        for row in ir_of(mod).get("hastest") or ():
            try:
                name, has = row[0], row[2]
                if isinstance(name, str) and has:
                    spans.setdefault(path, []).append((name, int(has[0]), int(has[1])))
            except (TypeError, ValueError, IndexError):
                continue  # a malformed row from a host answers nothing
    if not spans:
        return findings
    return [f for f in findings if not (f.rule_id in GONE_NAME_RULES and _tested(f, spans.get(f.consumer_site.path)))]


def _tested(f: Finding, spans: list[tuple[str, int, int]] | None) -> bool:
    name = (f.symbol or "").rsplit(".", 1)[-1]
    line = f.consumer_site.line
    return bool(name) and any(n == name and a <= line <= b for n, a, b in spans or ())
