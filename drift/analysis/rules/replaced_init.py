"""A consumer function installed as a target class's `__init__` (`Cls.__init__ = new_init`) that
never runs the original: the target's methods it leaves in place now read state only the
target's own `__init__` sets.

Why: a plugin that rewrites how a vLLM object is built replaces its `__init__` wholesale and
sets what the baseline's `__init__` set. When the target's `__init__` starts setting new state
(`self.pp_size`) that the methods the plugin did not replace read, every object built through the
replacement lacks it and those methods fail with AttributeError, although the plugin's own code
reads nothing new. This is DRIFT075's question (a subclass skipping its base's `__init__`) asked of
a replacement: the class's own methods play the inherited ones.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.findings import Location
from drift.model.index import Symbol


def installed_inits(ctx: CheckContext) -> Iterator[tuple[dict[str, Any], dict[str, Any], Symbol, Symbol]]:
    """(consumer module, patch record, target class, baseline class) for each consumer function
    with a signature of its own installed as a target class's `__init__` on a branch the target
    runs, that neither calls an original `__init__` nor takes `*args`/`**kwargs` to hand on."""
    if ctx.baseline_paths is None:
        return
    patches = [(mod, p) for mod in ctx.usage for p in mod.get("patches") or []]
    patches += list(ctx.consumer.helper_patches)
    seen: set[tuple[str, str]] = set()
    for mod, p in patches:
        value = p.get("value")
        if p.get("name") != "__init__" or not p.get("path") or not isinstance(value, dict):
            continue
        fn = value.get("function")
        if not fn or not ctx._stand_in_init(value) or _runs_an_original(mod, fn):
            continue
        tcls = ctx.target_paths.value(tuple(p["path"]))
        bcls = ctx.baseline_paths.value(tuple(p["path"]))
        if tcls.kind != "class" or bcls.kind != "class" or tcls.sym is None or bcls.sym is None:
            continue
        key = (tcls.sym.dotted, f"{mod.get('module')}.{fn}")
        if key not in seen:
            seen.add(key)
            yield mod, p, tcls.sym, bcls.sym


def _runs_an_original(mod: dict[str, Any], fn: str) -> bool:
    """Whether `fn`'s body calls anything `__init__`-like (`orig_init(self, ...)`,
    `Base.__init__(self, ...)`, `super(...).__init__(...)`, `self._original_init(...)`): it then
    builds the target's state itself, or may, and the replacement is not wholesale. A call whose
    name merely contains the word (`self._initialize_kv_caches(...)`, `init_kv_output_aggregator`),
    or a method of the class's own (`self._scale_up_before_kv_init()`), is one more step of the
    copied body, not the original."""
    for rec in mod.get("calls") or []:
        if rec.get("function") != fn and not str(rec.get("function") or "").startswith(fn + "."):
            continue
        src = str(rec.get("callee_src") or "")
        name = src.rsplit(".", 1)[-1].lower()
        if "__init__" in src or (name.endswith("init") and (not src.startswith("self.") or "orig" in name)):
            return True  # `self._eep_scale_up_before_kv_init()` is a method of the class, not the original
    return False


def stored_names(ctx: CheckContext) -> frozenset[str]:
    """Every attribute name the consumer stores on any object anywhere (`x.name = ...`): a name
    the plugin sets somewhere may be set on these objects too, so it is never reported."""
    hit = ctx.memo.get("stored_attr_names")
    if hit is None:
        names = set()
        for mod in ctx.usage:
            for use in mod.get("uses") or []:
                path = use.get("path") or []
                if use.get("kind") == "attr_set" and path and str(path[-1]).startswith("."):
                    names.add(path[-1][1:])
            for p in mod.get("patches") or []:
                if p.get("name"):
                    names.add(p["name"])
        hit = ctx.memo["stored_attr_names"] = frozenset(names)
    return hit


def replaced_names(ctx: CheckContext, cls: Symbol) -> set[str]:
    """Names the consumer installs on the target class `cls` (its methods it replaces)."""
    out = set()
    patches = [p for mod in ctx.usage for p in mod.get("patches") or []]
    patches += [p for _mod, p in ctx.consumer.helper_patches]
    for p in patches:
        if p.get("name") and p.get("path"):
            v = ctx.target_paths.value(tuple(p["path"]))
            if v.kind == "class" and v.sym is not None and v.sym.dotted == cls.dotted:
                out.add(p["name"])
    return out


def self_calls_of(mod: dict[str, Any]) -> set[str]:
    """Methods the module's functions call on a first parameter named `self` (`self.m(...)`
    inside a function installed on a class)."""
    out = set()
    for rec in mod.get("calls") or []:
        path = (rec.get("callee") or {}).get("path") or []
        if len(path) == 2 and str(path[0]).startswith("arg:") and str(path[0]).endswith(":0:self") \
                and path[1].startswith("."):
            out.add(path[1][1:])
    return out


def site_of_init(mod: dict[str, Any], p: dict[str, Any]) -> Location:
    value = p.get("value") or {}
    return Location(mod.get("path") or "?", value.get("line") or p.get("line") or 1)
