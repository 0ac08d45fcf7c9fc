"""Turn findings plus the consumer's files into a patch plan: per-file before/after and why.

Pure: no I/O. The plan is what `drift patch` prints as a diff and what `apply` writes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Iterable, Mapping

from drift.fixes.kinds import apply_fixes
from drift.findings import Finding
from drift.fixes.paths import check_relpath


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileChange:
    path: str  # relative to the directory that holds the consumer's top-level package
    before_sha256: str
    after_sha256: str
    before: bytes
    after: bytes
    finding_keys: tuple[str, ...]


@dataclass(frozen=True)
class PatchPlan:
    changes: tuple[FileChange, ...] = ()
    manual: tuple[tuple[Finding, str], ...] = ()  # findings no codemod can fix, with why
    skipped: tuple[tuple[str, str], ...] = ()  # (finding key, reason) for fixes that did not match
    already: tuple[str, ...] = ()  # finding keys whose fix is already in the file

    @property
    def patch_id(self) -> str:
        """Same changes, same id: a second apply of an equal plan finds its own manifest."""
        blob = json.dumps(
            sorted((c.path, c.before_sha256, c.after_sha256) for c in self.changes), separators=(",", ":")
        )
        return sha256(blob.encode())[:16]

    @property
    def finding_keys(self) -> tuple[str, ...]:
        return tuple(k for c in self.changes for k in c.finding_keys)

    @property
    def empty(self) -> bool:
        return not self.changes


def plan(files: Mapping[str, bytes], findings: Iterable[Finding]) -> PatchPlan:
    """Apply every codemod fix to its file's original bytes; collect what could not be done."""
    by_path: dict[str, list[Finding]] = {}
    manual: list[tuple[Finding, str]] = []
    skipped: list[tuple[str, str]] = []
    for f in findings:
        if f.fix is None or f.fix.codemod is None:
            reason = (f.fix.manual_reason if f.fix else None) or "no automatic fix is known"
            manual.append((f, reason))
            continue
        problem = check_relpath(f.consumer_site.path)
        if problem:
            skipped.append((f.key, problem))
        elif f.consumer_site.path not in files:
            skipped.append((f.key, f"{f.consumer_site.path} was not provided"))
        else:
            by_path.setdefault(f.consumer_site.path, []).append(f)
    changes: list[FileChange] = []
    already: list[str] = []
    for path in sorted(by_path):
        before = files[path]
        try:
            text = before.decode("utf-8")
        except UnicodeDecodeError:
            skipped.extend((f.key, f"{path} is not UTF-8 text") for f in by_path[path])
            continue
        result = apply_fixes(text, by_path[path], path=path)
        skipped.extend(result.skipped)
        already.extend(result.already)
        after = result.new_source.encode("utf-8")
        if after != before:
            changes.append(
                FileChange(
                    path=path,
                    before_sha256=sha256(before),
                    after_sha256=sha256(after),
                    before=before,
                    after=after,
                    finding_keys=tuple(result.applied),
                )
            )
    return PatchPlan(changes=tuple(changes), manual=tuple(manual), skipped=tuple(skipped), already=tuple(already))
