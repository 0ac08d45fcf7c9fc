"""What a consumer's `from vllm.x import *` binds on each release, and the names it stops binding.

Why: the probe binds every free name of the module to the star's module (probes/star_imports.py),
since it cannot know what the star exports. Here, with each release's facts, a name counts as the
star's only when that release's module exports it: listed in its literal `__all__`, or, without
one, a public name (no leading underscore) the module defines or imports. A name the baseline's
star gave and the target's does not is a break at the first line the module evaluates it (a
NameError there: the star statement itself still imports), reported by DRIFT001/DRIFT002 with the
star named. A star whose module is gone fails at the star's own line (ModuleNotFoundError).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator


@dataclass(frozen=True)
class LostName:
    """One name the baseline's star bound, gone from the target's: where the module first uses it."""

    module: str
    name: str
    star_line: int
    use_line: int


@dataclass(frozen=True)
class GoneStar:
    """A star import of a module the target no longer has."""

    module: str
    star_line: int
    names: tuple[str, ...]  # the free names the baseline's star gave, for the finding's text


def exports(index: Any, module: str, name: str) -> bool:
    """Whether `from <module> import *` binds `name` on the release `index` describes."""
    facts = index.modules.get(module)
    if facts is None:
        return False
    listed = facts.get("all") if isinstance(facts, dict) else None
    if listed is not None:
        return name in listed and index.lookup(f"{module}.{name}") is not None
    return not name.startswith("_") and index.lookup(f"{module}.{name}") is not None


def star_breaks(baseline: Any, target: Any, usage: dict) -> Iterator[LostName | GoneStar]:
    """The lost names and gone modules of one consumer module's star imports."""
    for star in usage.get("star_imports") or ():
        module, line, uses = star.get("module") or "", star.get("line") or 0, star.get("uses") or {}
        if module not in baseline.modules:
            continue
        given = sorted(n for n in uses if exports(baseline, module, n))
        if not given:
            continue
        if module not in target.modules and target.lookup(module) is None:
            yield GoneStar(module, line, tuple(given))
            continue
        for name in given:
            if not exports(target, module, name):
                yield LostName(module, name, line, uses[name])
