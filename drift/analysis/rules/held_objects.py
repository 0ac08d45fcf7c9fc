"""DRIFT099: an object of the consumer's that a target object holds, called by the target's code.

A plugin subclasses a vLLM class and hands it an object of its own to keep: `super().__init__(
model=adapter)`, where the target's `__init__` stores `self.model = model`, or `self.model =
adapter` in the subclass. The target's inherited methods then call that object's methods
(`self.model.encoder_eager_forward(x, path=path)`), so the consumer's class is held to those
calls exactly as an override is, although it extends nothing of the target's: a duck-typed
stand-in for the protocol the target expects. The calls are the target's own call sites of the
method whose receiver is that attribute of `self` in a class the consumer's class inherits
(`held_calls` in the facts), and only those that can run for the consumer's object
(rules/callers.py: a caller the consumer overrides without delegating does not).

Breaking where the target's call no longer fits the consumer's method and the baseline's calls
did not fail that way; risky where every call the target still makes fails and the baseline had a
call that fitted beside one that failed the same way (a path the consumer may never have taken).
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import plural, rule
from drift.analysis.rules.callers import RECEIVER, mro_names, runs_for_consumer
from drift.analysis.paths import strip_annotation
from drift.analysis.rules.override_types import retyped_slots
from drift.analysis.rules.reach import _category, _lookup_method, _module_of, _sig, _site_failure, _sites_of
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol


def _kept_params(index: PackageIndex, bases: list[Symbol]) -> dict[str, str]:
    """{constructor parameter: attribute} for the parameters the target's `__init__` in `bases`'
    MRO stores on `self` as they are (`self.model = model`)."""
    out: dict[str, str] = {}
    for base in bases:
        for cls in index.mro(base):
            for attr, ia in cls.as_class.instance_attrs.items():
                value = ia.value if isinstance(ia.value, str) else ""
                if ia.method == "__init__" and value.startswith("param:"):
                    out.setdefault(value[6:], attr)
    return out


def declared_class(index: PackageIndex, bases: list[Symbol], attr: str) -> Symbol | None:
    """The class the target declares `self.<attr>` of `bases` to hold: the annotation of the
    constructor parameter its `__init__` stores there (`model: SupportsEncoderCudaGraph`), or
    the attribute's own annotation. None when neither names one class."""
    for base in bases:
        for cls in index.mro(base):
            ia = cls.as_class.instance_attrs.get(attr)
            if ia is None:
                continue
            value = ia.value if isinstance(ia.value, str) else ""
            text = None
            if value.startswith("ann:"):
                text = value[4:]
            elif value.startswith("param:") and ia.method in cls.as_class.methods:
                params = cls.as_class.methods[ia.method].params
                text = next((p.annotation for p in params if p.name == value[6:]), None)
            name = strip_annotation(text)
            sym = index.resolve_in(cls.module, name) if name else None
            return sym if sym is not None and sym.kind == "class" else None
    return None


def held_objects(ctx: CheckContext, ref: str, bases: list[Symbol]) -> dict[str, set[str]]:
    """{attribute: consumer classes} of the objects consumer class `ref` hands the target's
    code to keep on `self`: stored by its own methods (`self.model = Adapter(...)`) or passed to
    its target base's constructor as a parameter that constructor keeps."""
    solved = ctx.consumer.inferred
    out: dict[str, set[str]] = {}
    for attr, paths in (solved.attrs.get(ref) or {}).items():
        for p in paths:
            if len(p) == 1 and p[0].startswith("self:"):
                out.setdefault(attr, set()).add(p[0][5:])
    calls = _base_init_calls(ctx).get(ref)
    if not calls:
        return out
    kept = _kept_params(ctx.target, bases)
    short = ref.rsplit(".", 1)[-1]
    for rec in calls:
        if not (rec.get("function") or "").startswith(short + "."):
            continue
        fn = f"{ref.rsplit('.', 1)[0]}.{rec.get('function') or ''}"
        for kw, text in (rec.get("kw_values") or {}).items():
            if kw in kept and isinstance(text, str) and text.isidentifier():
                for cls in solved.method_objects.get(f"{fn}:{text}", ()):
                    out.setdefault(kept[kw], set()).add(cls)
    return out


def _base_init_calls(ctx: CheckContext) -> dict[str, list[dict[str, Any]]]:
    """Consumer class -> its `super().__init__(...)` call records: one scan of the calls per check."""
    hit = ctx.memo.get("held_objects.base_inits")
    if hit is None:
        hit = ctx.memo["held_objects.base_inits"] = {}
        for mod in ctx.usage:
            for rec in mod.get("calls") or []:
                path = rec.get("path") or []
                if (rec.get("callee") or {}).get("via") == "super" and path[-1:] == [".__init__"] \
                        and path[0].startswith("super:"):
                    hit.setdefault(path[0][6:], []).append(rec)
    return hit


def _held_sites(ctx: CheckContext, index: PackageIndex, name: str, inherited: frozenset[str], attr: str,
                *, judge_reach: bool) -> list[list[Any]]:
    """The calls `.name(...)` index's code makes on `self.<attr>` in the classes `inherited`."""
    out = []
    for s in _sites_of(index, name, None) or []:
        if len(s) <= RECEIVER or s[5] not in inherited or s[RECEIVER] != f"self.{attr}":
            continue
        if judge_reach and not runs_for_consumer(ctx, s, lambda n: _sites_of(index, n, None) or []):
            continue
        out.append(s)
    return out


@rule("DRIFT099", RuleKind.OVERRIDE_INCOMPATIBLE)
def held_object_calls(ctx: CheckContext) -> Iterator[Finding]:
    """An object of a consumer class that a target object keeps (`super().__init__(model=mine)`
    into a constructor that sets `self.model = model`, or `self.model = Mine()` in the consumer's
    subclass) has a method the target's inherited code now calls in a way it does not take
    (`self.model.forward(x, path=path)` against the consumer's `forward(self, x)`). Breaking where
    the baseline's calls never failed that way; risky where the baseline also had such a call
    but another it fitted, and the target keeps none it fits. Also breaking: a method keeping the
    baseline's name at a slot the class the target declares for the attribute (`model:
    SupportsX`) renamed and retyped, the outermost types disjoint (`output: Tensor` -> `outputs:
    dict[str, Tensor]`), where the target's call passes that slot by position. A class extending
    a target class is left to DRIFT070 and DRIFT081 (its methods are overrides)."""
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    seen: set[tuple[str, int, str]] = set()
    for ref in ctx.consumer.classes:
        tb = ctx.target_paths.target_bases(ref)
        if not tb:
            continue
        bb = ctx.baseline_paths.target_bases(ref)
        inherited, binherited = mro_names(ctx.target, tb), mro_names(ctx.baseline, bb)
        for attr, held in sorted(held_objects(ctx, ref, tb).items()):
            for cref in sorted(held):
                cls = ctx.consumer.classes.get(cref)
                if cls is None or ctx.target_paths.target_bases(cref):
                    continue
                declared = (declared_class(ctx.target, tb, attr), declared_class(ctx.baseline, bb, attr))
                for name, m in sorted((cls.get("methods") or {}).items()):
                    if name.startswith("__"):
                        continue
                    yield from _judged(ctx, cref, cls, name, m, attr, inherited, binherited, seen)
                    yield from _retyped(ctx, cref, cls, name, m, attr, inherited, declared, seen)


def _judged(ctx: CheckContext, cref: str, cls: dict, name: str, m: dict, attr: str, inherited: frozenset[str],
            binherited: frozenset[str], seen: set) -> Iterator[Finding]:
    label = f"{cls.get('qual') or cref.rsplit('.', 1)[-1]}.{name}"
    sig = _sig(m)
    sites = _held_sites(ctx, ctx.target, name, inherited, attr, judge_reach=True)
    failing = [(s, f) for s in sites if (f := _site_failure(label, sig, s)) is not None]
    if not failing:
        return
    bsites = _held_sites(ctx, ctx.baseline, name, binherited, attr, judge_reach=False)
    before = {_category(_site_failure(label, sig, s)) for s in bsites}
    no_fit_left = len(failing) == len(sites) and any(_site_failure(label, sig, s) is None for s in bsites)
    mod = _module_of(ctx, cls)
    where = Location(mod["path"], m["line"], symbol=f"{cref}.{name}", col=(m.get("col") or 0) + 1)
    for site, failure in failing:
        was = _category(failure) in before
        if (was and not no_fit_left) or (where.path, where.line, failure) in seen:
            continue
        seen.add((where.path, where.line, failure))
        yield Finding(
            rule_id="DRIFT099", kind=RuleKind.OVERRIDE_INCOMPATIBLE,
            severity=Severity.RISKY if was else Severity.BREAKING,
            title=f"`{label}` (held by the target as `self.{attr}`) does not match how the target now calls "
                  f"`self.{attr}.{name}()` ({plural(site[2], 'positional argument')}"
                  f"{', ' + ', '.join(k + '=' for k in site[3]) if site[3] else ''})"
                  + ("; the target no longer calls it in any way it takes" if was else ""),
            consumer_site=where,
            target_evidence=(Location(site[0], site[1], symbol=f"{site[5]}.{site[6]}"),),
            baseline_evidence=tuple(Location(s[0], s[1], symbol=f"{s[5]}.{s[6]}") for s in bsites[:2]),
            predicted_failure=failure,
            fix=Fix(f"make `{label}` take what the target's `{site[6]}` passes it "
                    f"({plural(site[2], 'positional argument')}{''.join(', ' + k + '=' for k in site[3])})",
                    manual_reason="the consumer's object must decide what to do with the new arguments"),
            symbol=f"{site[5]}.{site[6]}",
        )


def _retyped(ctx: CheckContext, cref: str, cls: dict, name: str, m: dict, attr: str, inherited: frozenset[str],
             declared: tuple[Symbol | None, Symbol | None], seen: set) -> Iterator[Finding]:
    """The held object's method keeps the baseline's name at a slot the declared class's method
    renamed and retyped (`output: Tensor` -> `outputs: dict[str, Tensor]`), and a call the target
    makes on `self.<attr>` passes that slot by position and binds: it now hands another kind of
    value (override_types.retyped_slots, as DRIFT081 holds an override)."""
    if declared[0] is None or declared[1] is None:
        return
    tm, bm = _lookup_method(ctx.target, [declared[0]], name), _lookup_method(ctx.baseline, [declared[1]], name)
    if tm is None or bm is None:
        return
    label = f"{cls.get('qual') or cref.rsplit('.', 1)[-1]}.{name}"
    for i, old, new in retyped_slots(_sig(m), tm, bm, outer=True):
        sites = [s for s in _held_sites(ctx, ctx.target, name, inherited, attr, judge_reach=True)
                 if s[2] > i and not s[4] and _site_failure(label, _sig(m), s) is None]
        if not sites:
            return
        mod = _module_of(ctx, cls)
        where = Location(mod["path"], m["line"], symbol=f"{cref}.{name}", col=(m.get("col") or 0) + 1)
        if (where.path, where.line, old.name) in seen:
            return
        seen.add((where.path, where.line, old.name))
        yield Finding(
            rule_id="DRIFT099", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
            title=f"`{label}` (held by the target as `self.{attr}`) takes `{old.name}` ({old.annotation}) where "
                  f"the target's `{sites[0][6]}` now passes `{new.name}: {new.annotation}` "
                  f"(`{tm.dotted.rsplit('.', 2)[-2]}.{name}`)",
            consumer_site=where,
            target_evidence=(Location(sites[0][0], sites[0][1], symbol=f"{sites[0][5]}.{sites[0][6]}"),
                             Location(tm.path, tm.line, symbol=tm.dotted)),
            baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),),
            predicted_failure=None,
            details=f"positional argument {i + 1} binds `{old.name}`; the target's call now passes a "
                    f"`{new.annotation}` there, which the method's body treats as a `{old.annotation}`",
            fix=Fix(f"take `{new.name}: {new.annotation}` in `{label}` as `{tm.dotted.rsplit('.', 2)[-2]}` declares",
                    manual_reason="the body must be rewritten for the new value"),
            symbol=tm.dotted,
        )
        return


RULES = [held_object_calls]
