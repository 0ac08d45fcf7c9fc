"""An attribute the consumer assigns that the target made a read-only property.

vLLM 0.24 turned `KVCacheBlock.block_hash` into a property with no setter (the value is now set
through `set_block_hash(...)`), so a plugin's `block.block_hash = h` raises where it used to work.
The consumer's assignments are typed paths like its reads (`attr_set` uses: `blk.block_hash` on a
block taken from `coordinator.get_blocks(...)[gid][i]`, `self.x` in a subclass); each is
evaluated in both releases, and the probe records which properties have a `@x.setter`.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.paths import UNKNOWN, Value
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _consumer_classes, _consumer_defines, _module_of


def _read_only(index: PackageIndex, v: Value, name: str) -> bool:
    if v.via != "property" or v.owner is None:
        return False
    if any("__setattr__" in o.as_class.methods for o in index.mro(v.owner)):
        return False  # the class decides assignments itself
    getter = v.owner.as_class.methods.get(name)
    return getter is None or not getter.setter


def _holder_name(prev: Value) -> str | None:
    if prev.kind == "instance" and prev.cls is not None:
        return prev.cls.dotted.rsplit(".", 1)[-1]
    if prev.kind == "consumer" and prev.ckind in ("instance", "super") and prev.cref:
        return prev.cref.rsplit(".", 1)[-1]
    return None


def _inherited(ctx: CheckContext, tb: list, bb: list, name: str) -> tuple[Value, Value]:
    """`name` as the consumer class's one target base defines it, in the target and the baseline."""
    t = ctx.target_paths._member(tb[0], name, on_class=False) if len(tb) == 1 else UNKNOWN
    if t.via != "property":
        return t, UNKNOWN  # nothing to compare: the target's is no property
    return t, ctx.baseline_paths._member(bb[0], name, on_class=False) if len(bb) == 1 else UNKNOWN


@rule("DRIFT067", RuleKind.PROPERTY_READ_ONLY)
def property_read_only(ctx: CheckContext) -> Iterator[Finding]:
    """An assignment `obj.x = v` (or `self.x = v` in a subclass) where the target's class now
    defines `x` as a property without a setter, and the baseline's `x` could be assigned (a
    plain attribute, a field, a property with a setter, or nothing: the instance took it). A
    class with its own `__setattr__` is left alone.
    """
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod in ctx.usage:
        for rec in mod.get("uses") or []:
            path = rec.get("path") or []
            if rec.get("kind") != "attr_set" or len(path) < 2 or not path[-1].startswith("."):
                continue
            name = path[-1][1:]
            tv, bv = ctx.target_paths.steps(path), ctx.baseline_paths.steps(path)
            t, b = tv[-1], bv[-1]
            if not _read_only(ctx.target, t, name):
                continue
            if b.kind in ("consumer", "unknown") or _read_only(ctx.baseline, b, name):
                continue
            holder = _holder_name(tv[-2])
            key = (mod.get("path"), rec.get("line"), name)
            if holder is None or key in seen:
                continue
            seen.add(key)
            yield _finding(ctx, mod, site_of(mod, rec), t, b, name, holder)
    for ref, cls, tb, bb in _consumer_classes(ctx):  # `self.x = v` in a subclass (the probe's self_attrs)
        attrs = cls.get("self_attrs") or {}
        if not attrs or len(tb) != 1:
            continue
        own = _consumer_defines(ctx, ref)  # a property of the consumer's own decides for itself
        for name, rec in sorted(attrs.items()):
            if name in own:
                continue
            t, b = _inherited(ctx, tb, bb, name)
            if not _read_only(ctx.target, t, name) or b.kind in ("consumer", "unknown") \
                    or _read_only(ctx.baseline, b, name):
                continue
            mod = _module_of(ctx, cls)
            yield _finding(ctx, mod, Location(mod.get("path") or "?", rec.get("line") or cls.get("line") or 1),
                           t, b, name, ref.rsplit(".", 1)[-1])


def _finding(ctx: CheckContext, mod: dict, site: Location, t: Value, b: Value, name: str, holder: str) -> Finding:
    owner = t.owner
    methods = owner.as_class.methods
    getter = methods.get(name)
    setters = sorted(m for m in methods if m.startswith("set_") and name in m)
    return Finding(
        rule_id="DRIFT067", kind=RuleKind.PROPERTY_READ_ONLY,
        severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=f"`{owner.dotted.rsplit('.', 1)[-1]}.{name}` is now a read-only property; the consumer assigns it",
        consumer_site=site,
        target_evidence=(Location(owner.path, getter.line if getter is not None else owner.line,
                                  symbol=f"{owner.dotted}.{name}"),),
        baseline_evidence=(Location(b.evidence[0], b.evidence[1] or 1, symbol=f"{b.owner.dotted}.{name}"),)
        if b.evidence and b.evidence[0] and b.owner is not None else (),
        predicted_failure=f"AttributeError: property '{name}' of '{holder}' object has no setter",
        fix=Fix(f"call `{setters[0]}(...)` instead" if setters else f"stop assigning `{name}`",
                manual_reason="the setter method's arguments are the target's choice"),
        symbol=f"{owner.dotted}.{name}",
        details=f"the target sets it through `{setters[0]}`" if setters else None,
    )


RULES = [property_read_only]
