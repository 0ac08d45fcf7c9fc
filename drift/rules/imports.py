"""Imports the consumer makes that no longer resolve in the target."""

from __future__ import annotations

from typing import Iterator

from drift.check.context import CheckContext
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.rules.base import rule


@rule("DRIFT001", RuleKind.IMPORT_REMOVED)
def import_removed(ctx: CheckContext) -> Iterator[Finding]:
    """An imported name (private ones too) that the target no longer defines or re-exports.

    Fails at import time, before anything else runs; if the name is defined elsewhere in the
    target, the finding says where it lives now.
    """
    for mod, imp in ctx.iter_imports():
        if imp.get("guarded"):
            continue  # inside try/except ImportError or `if TYPE_CHECKING:`: never fails at run time
        target = imp["target"]
        if ctx.target.lookup(target) is not None:
            continue
        base = ctx.baseline.lookup(target) if ctx.baseline else None
        if ctx.baseline and base is None:
            continue  # never resolved in the baseline either: not drift (maybe a C extension)
        name = target.rsplit(".", 1)[-1]
        module = target.rsplit(".", 1)[0]
        elsewhere = [d for d in ctx.target.definitions_named(name) if d != target]
        moved = elsewhere[0] if len(elsewhere) >= 1 else None
        kind = RuleKind.IMPORT_MOVED if moved else RuleKind.IMPORT_REMOVED
        evidence = ()
        if moved:
            sym = ctx.target.lookup(moved)
            evidence = (Location(sym.path, sym.line, symbol=moved),) if sym else ()
        yield Finding(
            rule_id="DRIFT002" if moved else "DRIFT001",
            kind=kind,
            severity=Severity.BREAKING,
            title=f"`{name}` is no longer importable from `{module}`" + (f"; it lives in `{moved.rsplit('.', 1)[0]}`" if moved else ""),
            consumer_site=ctx.site(mod, imp["line"]),
            target_evidence=evidence,
            baseline_evidence=(ctx.evidence(base),) if base else (),
            predicted_failure=(f"ImportError: cannot import name '{name}' from '{module}'"
                               if ctx.target.lookup(module) is not None and imp.get("statement") != "import"
                               else f"ModuleNotFoundError: No module named '{_missing_module(ctx, target)}'"),
            fix=Fix(f"import `{name}` from `{moved.rsplit('.', 1)[0]}`" if moved else f"stop using `{target}`",
                    manual_reason="imports are rewritten by hand: the replacement may differ in behaviour"),
            symbol=target,
        )


def _missing_module(ctx: CheckContext, dotted: str) -> str:
    """The first prefix of `dotted` that is not a module in the target (what Python names)."""
    parts = dotted.split(".")
    for cut in range(1, len(parts) + 1):
        name = ".".join(parts[:cut])
        if name not in ctx.target.modules:
            return name
    return dotted
