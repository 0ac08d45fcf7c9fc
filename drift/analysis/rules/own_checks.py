"""Checks the target deleted from its own code, for a consumer that copied one.

Why: a consumer that copied a function of vLLM's (verl's `_load_adapter` is vLLM 0.11's
`WorkerLoRAManager._load_adapter`) keeps its checks too, such as `if lora.extra_vocab_size >
self.lora_config.lora_extra_vocab_size: raise ValueError(...)`. When vLLM removed the feature those
attributes described, it deleted the check from its own function, and the consumer's copy now
raises AttributeError where it used to guard. The evidence is vLLM's own edit, read from facts
only (`raises`: each raise with the test of its nearest enclosing `if`): a function of the baseline
raised under that very test, reading the removed attribute, and the target's same function (same
module, same qualified name) no longer raises under it. The fix deletes the check
(`drop_check`), only where the consumer's `if` test is that expression and its body only raises.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from drift.analysis.rules.values import _functions
from drift.findings import Location
from drift.model.index import PackageIndex, word

_ATTR = re.compile(r"\.([A-Za-z_]\w*)")


@dataclass(frozen=True)
class DroppedCheck:
    guard: str  # the baseline's `if` test, as written there
    reads: frozenset[str]  # the attribute names the test reads
    function: str  # module.qualname of the function that made the check
    baseline_evidence: Location  # the raise in the baseline


def _build_checks(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[list]]:
    """attribute name -> [[module, qualname, guard, line, path]] of every raise whose guard reads
    `.name` (plain lists: the answer is stored)."""
    out: dict[str, list[list]] = {}
    for mod_name, mod, fn in _functions(index, modules):
        for r in fn.behaviour.raises:
            if not r.guard:
                continue
            for attr in set(_ATTR.findall(r.guard)):
                out.setdefault(attr, []).append([mod_name, fn.qualname or fn.name, r.guard, r.line, mod.path])
    return out


def _checks_reading(index: PackageIndex, attr: str) -> list[list]:
    return index.query("own_checks", attr, needle=word(attr), build=_build_checks, default=[], scoped=True)


def _norm(text: str) -> str | None:
    try:
        return ast.dump(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError):
        return None


def dropped_check(baseline: PackageIndex | None, target: PackageIndex, attr: str) -> DroppedCheck | None:
    """The one check (an `if` test) reading `.attr` under which a function of the baseline raised
    and its target version no longer raises; None when there is none, or several different ones
    (which one the consumer copied is then a guess)."""
    if baseline is None:
        return None
    found: dict[str, DroppedCheck] = {}
    for module, qualname, guard, line, path in _checks_reading(baseline, attr):
        norm = _norm(guard)
        if norm is None or norm in found:
            continue
        sym = target.lookup(f"{module}.{qualname}")
        if sym is None or sym.kind not in ("function", "method"):
            continue  # the function itself went: no edit of vLLM's own to follow
        if any(r.guard and _norm(r.guard) == norm for r in sym.as_function.behaviour.raises):
            continue  # the target still makes the check
        found[norm] = DroppedCheck(guard, frozenset(_ATTR.findall(guard)), f"{module}.{qualname}", Location(path, line, symbol=f"{module}.{qualname}"))
    return next(iter(found.values())) if len(found) == 1 else None
