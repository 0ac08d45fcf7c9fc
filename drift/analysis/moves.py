"""Where a name the consumer used lives now: a move only to a compatible definition.

Shared by the import rule (the fix hint) and the path evaluator (the consumer's later uses of a
moved class are checked against its new definition, so a move and a dropped keyword are both
reported).
"""

from __future__ import annotations

from typing import Any

from drift.model.facts import ClassFacts
from drift.model.index import Symbol


def moved_to(ctx: Any, target: str, base: Symbol | None) -> tuple[str | None, tuple[str, str] | None]:
    """Where the name lives now, only when the definition there is compatible with the one the
    consumer imported (same kind; a class keeps most of its methods, a function its parameters).
    Otherwise (None, (where, kind)) names the same-named definition with a different API."""
    name = target.rsplit(".", 1)[-1]
    old_module = target.rsplit(".", 1)[0]
    candidates = [d for d in ctx.target.definitions_named(name) if d != target]
    if not candidates:
        return None, None
    old_parts = old_module.split(".")

    def shared(d: str) -> int:
        n = 0
        for x, y in zip(d.split("."), old_parts):
            if x != y:
                break
            n += 1
        return n
    candidates.sort(key=lambda d: (-shared(d), len(d)))
    if base is None:
        return candidates[0], None
    for d in candidates:
        sym = ctx.target.lookup(d)
        if sym is None:
            continue
        if compatible(base, sym, (ctx.baseline, ctx.target)):
            return d, None
    sym = ctx.target.lookup(candidates[0])
    return None, (candidates[0], sym.kind if sym else "definition")


def compatible(old: Symbol, new: Symbol, indexes: tuple[Any, Any] | None = None) -> bool:
    """Whether a consumer of `old` can use `new` unchanged enough to be told "it moved there".
    `indexes` (the baseline's and the target's): TypedDicts are compared by their keys over the
    MRO (`same_dict_keys`)."""
    if old.kind != new.kind:
        return False
    keyed = same_dict_keys(old, new, indexes)
    if keyed is not None:
        return keyed
    if old.kind == "class":
        before, after = _public_members(old.as_class), _public_members(new.as_class)
        return not before or len(before & after) * 2 >= len(before)
    if old.kind == "function":
        before = [p.name for p in old.as_function.param_facts]
        after = new.as_function.param_facts
        names = {p.name for p in after}
        return all(p in names for p in before) or any(p.kind == "VAR_KEYWORD" for p in after)
    if old.kind == "name":  # a constant or alias: only a move within the same subpackage is believable
        return old.module.rsplit(".", 1)[0] == new.module.rsplit(".", 1)[0] or new.module.startswith(old.module)
    return True


def same_object(old: Symbol, new: Symbol) -> bool:
    """Whether `new` is `old` changed rather than another object of that name, for comparing a
    moved definition with its new home (`drift diff`): a class that kept most public members,
    a function that kept half its parameters or takes **kwargs. Looser than `compatible` for
    functions: a moved function that dropped a parameter is the change to report, not a
    reason to stop."""
    if old.kind != new.kind:
        return False
    if old.kind == "function":
        before = {p.name for p in old.as_function.param_facts}
        after = new.as_function.param_facts
        kept = before & {p.name for p in after}
        return not before or len(kept) * 2 >= len(before) or any(p.kind == "VAR_KEYWORD" for p in after)
    return compatible(old, new)


def _public_members(cls: ClassFacts) -> set[str]:
    """Public method names and every field name: what a consumer of the class is likely to use."""
    return {m for m in cls.methods if not m.startswith("_")} | {f.name for f in cls.fields}


def typeddict_keys(index: Any, cls: Symbol) -> dict[str, bool] | None:
    """A TypedDict's keys over its MRO, each with whether it is required (its annotation is not
    `NotRequired[...]`; a `total=False` class is not told apart, so its keys count as required,
    the cautious side); None when `cls` is not a TypedDict in `index`."""
    if index is None or cls.kind != "class" or not index.is_typeddict(cls):
        return None
    keys: dict[str, bool] = {}
    for owner in reversed(index.mro(cls)):
        for f in owner.as_class.fields:
            text = (f.annotation or "").replace(" ", "")
            keys[f.name] = not text.split("[", 1)[0].rsplit(".", 1)[-1] == "NotRequired"
    return keys


def same_dict_keys(old: Symbol, new: Symbol, indexes: tuple[Any, Any] | None) -> bool | None:
    """For two TypedDicts: whether `new` takes every key `old` took and requires none it did not
    require. None when either is not a TypedDict (or no indexes are given).

    Why: a TypedDict is a plain dict at run time, so importing it from a new home changes nothing
    the consumer's code does as long as its keys are still keys; its fields may have moved to a
    base (vLLM 0.28's `TokensPrompt(_PromptOptions)` inherits the multimodal keys 0.12's declared),
    so the keys are read over the MRO, and a new optional key is not a change for the consumer."""
    if indexes is None:
        return None
    before, after = typeddict_keys(indexes[0], old), typeddict_keys(indexes[1], new)
    if before is None or after is None:
        return None
    return set(before) <= set(after) and all(before.get(k, False) or not req for k, req in after.items())


def identical_api(old: Symbol, new: Symbol, indexes: tuple[Any, Any] | None = None) -> bool:
    """Whether `new` offers exactly `old`'s API: a move, not a change (a function with the same
    parameters, kinds and defaults; a class with the same public members and `__init__`).

    Why: importing such a name from its new home cannot change what the consumer's code does,
    so `drift patch` may rewrite the import as a safe fix. With `indexes`, two TypedDicts are
    compared by `same_dict_keys`."""
    if old.kind != new.kind or old.kind not in ("class", "function"):
        return False
    keyed = same_dict_keys(old, new, indexes)
    if keyed is not None:
        return keyed

    def params(fn) -> list[tuple]:  # type: ignore[no-untyped-def]
        return [(p.name, p.kind, p.default) for p in fn.param_facts]

    if old.kind == "function":
        return params(old.as_function) == params(new.as_function)
    a, b = old.as_class, new.as_class
    if _public_members(a) != _public_members(b):
        return False
    ia, ib = a.methods.get("__init__"), b.methods.get("__init__")
    return (ia is None) == (ib is None) and (ia is None or params(ia) == params(ib))
