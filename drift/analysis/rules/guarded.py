"""DRIFT077: a guarded import whose name is gone, so the except path is now the only path.

`try: from vllm.x import Feature` / `except Exception: Feature = None` never fails; on a target
without `Feature` the consumer quietly runs without it (a whole feature off, a slower fallback).
DRIFT001 rightly stays silent on guarded imports (they never raise); this rule says what the
guard now always does. Risky: the consumer chose a fallback, but probably not for this release.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.imports import handler_misses
from drift.findings import Finding, Fix, Location, RuleKind, Severity


@rule("DRIFT077", RuleKind.IMPORT_REMOVED, Severity.RISKY)
def guarded_import_gone(ctx: CheckContext) -> Iterator[Finding]:
    """An import inside `try:` that worked on the baseline and fails on the target, with no
    fallback import beside it that the target has: its `except` path now always runs, and what
    the import enabled silently stops."""
    if ctx.baseline is None:
        return
    seen: set[tuple] = set()
    for mod in ctx.usage:
        imports = mod.get("imports") or []
        backed = {(t, imp.get("local")) for imp in imports for t in imp.get("fallback_for") or ()
                  if ctx.target.lookup(imp["target"]) is not None}  # an except path that binds it from elsewhere
        failed_before = {imp.get("try_line") for imp in imports  # a try whose imports already failed there
                         if imp.get("tried") and ctx.baseline.lookup(imp["target"]) is None}
        for imp in imports:
            target = imp["target"]
            if imp.get("try_line") in failed_before:
                continue  # the try already failed on the baseline: its except path ran there too
            if not imp.get("tried") or (target, imp.get("local")) in backed or ctx.target.lookup(target) is not None:
                continue
            if handler_misses(ctx, imp):
                continue  # the handler does not catch this failure: DRIFT001 reports the import as breaking
            base = ctx.baseline.lookup(target)
            if base is None or ctx.dead_on_baseline(mod):
                continue
            key = (mod.get("path"), imp["line"])  # each name of a parenthesised import at its own line
            if key in seen:
                continue
            seen.add(key)
            name = target.rsplit(".", 1)[-1]
            caught = ", ".join(imp["tried"])
            yield Finding(
                rule_id="DRIFT077", kind=RuleKind.IMPORT_REMOVED, severity=Severity.RISKY,
                title=f"`{name}` is no longer importable from `{target.rsplit('.', 1)[0]}`: the `except "
                      f"{caught}` path around it now always runs",
                consumer_site=Location(mod["path"], imp["line"], col=(imp.get("col") or 0) + 1, symbol=target),
                baseline_evidence=(Location(base.path, base.line, symbol=target),),
                predicted_failure=None,
                details="no error is raised: the import's failure is caught, and what it enabled is skipped",
                fix=Fix(f"import `{name}` from where the target has it now, or drop the feature knowingly",
                        manual_reason="whether the fallback is acceptable is the consumer's decision"),
                symbol=target,
            )


RULES = [guarded_import_gone]
