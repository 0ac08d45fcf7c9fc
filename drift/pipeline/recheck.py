"""Re-checking a patch before it is kept: against the target, and against the baseline a range
consumer still supports.

Why the baseline too: an edit the new vLLM needs (a keyword dropped, an import moved) can raise on
the release the consumer supported before. Checking the patched consumer with baseline and
target swapped reads each use as the older release would see it; a finding the unpatched
consumer did not have there is an edit that breaks the older release. `baseline_breaks` runs
that on a copy of the checkout with plain edits, so only the statements that need a version
branch get one and the user's tree is never touched to find out.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable

from drift.findings import Finding, Report
from drift.fixes.kinds import line_mapper
from drift.fixes.local import write_plan
from drift.fixes.plan import PatchPlan

IGNORED = ("__pycache__", ".git", ".venv", "venv", "node_modules", ".tox", "*.so", "*.pt", "*.bin",
           "*.safetensors")


def _identity(f: Finding) -> tuple:
    """A finding without its line, which an edit above it moves."""
    return (f.rule_id, f.consumer_site.path, f.symbol or "", f.title)


def new_findings(before: Report, after: Report) -> list[Finding]:
    """Breaking or risky findings of `after` that `before` did not have (lines aside)."""
    seen = Counter(_identity(f) for f in before.findings)
    new = []
    for f in after.findings:
        if seen[_identity(f)] > 0:
            seen[_identity(f)] -= 1
        elif f.severity.value in ("breaking", "risky"):
            new.append(f)
    return new


def baseline_breaks(root: str | Path, plain: PatchPlan, before: Report,
                    check_baseline: Callable[[str], Report | None]) -> dict[str, frozenset[int]] | None:
    """Per edited file, the lines (of the original file) where a plain edit adds a finding
    against the baseline; files whose edits keep the baseline working are left out. None when
    that cannot be told (the copy or its check failed, or a new finding lies outside the edited
    files): then every edit is gated."""
    if plain.empty:
        return {}
    with tempfile.TemporaryDirectory(prefix="drift-recheck-") as tmp:
        copy = Path(tmp) / Path(root).name
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(*IGNORED))
        if write_plan(copy, plain).problems:
            return None
        after = check_baseline(str(copy))
    if after is None:
        return None
    changes = {c.path: c for c in plain.changes}
    out: dict[str, set[int]] = {}
    for f in new_findings(before, after):
        change = changes.get(f.consumer_site.path)
        if change is None:
            return None
        back = line_mapper(change.after.decode("utf-8"), change.before.decode("utf-8"))
        out.setdefault(change.path, set()).add(back(f.consumer_site.line))
    return {path: frozenset(lines) for path, lines in out.items()}
