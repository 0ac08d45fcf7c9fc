"""Where a comparison happens: the module/symbol pair and both files, to build Changes."""

from __future__ import annotations

from dataclasses import dataclass

from drift.analysis.diff.kinds import ChangeKind
from drift.analysis.diff.model import Change, Evidence


def is_private_name(dotted: str) -> bool:
    """A `_x` segment anywhere (dunders like `__init__` are public)."""
    for part in dotted.split("."):
        if part.startswith("_") and not (part.startswith("__") and part.endswith("__")):
            return True
    return False


@dataclass(frozen=True)
class Site:
    """The symbol being compared; `old_path`/`new_path` are its files in each snapshot."""

    module: str
    symbol: str
    old_path: str
    new_path: str

    def child(self, name: str, *, new_path: str | None = None) -> "Site":
        sym = f"{self.symbol}.{name}" if self.symbol else name
        return Site(self.module, sym, self.old_path, new_path or self.new_path)

    def old(self, line: int | None, note: str | None = None) -> tuple[Evidence, ...]:
        return (Evidence(self.old_path, int(line), note),) if line else ()

    def new(self, line: int | None, note: str | None = None) -> tuple[Evidence, ...]:
        return (Evidence(self.new_path, int(line), note),) if line else ()

    def change(
        self,
        kind: ChangeKind,
        detail: str,
        *,
        old: tuple[Evidence, ...] = (),
        new: tuple[Evidence, ...] = (),
    ) -> Change:
        private = is_private_name(f"{self.module}.{self.symbol}" if self.symbol else self.module)
        return Change(kind, self.module, self.symbol, detail, old, new, private)
