"""One finding per fact at a site: where a specific rule reports what a general rule also names at
the same line, the specific one stays and the general one goes.

Why: DRIFT005 names every evaluated use of a removed name; at a patch statement
(`Engine.step = my_step` with `Engine` gone) DRIFT080 reports the same removal with what the line
does (a patch with nothing left to patch). Two findings for one edit make the user read the line
twice and count one break twice. Add a pair to `SUBSUMED_BY` when a new rule refines another's
finding at the same site.
"""

from __future__ import annotations

from drift.analysis.context import CheckContext
from drift.findings import Finding

# general rule -> the rules whose finding at the same line, on the same name or one under it, says more
SUBSUMED_BY: dict[str, tuple[str, ...]] = {
    "DRIFT005": ("DRIFT080",),  # a removed name's use that is a patch of an attribute of it
}


def _under(symbol: str | None, general: str | None) -> bool:
    return bool(symbol and general) and (symbol == general or symbol.startswith(general + "."))


def drop_subsumed(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` without each general finding a more specific rule's finding at its line covers."""
    specific: dict[tuple[str, int], list[Finding]] = {}
    wanted = {r for rules in SUBSUMED_BY.values() for r in rules}
    for f in findings:
        if f.rule_id in wanted:
            specific.setdefault((f.consumer_site.path, f.consumer_site.line), []).append(f)
    if not specific:
        return findings
    return [f for f in findings
            if not any(s.rule_id in SUBSUMED_BY.get(f.rule_id, ()) and _under(s.symbol, f.symbol)
                       for s in specific.get((f.consumer_site.path, f.consumer_site.line), ()))]
