"""The class of constants a removed one gave way to, matched by its members' values.

Why: vLLM replaced `CompilationLevel` (plain class constants NO_COMPILATION = 0 ... PIECEWISE = 3)
by the `CompilationMode` IntEnum (NONE = 0 ... VLLM_COMPILE = 3) in the same module, with no
deprecation shim naming the successor. What ties them is the values: every member of the old
class has exactly one member of the new class with the same literal value, and no other class
there matches. The maintainers also moved the field that held the value (`compilation_config.level`
became `.mode`), which a rename of the class alone would leave comparing and setting the old,
now ignored field: `successor_field` finds that field by its types, and DRIFT001's
`rename_constants_class` writes both (safe only where the target's own modules made the same
switch, `own_imports.own_successor_imports`). No new facts: the class-level assignments the probe
records (`ClassFacts.attrs`) carry the values.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from drift.analysis.context import CheckContext
from drift.model.facts import ClassFacts, ModuleFacts
from drift.model.index import PackageIndex, Symbol


@dataclass(frozen=True)
class EnumSuccessor:
    dotted: str  # the successor class, where the target defines it
    importable: str  # the module the consumer imports it from (the old import's, when it re-exports it)
    members: dict[str, str]  # old member -> new member of the same value
    value_types: frozenset[str]  # the builtin types of the values ("int", "str")


def _literal_members(cls: ClassFacts) -> dict[str, object]:
    """Public class-level names bound to an int or str literal."""
    out: dict[str, object] = {}
    for name, rec in cls.attrs.items():
        if name.startswith("_") or rec.value is None:
            continue
        try:
            value = ast.literal_eval(rec.value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if type(value) in (int, str):
            out[name] = value
    return out


def enum_successor(target: PackageIndex, base: Symbol, module: str) -> EnumSuccessor | None:
    """The one class in the target, in the module that defined the removed class `base` or in the
    module it was imported from, whose literal members map one to one onto `base`'s by value;
    None when there is none, or more than one (two of them would be a guess)."""
    if base.kind != "class":
        return None
    old = _literal_members(base.as_class)
    values = list(old.values())
    if len(old) < 2 or len(set(values)) != len(values):
        return None
    short = base.dotted.rsplit(".", 1)[-1]
    found: dict[str, dict[str, str]] = {}
    for mod_name in dict.fromkeys((base.module, module)):
        if mod_name not in target.modules:
            continue
        for cname, cls in ModuleFacts(target.modules[mod_name]).classes.items():
            if cname == short:
                continue
            new = _literal_members(cls)
            by_value = {v: k for k, v in new.items()}
            if len(by_value) != len(new) or set(by_value) != set(values):
                continue
            found[f"{mod_name}.{cname}"] = {k: by_value[v] for k, v in old.items()}
    if len(found) != 1:
        return None
    ((dotted, members),) = found.items()
    name = dotted.rsplit(".", 1)[-1]
    importable = module if target.lookup(f"{module}.{name}") is not None else dotted.rsplit(".", 1)[0]
    return EnumSuccessor(dotted, importable, members, frozenset(type(v).__name__ for v in values))


def successor_field(ctx: CheckContext, path: tuple[str, ...], new: str,
                     value_types: frozenset[str]) -> tuple[str, str, str, str] | None:
    """(field read, its successor, class, successor's annotation) when `path` ends at a field of a
    target class that declares exactly one other field whose annotation names class `new`, and the
    baseline typed the field read with the old constants' own builtin type."""
    v = ctx.target_paths.value(path)
    owner = v.owner if v.owner is not None else None
    if owner is None or owner.kind != "class" or v.via != "field":
        return None
    attr = path[-1][1:]
    typed = [f for f in owner.as_class.fields if f.name != attr and f.annotation
             and new in re.findall(r"[A-Za-z_]\w*", f.annotation)]
    mine = next((f for f in owner.as_class.fields if f.name == attr), None)
    if len(typed) != 1 or mine is None or (mine.annotation and new in (mine.annotation or "")):
        return None
    # the field held the old constants themselves: the baseline typed it with a plain builtin
    # (`level: Optional[int]`), not another class (`cudagraph_mode: Optional[CUDAGraphMode]`)
    was = ctx.baseline.lookup(owner.dotted) if ctx.baseline is not None else None
    old = next((f for f in was.as_class.fields if f.name == attr), None) if was is not None and was.kind == "class" else None
    words = set(re.findall(r"[A-Za-z_]\w*", (old.annotation or "") if old is not None else ""))
    if not words or not words <= _PLAIN or not words & value_types:
        return None
    return attr, typed[0].name, owner.dotted.rsplit(".", 1)[-1], typed[0].annotation or ""


_PLAIN = frozenset({"int", "str", "None", "Optional", "Union", "typing"})
