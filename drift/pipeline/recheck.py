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
from typing import Callable, Mapping

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


def _write_tree(root: Path, files: Mapping[str, bytes]) -> None:
    """The files, with an empty `__init__.py` in each folder that has none (so the packages resolve)."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for rel in list(files):
        parts = Path(rel).parts[:-1]
        for i in range(1, len(parts) + 1):
            init = root.joinpath(*parts[:i], "__init__.py")
            if not init.exists():
                init.write_bytes(b"")


def gate_on_files(files: Mapping[str, bytes], plain: PatchPlan, gated: Callable[[dict[str, frozenset[int]] | None],
                  PatchPlan], *, packages: list[str], baseline_spec: str, target_spec: str,
                  target_package: str = "vllm") -> tuple[PatchPlan, list[Finding] | None, str | None]:
    """For a consumer drift cannot copy whole (installed on a host): the files the fixes touch,
    in a tree of their own, checked with baseline and target swapped before and after the plain
    edits (which statements need a version branch) and after the gated ones (nothing new on the
    baseline). Returns the gated plan, the findings it adds on the baseline (None: not checked)
    and why it could not be checked."""
    from drift.pipeline.run import run_check

    def check(root: str) -> Report | None:
        return run_check(consumer_spec=root, target_spec=baseline_spec, baseline_spec=target_spec,
                         target_package=target_package, consumer_packages=packages).report

    with tempfile.TemporaryDirectory(prefix="drift-recheck-") as tmp:
        root = Path(tmp) / "consumer"
        _write_tree(root, files)
        before = check(str(root))
        if before is None:
            return gated(None), None, f"the consumer's files could not be checked against {baseline_spec}"
        the_plan = gated(baseline_breaks(root, plain, before, check))
        copy = Path(tmp) / "patched"
        shutil.copytree(root, copy)
        problems = write_plan(copy, the_plan).problems
        if problems:
            return the_plan, None, "; ".join(problems)
        after = check(str(copy))
    if after is None:
        return the_plan, None, f"the patched files could not be checked against {baseline_spec}"
    return the_plan, new_findings(before, after), None
