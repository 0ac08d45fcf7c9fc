"""A finding in a private method whose one call was commented out is risky, not breaking.

Why: a private method (`_name`) is the package's own business; when the package's code writes its
name nowhere but at its `def` and a comment holds the call it once made (`# out = self._name(x)`,
probes/links.py `unnamed_methods`), and the target calls no method of that name on the class's
objects either (`rules.reach.uncalled_by_target`, over the class's target bases; none when it
extends no target class), its body never runs and what it uses of the target cannot fail. A
private method nothing ever named is left breaking: code outside the package may call it (the
first-contact reviews count such a use real). The finding stays, risky, with the reason: the
call may come back, and a dynamic `getattr` drift cannot read may still make it.
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext
from drift.analysis.rules.callers import mro_names
from drift.analysis.rules.reach import uncalled_by_target
from drift.findings import Finding, Severity


def downgrade_uncalled_methods(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking one inside a private method whose call was disabled made risky."""
    spans = {m["path"]: (m.get("module") or "", m["unnamed_methods"]) for m in ctx.usage
             if isinstance(m, dict) and m.get("path") and m.get("unnamed_methods")}
    if not spans:
        return findings
    out = []
    for f in findings:
        held = spans.get(f.consumer_site.path) if f.severity is Severity.BREAKING else None
        qual = _method_at(held[1], f.consumer_site.line) if held else None
        if qual is not None and _uncalled(ctx, held[0], qual):
            f = replace(f, severity=Severity.RISKY,
                        title=f"{f.title}; `{qual}`'s one call in {held[0].split('.')[0]} is commented out and "
                              f"the target never calls it, so this line does not run")
        out.append(f)
    return out


def _method_at(methods: list, line: int) -> str | None:
    for row in methods:
        try:
            qual, first, last = row[0], int(row[1]), int(row[2])
        except (TypeError, ValueError, IndexError):
            continue  # a malformed mark from a host answers nothing
        if isinstance(qual, str) and first <= line <= last:
            return qual
    return None


def _uncalled(ctx: CheckContext, module: str, qual: str) -> bool:
    """The target runs no method of that name on an object of the holding class: its target
    bases' MRO when it has some, else no target class at all (a `self.m()` in a target class
    then calls that class's own `m`, never this one)."""
    cls, _, name = qual.rpartition(".")
    cref = f"{module}.{cls}"
    bases = ctx.target_paths.target_bases(cref) if cref in ctx.consumer.classes else None
    inherited = mro_names(ctx.target, bases) if bases else frozenset()
    return uncalled_by_target(ctx, name, inherited)
