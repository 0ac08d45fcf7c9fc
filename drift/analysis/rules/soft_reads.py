"""Attributes read with a fallback that the target no longer has: the fallback silently wins.

`getattr(self, "enable_caching", False)` or `if hasattr(runner, "_allocate_kv_cache_tensors"):`
never raise. When the baseline's object had the attribute and the target's does not, the code
keeps running on the default: a feature turns off, a patch is skipped. No traceback points at
it, which is why it is worth a line in the report. It is risky, not breaking: the consumer
chose a default, so drift cannot say the default is wrong, only that it now always applies.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.paths import Value
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _show
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, def_of, functions_in, word


def _receiver(prev: Value, missing: Value) -> str:
    """How the report names the object: the consumer's class for `self`, else the target's."""
    if prev.kind == "consumer":
        return (missing.cls.dotted if missing.cls is not None else prev.cref or "self").rsplit(".", 1)[-1]
    return prev.describe().rsplit(".", 1)[-1]


def _where(v: Value) -> Location | None:
    if v.evidence and v.evidence[0]:
        owner = v.owner or v.sym
        return Location(v.evidence[0], v.evidence[1] or 1, symbol=owner.dotted if owner is not None else None)
    return None


@rule("DRIFT065", RuleKind.ATTRIBUTE_MISSING, Severity.RISKY)
def soft_read_missing(ctx: CheckContext) -> Iterator[Finding]:
    """`getattr(obj, "x", default)` or `hasattr(obj, "x")` on a target object (or `self` in code
    the consumer copies onto a target class) where the baseline had `x` and the target has not:
    the default (or False) now always applies.

    The object is typed as every other reach path is; the target's class must be fully known
    (no `__getattr__`, no base drift cannot see), so "no longer has" really means it. A chain of
    such reads (`getattr(getattr(self, "manager", None), "coordinator", None)`) keeps its type
    through each soft step wherever the names are there; where a step's own name is gone, what
    follows holds the consumer's default, so only that step's read is reported, never a read
    further down the chain."""
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod in ctx.usage:
        for rec in mod.get("uses") or []:
            if rec.get("kind") != "attr_soft" or len(rec.get("path") or ()) < 2:
                continue
            path = rec["path"]
            k = len(path) - 1
            t, b = ctx.target_paths.steps(path)[k], ctx.baseline_paths.steps(path)[k]
            tprev = ctx.target_paths.steps(path)[k - 1]
            if t.kind != "missing" or not b.known or b.kind == "consumer":
                continue
            on_self = tprev.kind == "consumer" and tprev.ckind in ("instance", "super") and t.cls is not None
            if not on_self and tprev.kind not in ("instance", "class", "module"):
                continue
            key = (mod.get("path"), rec["line"], tuple(path))
            if key in seen:
                continue
            seen.add(key)
            name = path[k][1:]
            owner = _receiver(tprev, t)
            how = rec.get("how")
            outcome = (f"`hasattr(..., {name!r})` is now always False" if how == "hasattr"
                       else f"`getattr(..., {name!r}, default)` now always returns the default")
            cls = t.cls or (tprev.sym if tprev.kind in ("class", "module") else tprev.cls)
            yield Finding(
                rule_id="DRIFT065", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.RISKY,
                title=f"`{owner}.{name}` is no longer there: {outcome}",
                consumer_site=site_of(mod, rec),
                target_evidence=(Location(cls.path, cls.line or 1, symbol=cls.dotted),) if cls is not None else (),
                baseline_evidence=(_where(b),),
                predicted_failure=f"no exception: {outcome}, so the code on that path behaves as if the "
                                  f"feature were absent",
                fix=Fix(f"find what replaced `{name}` in the target and read that",
                        manual_reason="the default hides the change; the replacement needs reading the target"),
                symbol=f"{cls.dotted}.{name}" if cls is not None else name,
                details=f"read with a fallback ({how}) as {' '.join(_show(p) for p in path)}",
            )


def _defines_anywhere(index: PackageIndex, name: str) -> bool:
    """Whether any module of the package gives something the member or name `name`: a function
    or method, a class attribute, field or attribute set on self, a nested class, a module name.
    Over sources a mention of the word counts (no module is parsed: a probe for a common name such
    as `weight` is answered by the text search alone); over a host's facts each module is read."""
    if index.has_sources:
        return bool(index.modules_mentioning(word(name)))
    return bool(index.query("defined_names.v1", name, needle=word(name), build=_defined_names, default=False))


def _defined_names(index: PackageIndex, modules) -> dict[str, bool]:
    """{name: True} for every name `modules` define or give a class (a query's build: over a
    host's facts one pass over the whole package, kept per digest)."""
    out: dict[str, bool] = {}
    for mod_name in modules:
        mod = ModuleFacts(index.modules[mod_name])
        out.update(dict.fromkeys([*mod.functions, *mod.classes, *mod.names], True))
        stack = list(mod.classes.values())
        while stack:
            c = stack.pop()
            out.update(dict.fromkeys([*c.methods, *c.attrs, *c.instance_attrs, *c.nested], True))
            out.update(dict.fromkeys((f.name for f in c.fields), True))
            stack.extend(c.nested.values())
    return out


def _vanished(ctx: CheckContext, name: str) -> Location | None:
    """Where the baseline defines `name` as a function or method, when nothing of the target
    defines the name at all; None otherwise (memoised per check)."""
    memo = ctx.memo.setdefault("soft_reads.vanished", {})
    if name not in memo:
        memo[name] = None
        if _defines_anywhere(ctx.target, name):
            return None
        for mod_name, mod, owner, fn in functions_in(ctx.baseline, ctx.baseline.modules_mentioning(def_of(name))):
            if fn.name == name:
                memo[name] = Location(mod.path, fn.line or 1, symbol=f"{owner or mod_name}.{name}")
                break
    return memo[name]


@rule("DRIFT138", RuleKind.ATTRIBUTE_MISSING, Severity.RISKY)
def soft_read_vanished(ctx: CheckContext) -> Iterator[Finding]:
    """`hasattr(obj, "x")` or `getattr(obj, "x", default)` on an object drift cannot type, where
    the baseline defines a method or function `x` and nothing of the target defines `x` at all
    (ms-swift's `hasattr(mapper, "get_unstacked_mapper")` after vLLM renamed `WeightsMapper`'s
    method): whatever the object is, no class of the target gives it `x`, so the probe is False (or
    the default) on the target. Only names the baseline defines count: a probe for a feature of a
    release newer than both (defined in neither) is the consumer's own forward check."""
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod in ctx.usage:
        for rec in mod.get("uses") or []:
            path = rec.get("path") or ()
            if rec.get("kind") != "attr_soft" or len(path) < 2 or not str(path[-1]).startswith("."):
                continue
            name = str(path[-1]).lstrip(".?")
            if len(name) < 4 or name.startswith("__"):
                continue
            tsteps = ctx.target_paths.steps(path)
            if tsteps[-1].kind == "missing" or tsteps[-1].known:
                continue  # typed: DRIFT065 judges it on the object's own class
            key = (mod.get("path"), rec["line"], name)
            if key in seen:
                continue
            seen.add(key)
            where = _vanished(ctx, name)
            if where is None:
                continue
            how = rec.get("how")
            outcome = (f"`hasattr(..., {name!r})` is now always False" if how == "hasattr"
                       else f"`getattr(..., {name!r}, default)` now always returns the default")
            yield Finding(
                rule_id="DRIFT138", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.RISKY,
                title=f"`{name}` is gone from the target: {outcome}",
                consumer_site=site_of(mod, rec),
                baseline_evidence=(where,),
                predicted_failure=f"no exception: {outcome}",
                fix=Fix(f"find what replaced `{where.symbol}` in the target and probe for that",
                        manual_reason="the probe hides the change; the replacement needs reading the target"),
                symbol=where.symbol,
                details=f"read with a fallback ({how}) as {' '.join(_show(p) for p in path)}; the baseline defines "
                        f"`{where.symbol}`, and no module of the target mentions `{name}`",
            )


RULES = [soft_read_missing, soft_read_vanished]
