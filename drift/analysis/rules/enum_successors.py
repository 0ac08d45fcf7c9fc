"""The class of constants a removed one gave way to, matched by its members' values.

Why: vLLM replaced `CompilationLevel` (plain class constants NO_COMPILATION = 0 ... PIECEWISE = 3)
by the `CompilationMode` IntEnum (NONE = 0 ... VLLM_COMPILE = 3) in the same module, with no
deprecation shim naming the successor. What ties them is the values: every member of the old
class has exactly one member of the new class with the same literal value, and no other class
there matches. That is strong enough to say the concrete edit (the import and each member), not
to make it: the maintainers also moved the field that held the value (`compilation_config.level`
became `.mode`), which a rename of the class alone would leave comparing and setting the old,
now ignored field. So the answer is a manual edit, said in full. No new facts: the class-level
assignments the probe records (`ClassFacts.attrs`) carry the values.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

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
