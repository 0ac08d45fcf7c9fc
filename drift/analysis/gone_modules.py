"""One finding per `from <gone module> import (a, b, c)` statement, not one per name.

Why: Python raises once, at the statement (ModuleNotFoundError names the module), and the user
makes one edit there; five names of a gone module reported five times count one failure five
times. After the line rule (surfacing.py) has put every name's finding on the statement's line,
the findings of one rule that share a line and a ModuleNotFoundError become one: it names the
module, lists the names in its details, and carries one fix for all of them (their `move_import`
moves merged when every name has one into one `from` statement, else the manual advice joined).
Findings of different rules (a moved name, DRIFT002, beside a name that is gone, DRIFT001) stay
apart: their fixes differ.
"""

from __future__ import annotations

import dataclasses

from drift.findings import Finding, Fix, UNSAFE
from drift.kinds import Kind

_MISSING = "ModuleNotFoundError"


def merge_gone_modules(findings: list[Finding]) -> list[Finding]:
    """`findings` with each group of one statement's gone-module findings (same rule, line and
    ModuleNotFoundError) merged into its first member, in the first member's place."""
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        key = _group(f)
        if key is not None:
            groups.setdefault(key, []).append(f)
    merged = {id(g[0]): _merged(g) for g in groups.values() if len(g) > 1}
    dropped = {id(f) for g in groups.values() if len(g) > 1 for f in g[1:]}
    return [merged.get(id(f), f) for f in findings if id(f) not in dropped]


def _group(f: Finding) -> tuple | None:
    if f.kind not in (Kind.IMPORT_REMOVED, Kind.IMPORT_MOVED) or not (f.predicted_failure or "").startswith(_MISSING):
        return None
    site = f.consumer_site
    return (f.rule_id, f.severity, site.path, site.line, f.predicted_failure)


def _merged(group: list[Finding]) -> Finding:
    first = group[0]
    module = (first.predicted_failure or "").split("'")[1] if "'" in (first.predicted_failure or "") else ""
    names = [(f.symbol or "").rsplit(".", 1)[-1] for f in group]
    listed = ", ".join(f"`{n}`" for n in names)
    return dataclasses.replace(
        first,
        title=f"module `{module}` no longer exists (the statement imports {listed})",
        details="; ".join(f.title for f in group) + (f"; {first.details}" if first.details else ""),
        target_evidence=tuple(dict.fromkeys(e for f in group for e in f.target_evidence)),
        baseline_evidence=tuple(dict.fromkeys(e for f in group for e in f.baseline_evidence)),
        fix=_merged_fix([f.fix for f in group]),
    )


def _merged_fix(fixes: list[Fix | None]) -> Fix | None:
    """One `move_import` with every name's move when each name has one from the same module,
    else the joined advice, manual (a partial edit would leave the statement failing)."""
    real = [f for f in fixes if f is not None]
    if not real:
        return None
    moves = [f for f in real if f.codemod == "move_import"]
    if len(moves) == len(fixes) and len({f.args.get("module") for f in moves}) == 1:
        homes: dict = {}
        for f in moves:
            homes.update(f.args.get("moves") or {})
        tiers = {f.tier for f in moves}
        return Fix("; ".join(f.description for f in moves), codemod="move_import",
                   args={**moves[0].args, "moves": homes}, tier=UNSAFE if UNSAFE in tiers else moves[0].tier)
    return Fix("; ".join(dict.fromkeys(f.description for f in real)),
               manual_reason="; ".join(dict.fromkeys(f.manual_reason or "an automatic edit for some names only"
                                                     for f in real)))
