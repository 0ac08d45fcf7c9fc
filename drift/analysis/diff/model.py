"""The diff result: one flat list of changes, each with old and new evidence."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from drift.analysis.diff.kinds import BREAKING_KINDS, ChangeKind

SCHEMA = "drift.diff/1"


@dataclass(frozen=True)
class Evidence:
    """A `path:line` in one snapshot, with what that line shows (e.g. "sets self.x")."""

    path: str
    line: int
    note: str | None = None

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}"
        return f"{text} ({self.note})" if self.note else text

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "note": self.note}


@dataclass(frozen=True)
class Change:
    """One difference. `module` and `symbol` name the place in the OLD snapshot (the new one
    for additions); `symbol` is the qualname inside the module, "" for the module itself."""

    kind: ChangeKind
    module: str
    symbol: str
    detail: str
    old: tuple[Evidence, ...] = ()
    new: tuple[Evidence, ...] = ()
    private: bool = False

    @property
    def breaking(self) -> bool:
        return self.kind in BREAKING_KINDS

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.symbol}" if self.symbol else self.module

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.name,
            "message": self.kind.value,
            "module": self.module,
            "symbol": self.symbol,
            "dotted": self.dotted,
            "detail": self.detail,
            "breaking": self.breaking,
            "private": self.private,
            "old": [e.to_dict() for e in self.old],
            "new": [e.to_dict() for e in self.new],
        }


@dataclass(frozen=True)
class Side:
    """Who one side of the diff is: a label for humans plus the package's version/digest."""

    label: str
    package: str
    version: str | None = None
    digest: str | None = None
    modules: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "package": self.package,
            "version": self.version,
            "digest": self.digest,
            "modules": self.modules,
        }


@dataclass(frozen=True)
class DiffResult:
    old: Side
    new: Side
    changes: tuple[Change, ...]
    notes: tuple[str, ...] = field(default=())

    def counts(self) -> Counter:
        return Counter(c.kind for c in self.changes)

    def by_module(self) -> dict[str, list[Change]]:
        groups: dict[str, list[Change]] = {}
        for change in self.changes:
            groups.setdefault(change.module, []).append(change)
        return groups

    def to_dict(self) -> dict[str, Any]:
        counts = self.counts()
        return {
            "schema": SCHEMA,
            "old": self.old.to_dict(),
            "new": self.new.to_dict(),
            "summary": {
                "changes": len(self.changes),
                "breaking": sum(1 for c in self.changes if c.breaking),
                "private": sum(1 for c in self.changes if c.private),
                "by_kind": {k.name: counts[k] for k in ChangeKind if counts[k]},
            },
            "notes": list(self.notes),
            "changes": [c.to_dict() for c in self.changes],
        }
