"""An override that never touches state the target's base now keeps for the method it replaces.

A subclass that rewrites a base method (a scheduler's `schedule`) takes over that method's part of
the base's contract: the state the base's other methods fill and this method drains. The target's
base can start keeping new state: an attribute its `__init__` sets, that an inherited method the
subclass leaves in place fills (`add_request` puts blocked requests into a new `skipped_waiting`
queue), and that the target's own version of the method reads next to state the override also
reads (`while self.waiting or self.skipped_waiting`). An override written against the baseline
reads the old state alone and never runs the base's method: what goes into the new state is never
taken out. Nothing raises; requests wait forever, a cache is never freed.

Every condition is read from the two releases' facts and the consumer's method record
(probes/override_reads.py: the `self.x` an override reads, and whether it runs the base's method
by `super()` or by name), so the rule names no class or attribute of vLLM: the attribute is new in
the target's `__init__` state, the target's method reads it and the baseline's did not, an
inherited method that runs on the object reads it too (base_init.py's `_live_reads`: the consumer
or the target calls it), and the override reads, alone, an attribute the target's method reads on
the same line as the new one. Risky: the override may handle the new state in a way no read shows.
Reported at the override's first read of that partner attribute, where the new state belongs.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.base_init import _init_state, _live_reads
from drift.analysis.rules.reach import _consumer_classes, _consumer_defines, _module_of
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import FunctionFacts
from drift.model.index import PackageIndex, Symbol


def _own_method(index: PackageIndex, base: Symbol, name: str) -> tuple[Symbol, FunctionFacts] | None:
    """The class of `base`'s MRO defining method `name`, and that method's facts."""
    for owner in index.mro(base):
        fn = owner.as_class.methods.get(name)
        if fn is not None:
            return owner, fn
    return None


def _new_state(ctx: CheckContext, base: Symbol, bbase: Symbol, known: set[str]) -> set[str]:
    """Attributes the target's `__init__` chain of `base` sets that the baseline's did not (nor set
    anywhere else on the class), minus what the consumer's class knows by name."""
    before = set(_init_state(ctx.baseline, bbase))
    for owner in ctx.baseline.mro(bbase):
        before |= set(owner.as_class.instance_attrs)
    return {n for n in _init_state(ctx.target, base) if n not in before and n not in known and not n.startswith("__")}


def _calls_on_objects(ctx: CheckContext, ref: str) -> set[str]:
    """Methods the consumer calls on its class's objects: on itself (`self.m()`, `super().m()`) and
    on an instance it builds (`FairQueue().add(x)`, `q = FairQueue(); q.add(x)`): an inherited
    method called there runs on the object the override serves."""
    out = ctx.self_calls(ref)
    root = "sym:" + ref
    for rc in ctx.calls:
        path = (rc.rec.get("callee") or {}).get("path") or []
        if len(path) == 3 and path[0] == root and path[1] == "()" and path[2].startswith("."):
            out.add(path[2][1:])
    return out


def _partners(reads: dict[str, list[int]], attr: str, override_reads: dict[str, int]) -> list[str]:
    """Attributes the target's method reads on a line where it reads `attr`, that the override
    also reads: the state the override still handles, without its new companion."""
    lines = set(reads.get(attr) or ())
    return sorted(y for y, ls in reads.items() if y != attr and y in override_reads and lines & set(ls or ()))


@rule("DRIFT087", RuleKind.OVERRIDE_SKIPS_STATE, Severity.RISKY)
def override_skips_new_state(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer override of a target base's method that neither runs the base's method nor reads
    an attribute the target's base now keeps: set in the target's `__init__` (not the baseline's),
    read by the target's own version of the method (not the baseline's) on a line where it also
    reads an attribute the override reads, and read by an inherited method the consumer leaves in
    place and that runs on its objects. What that inherited method puts there, the override never
    takes out."""
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    for ref, cls, tb, _bb in _consumer_classes(ctx):
        overrides = {n: m for n, m in (cls.get("methods") or {}).items()
                     if isinstance(m.get("self_reads"), dict) and not m.get("hands_on")}
        if not overrides or not tb:
            continue
        skip = _consumer_defines(ctx, ref)
        known = skip | set(cls.get("self_attrs") or {})
        for m in (cls.get("methods") or {}).values():
            known |= set(m.get("self_reads") or {})
        for base in tb:
            bbase = ctx.baseline.lookup(base.dotted)
            if bbase is None or bbase.kind != "class" or base.kind != "class":
                continue
            state = _new_state(ctx, base, bbase, known)
            if state:
                yield from _skipping_overrides(ctx, ref, cls, base, bbase, overrides, state, skip)


def _skipping_overrides(ctx: CheckContext, ref: str, cls: dict, base: Symbol, bbase: Symbol,
                        overrides: dict[str, dict[str, Any]], state: set[str], skip: set[str]) -> Iterator[Finding]:
    live: dict[str, tuple[str, Symbol, int]] | None = None
    for name, rec in sorted(overrides.items()):
        tfound, bfound = _own_method(ctx.target, base, name), _own_method(ctx.baseline, bbase, name)
        if tfound is None or bfound is None:
            continue
        (towner, tfn), (_bo, bfn) = tfound, bfound
        treads, breads = tfn.behaviour.self_reads, bfn.behaviour.self_reads
        mine = rec["self_reads"]
        drained = {x: _partners(treads, x, mine) for x in sorted(state) if x in treads and x not in breads}
        drained = {x: p for x, p in drained.items() if p}
        if not drained:
            continue
        if live is None:
            live = _live_reads(ctx.target, base, skip, _calls_on_objects(ctx, ref), state)
        drained = {x: p for x, p in drained.items() if x in live}
        if drained:
            yield _finding(ctx, ref, cls, name, rec, towner, tfn, drained, live)


def _finding(ctx: CheckContext, ref: str, cls: dict, name: str, rec: dict[str, Any], towner: Symbol,
             tfn: FunctionFacts, drained: dict[str, list[str]], live: dict[str, tuple[str, Symbol, int]]) -> Finding:
    mod = _module_of(ctx, cls)
    short, owner_short = ref.rsplit(".", 1)[-1], towner.dotted.rsplit(".", 1)[-1]
    attrs = sorted(drained)
    partners = sorted({p for ps in drained.values() for p in ps})
    line = min(rec["self_reads"][p] for p in partners)
    first = attrs[0]
    filler, fowner, fline = live[first]
    named = ", ".join(f"`self.{a}`" for a in attrs)
    with_ = ", ".join(f"`self.{p}`" for p in partners)
    evidence = [Location(towner.path, (tfn.behaviour.self_reads.get(first) or [tfn.line])[0],
                         symbol=f"{towner.dotted}.{name}"),
                Location(fowner.path, fline, symbol=f"{fowner.dotted}.{filler}")]
    return Finding(
        rule_id="DRIFT087", kind=RuleKind.OVERRIDE_SKIPS_STATE, severity=Severity.RISKY,
        title=f"`{short}.{name}` replaces `{owner_short}.{name}` but never reads {named}, state the target's "
              f"`{owner_short}` now keeps: its own `{name}` reads it with {with_}, and the inherited "
              f"`{filler}` uses it",
        consumer_site=Location(mod.get("path") or "?", line),
        target_evidence=tuple(evidence),
        baseline_evidence=(),
        predicted_failure=f"no exception: what `{filler}` leaves in {named} is never handled by `{short}.{name}`",
        fix=Fix(f"handle {named} in `{short}.{name}` as the target's `{owner_short}.{name}` does, or call "
                f"`super().{name}()`", manual_reason="the override's logic must take the new state in"),
        symbol=f"{towner.dotted}.{first}",
        details=f"set in the target's `{owner_short}.__init__`, not the baseline's; read by the target's "
                f"`{owner_short}.{name}` and the inherited `{fowner.dotted.rsplit('.', 1)[-1]}.{filler}`",
    )


RULES = [override_skips_new_state]
