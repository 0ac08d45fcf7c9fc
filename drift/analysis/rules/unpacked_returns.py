"""DRIFT097: an override's tuple no longer fits how the target's own code unpacks the method's result.

vLLM changes a method's contract by what its callers do with the value as often as by the
signature: a proposer that did `hidden, logits = self.model.forward(...)` now does
`hidden, logits, aux = ...`, or a runner starts unpacking the result of a hook it used to pass on
whole. A consumer override (or subclass method) that returns a tuple literal of the old length
is then unpacked by the target into another number of names, and Python raises at the target's
line (`ValueError: not enough values to unpack (expected 3, got 2)`) whenever the override runs.

Read from two facts: the consumer's `returns_arity` (every `return` of the method hands back a
tuple of one length, probes/reach.py) and the target's `unpacks` (a call `x.m(...)` whose result
is unpacked into N names, directly or through one local, probes/behaviour.py), joined to the
target's call sites of `m` so that only calls the consumer's object can receive count
(callers.py). Breaking when the baseline unpacked the same calls into the override's length
(it worked) and the target unpacks a reachable call into another length; nothing when the
target still has a call unpacking into the override's length too (the method may serve two
callers of different shapes, and the facts cannot tell which one the consumer's object meets).
Risky instead when the baseline never unpacked the result (it passed the tuple on whole): the
override fitted it, but the target's new caller may be one the consumer's object never meets.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.callers import RECEIVER, mro_names, reaches
from drift.analysis.rules.handed import _handed
from drift.analysis.rules.reach import (_consumer_classes, _lookup_method, _module_of, _patch_reaches, _patch_values,
                                        _patches, _sites_of)
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import FunctionFacts, ModuleFacts
from drift.model.index import PackageIndex, Symbol, word


def _unpack_sites(index: PackageIndex, modules=None) -> dict[str, dict[tuple[str, int], list[int]]]:
    """name -> {(path, call line): [names unpacked, unpack line]} over every function's `unpacks`."""
    out: dict[str, dict[tuple[str, int], list[int]]] = {}

    def add(fn: FunctionFacts, path: str) -> None:
        for name, rows in fn.behaviour.unpacks.items():
            bucket = out.setdefault(name, {})
            for row in rows:
                if len(row) >= 3:
                    bucket[(path, row[0])] = [row[1], row[2]]

    for mod_name in index.modules if modules is None else modules:
        mod = ModuleFacts(index.modules[mod_name])
        for fn in mod.every_function():
            add(fn, mod.path)
    return out


def unpacks_of(index: PackageIndex, name: str) -> dict[tuple[str, int], list[int]]:
    """The target's calls `.name(...)` whose result is unpacked, by (path, call line)."""
    return index.query("unpacks.v1", name, needle=word(name), build=_unpack_sites, default={}) or {}


def _counts(ctx: CheckContext, index: PackageIndex, name: str, fits: Callable[[list[Any]], bool] | None
            ) -> dict[int, list[Any]]:
    """names unpacked -> the first [path, unpack line] of the calls of `name` in `index` that
    unpack its result (only those `fits` says the consumer's object can receive, when given)."""
    unpacked = unpacks_of(index, name)
    if not unpacked:
        return {}
    out: dict[int, list[Any]] = {}
    for site in _sites_of(index, name, None) or []:
        hit = unpacked.get((site[0], site[1]))
        if hit is not None and (fits is None or fits(site)):
            out.setdefault(hit[0], [site[0], hit[1]])
    return out


def _finding(ctx: CheckContext, *, label: str, path: str, arity: list[int], tm: Symbol | None,
             bm: Symbol | None, fits: Callable[[list[Any]], bool], how: str = "", name: str = "",
             sure: bool = True, bfits: Callable[[list[Any]], bool] | None = None) -> Finding | None:
    """The finding for a consumer function of `label` standing in for `tm` (or, for a class the
    consumer hands the target, for whatever the target calls `name` on) that returns
    `arity[0]` values, or None when the target's reachable unpacking still fits it. `sure`:
    the target's calls are known to reach the consumer's function (else risky at most).
    `bfits`: which of the baseline's own calls could receive the consumer's object (the same
    receiver test as `fits`, on the baseline's classes): a same-named method of an unrelated
    class the baseline unpacked another way (another runner's `self._prepare_inputs()`) says
    nothing of what the consumer's function had to return."""
    name = tm.dotted.rsplit(".", 1)[-1] if tm is not None else name
    mine = int(arity[0])
    if not any(hit[0] != mine for hit in unpacks_of(ctx.target, name).values()):
        return None  # the target unpacks no call of it into another count: nothing to check
    if bfits is None:
        before = {hit[0]: [path, hit[1]] for (path, _line), hit in sorted(unpacks_of(ctx.baseline, name).items())}
    else:
        before = _counts(ctx, ctx.baseline, name, bfits)
    if not set(before) <= {mine}:
        return None  # the baseline did not hold the override to its own length everywhere
    after = _counts(ctx, ctx.target, name, fits)
    if not after or mine in after:
        return None
    held = bool(before)  # the baseline unpacked it too (else it passed the tuple on whole)
    wanted = min(after)
    tpath, tline = after[wanted]
    if not held and bm is None:
        return None  # nothing says the baseline called the consumer's function at all
    bpath, bline = (before[mine][0], before[mine][1]) if held else (bm.path, bm.line)
    result = f"`{tm.dotted.rsplit('.', 2)[-2]}.{name}`'s result" if tm is not None else f"what its `.{name}(...)` calls return"
    verb = "not enough" if wanted > mine else "too many"  # CPython's words (3.9-3.12) for each
    return Finding(
        rule_id="DRIFT097", kind=RuleKind.OVERRIDE_INCOMPATIBLE,
        severity=Severity.BREAKING if held and sure else Severity.RISKY,
        title=f"`{label}`{how} returns {mine} values, but the target now unpacks {result} "
              f"into {wanted} ({f'it unpacked {mine}' if held else 'it did not unpack it'})",
        consumer_site=Location(path, int(arity[1]), symbol=label, col=1),
        target_evidence=(Location(tpath, tline, symbol=tm.dotted if tm is not None else name),),
        baseline_evidence=(Location(bpath, bline, symbol=bm.dotted if bm is not None else name),),
        predicted_failure=f"ValueError: {verb} values to unpack (expected {wanted}"
                          + (f", got {mine})" if wanted > mine else ")"),
        details=f"the target's own call of `{name}` at {tpath}:{tline} unpacks {wanted} names",
        fix=Fix(f"return {wanted} values from `{label}` as the target's callers of `{name}` now expect",
                manual_reason="what the new values are comes from the override's own logic"),
        symbol=tm.dotted if tm is not None else None,
    )


@rule("DRIFT097", RuleKind.OVERRIDE_INCOMPATIBLE, Severity.BREAKING)
def override_tuple_unpacked_differently(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer method overriding a target method (or a function patched over one) returns a
    K-tuple literal; the baseline's own calls of that method unpacked K names, the target's
    unpack another count: Python raises `ValueError` at the target's line each time vLLM runs
    the consumer's function."""
    if ctx.baseline is None:
        return
    others = lambda n: _sites_of(ctx.target, n, None) or []  # noqa: E731 - callers of callers
    for ref, cls, tb, bb in _consumer_classes(ctx):
        inherited = mro_names(ctx.target, tb)
        for name, m in sorted((cls.get("methods") or {}).items()):
            arity = m.get("returns_arity")
            if not arity or name.startswith("__") or not tb or not bb:
                continue
            tm, bm = _lookup_method(ctx.target, tb, name), _lookup_method(ctx.baseline, bb, name)
            if tm is None or bm is None:
                continue
            declared = tm.dotted.rsplit(".", 1)[0]
            family = mro_names(ctx.baseline, bb)
            found = _finding(ctx, label=f"{cls['qual']}.{name}", path=_module_of(ctx, cls)["path"], arity=arity,
                             tm=tm, bm=bm, fits=lambda s, d=declared: reaches(ctx, s, inherited, d, others),
                             bfits=lambda s, f=family: _self_in(s, f))
            if found is not None:
                yield found
    yield from _handed_findings(ctx)
    for mod, patch in _patches(ctx):
        arity = ((patch.get("value") or {}).get("signature") or {}).get("returns_arity")
        if not arity:
            continue
        tv, bv = _patch_values(ctx, patch)
        if tv is None or bv is None or tv.kind not in ("method", "unbound") or bv.kind not in ("method", "unbound") \
                or tv.sym is None or bv.sym is None:
            continue
        tm = tv.sym
        declared = tm.dotted.rsplit(".", 1)[0]
        found = _finding(ctx, label=patch["value"]["function"], path=mod["path"], arity=arity, tm=tm, bm=bv.sym,
                         how=f" (patched over `{tm.dotted.rsplit('.', 2)[-2]}.{patch['name']}`)",
                         fits=lambda s, d=declared, t=tm: reaches(ctx, s, None, d, others)
                         and _patch_reaches(ctx, s, t.owner),
                         bfits=lambda s, b=bv.sym: _patch_reaches(ctx, s, b.owner, ctx.baseline))
        if found is not None:
            yield found


def _self_in(site: list[Any], family: frozenset[str]) -> bool:
    """Whether a call on `self` (or `super()`) sits in one of `family`'s classes (the MRO of the
    consumer's bases): elsewhere `self` is another class's object. Calls on anything else may
    be made on the consumer's object."""
    recv = site[RECEIVER] if len(site) > RECEIVER else None
    owner = site[5] if len(site) > 5 else None
    return recv not in ("self", "super") or owner is None or owner in family


def _handed_findings(ctx: CheckContext) -> Iterator[Finding]:
    """Classes the consumer hands the target (a registered model, a class named to a factory)
    that extend no target class: the target calls their methods on objects it holds, never as
    `self`, so its calls of `.m(...)` on anything else may be calls of theirs. Risky: the
    receiver is not known to be the consumer's object."""
    for ref, cls in _handed(ctx):
        if ctx.target_paths.target_bases(ref):
            continue  # an override: held to its base's callers above
        for name, m in sorted((cls.get("methods") or {}).items()):
            arity = m.get("returns_arity")
            if not arity or name.startswith("__"):
                continue
            found = _finding(ctx, label=f"{cls['qual']}.{name}", path=_module_of(ctx, cls)["path"], arity=arity,
                             tm=None, bm=None, name=name, sure=False,
                             fits=lambda s: (s[RECEIVER] if len(s) > RECEIVER else None) not in ("self", "super"))
            if found is not None:
                yield found


RULES = [override_tuple_unpacked_differently]
