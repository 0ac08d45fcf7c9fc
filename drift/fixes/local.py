"""Write a plan into a source checkout on this machine (`drift check --fix`).

Why not the host applier: a checkout is the user's own repository, under version control, so
the edit is the review (`git diff`) and no backup or manifest is kept. Each file is replaced
atomically, and only while it still holds the bytes the plan was computed from. Nothing is
imported or byte-compiled here (the compile check runs in memory), so no `__pycache__` appears.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from drift.fixes.paths import check_relpath
from drift.fixes.plan import PatchPlan, sha256


@dataclass(frozen=True)
class LocalResult:
    written: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()  # why nothing was written


def compile_errors(plan: PatchPlan) -> list[str]:
    """Each patched file compiled in memory under this interpreter (never written as .pyc)."""
    errors = []
    for c in plan.changes:
        try:
            compile(c.after, c.path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            errors.append(f"{c.path}: {exc}")
    return errors


def write_plan(root: str | Path, plan: PatchPlan) -> LocalResult:
    """All of the plan's files, or none: every file is checked before the first is replaced."""
    base = Path(root).resolve()
    problems = []
    for c in plan.changes:
        problem = check_relpath(c.path)
        full = (base / c.path).resolve()
        if problem or base not in full.parents:
            problems.append(problem or f"{c.path} leaves {base}")
        elif c.created:
            if full.exists() or full.is_symlink() or not full.parent.is_dir():
                problems.append(f"{c.path} would be created, but it exists or its folder does not")
        elif not full.is_file() or sha256(full.read_bytes()) != c.before_sha256:
            problems.append(f"{c.path} changed since the fixes were computed; run again")
    problems += compile_errors(plan)
    if problems:
        return LocalResult(problems=tuple(problems))
    written = []
    for c in plan.changes:
        full = base / c.path
        fd, tmp = tempfile.mkstemp(dir=full.parent, prefix=f".{full.name}.drift-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(c.after)
            os.chmod(tmp, 0o644 if c.created else full.stat().st_mode & 0o7777)
            os.replace(tmp, full)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(c.path)
    return LocalResult(written=tuple(written))


def restore(root: str | Path, plan: PatchPlan) -> None:
    """Put the plan's original bytes back (a re-check found something new); remove what it created."""
    base = Path(root).resolve()
    for c in plan.changes:
        full = base / c.path
        if c.created:
            full.unlink(missing_ok=True)
            continue
        fd, tmp = tempfile.mkstemp(dir=full.parent, prefix=f".{full.name}.drift-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(c.before)
        os.chmod(tmp, full.stat().st_mode & 0o7777)
        os.replace(tmp, full)
