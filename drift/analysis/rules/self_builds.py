"""DRIFT085: a target base's method that builds another object of the receiver's own class.

A target class may copy itself: `def clone(self): return self.__class__(num_heads=self.num_heads,
...)` (also `copy`, `with_*` builders). Python builds the receiver's class, so on a consumer
subclass that method runs the consumer's `__init__`, with the arguments the target's base takes.
A subclass whose `__init__` added a required parameter (`__init__(self, layer, num_heads, ...)`)
worked while the target never called such a method on it; once the target's base gains the
method (or passes new arguments) and the target calls it, building the copy fails with the
consumer's own `TypeError`. Nothing in the consumer calls the method, so no signature rule sees it.

Facts used, none new: the probe records `self.__class__(...)` as a call site of `__class__` on
`self` with the class and method it sits in (`call_sites`), and every `.m(...)` call of the
target. Reported at the consumer's `__init__`, breaking when the target calls the method
somewhere; silent when the consumer overrides that method (its own runs), when the subclass's
`__init__` takes the arguments, or when the baseline's same method already failed to build it
(not drift).
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.callers import RECEIVER
from drift.analysis.rules.handed import _method_site
from drift.analysis.rules.reach import _sites_of
from drift.analysis.rules.slots import _binds
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex

_BUILDS_OWN_CLASS = "__class__"  # `self.__class__(...)`, recorded as a call of `__class__` on `self`


def _self_builds(index: PackageIndex, paths, ref: str) -> list[list[Any]]:
    """The target's `self.__class__(...)` sites inside the target classes consumer class `ref`
    extends: [path, line, positional, keywords, star, class, method, receiver]."""
    bases = paths.target_bases(ref) if paths is not None else []
    mro = {s.dotted for b in bases for s in index.mro(b)}
    if not mro:
        return []
    return [s for s in _sites_of(index, _BUILDS_OWN_CLASS, None) or []
            if s[5] in mro and len(s) > RECEIVER and s[RECEIVER] == "self"]


def _fails(init: dict, site: list[Any]) -> bool:
    """Whether the consumer's `__init__` cannot take the arguments the site passes."""
    return not site[4] and not _binds(init.get("params") or [], site[2], set(site[3]))


@rule("DRIFT085", RuleKind.OVERRIDE_INCOMPATIBLE)
def self_build_mismatch(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer subclass's `__init__` cannot take the arguments a target base's inherited
    method now builds `self.__class__(...)` with, and the target calls that method: vLLM's copy
    of the consumer's object fails with TypeError."""
    if ctx.baseline is None or ctx.target_paths is None:
        return
    for ref in sorted(ctx.consumer.classes):
        sites = _self_builds(ctx.target, ctx.target_paths, ref)
        if not sites:
            continue
        found = _method_site(ctx, ref, "__init__")
        if found is None:
            continue
        owner, init = found
        old = _self_builds(ctx.baseline, ctx.baseline_paths, ref)
        for site in sites:
            method = site[6]
            if not method or _method_site(ctx, ref, method) is not None or not _fails(init, site):
                continue  # the consumer's own method runs, or its __init__ takes the arguments
            if any(o[6] == method and _fails(init, o) for o in old):
                continue  # the baseline's copy failed already
            callers = [s for s in _sites_of(ctx.target, method, None) or [] if s[6] != method]
            if not callers:
                continue  # nothing in the target asks for the copy
            crec = ctx.consumer.classes[ref]
            mod = ctx.consumer.modules.get(owner.get("module") or crec["module"]) or {}
            short = crec["qual"].rsplit(".", 1)[-1]
            base = site[5].rsplit(".", 1)[-1]
            given = ", ".join([f"{site[2]} positional"] * bool(site[2]) + [f"{k}=" for k in site[3]])
            yield Finding(
                rule_id="DRIFT085", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
                title=f"`{short}.__init__` cannot take what the target's `{base}.{method}` now builds "
                      f"`self.__class__(...)` with ({given or 'no arguments'})",
                consumer_site=Location(mod.get("path") or "?", init["line"], symbol=f"{ref}.__init__",
                                       col=(init.get("col") or 0) + 1),
                target_evidence=(Location(site[0], site[1], symbol=f"{site[5]}.{method}"),
                                 Location(callers[0][0], callers[0][1], symbol=f".{method}()")),
                predicted_failure=f"TypeError: {short}.__init__() when the target calls `.{method}()` on it",
                fix=Fix(f"override `{method}` in `{crec['qual']}`, or let its `__init__` take the "
                        f"arguments `{base}.{method}` passes",
                        manual_reason="what the copy must carry over is the consumer's own state"),
                symbol=f"{site[5]}.{method}",
                details=f"the target's `{base}.{method}` builds the receiver's own class; on a "
                        f"`{short}` that runs its `__init__`",
            )


RULES = [self_build_mismatch]
