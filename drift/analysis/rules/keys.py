"""Keys as data: string keys written in a dict that reach a target object's attributes through
`setattr`/`hasattr`/`getattr`, or a target callable through `**kwargs` (DRIFT068, DRIFT017).

`overrides = {"old_flag": True}; for k, v in overrides.items(): setattr(engine_args, k, v)` names
an attribute of the target's `EngineArgs` without ever spelling `engine_args.old_flag`; no
pattern sees it. The solved model (drift/consumer/infer.py) follows each literal key from where it
is written, through loops and comprehensions, to the call; a dict filtered through
`inspect.signature(C).parameters` on the way never hands C a key it does not take, and is silent.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, _callable
from drift.analysis.rules.base import rule
from drift.analysis.rules.forwarded import factory_targets_of, forwarder
from drift.analysis.rules.renames import successor_fix
from drift.findings import Finding, Fix, Location, RuleKind, Severity


def _site(use: dict) -> Location:
    return Location(use["path"], use["line"], col=use["col"] + 1, symbol=use["key"])


@rule("DRIFT068", RuleKind.ATTRIBUTE_MISSING, Severity.RISKY)
def key_attribute_missing(ctx: CheckContext) -> Iterator[Finding]:
    """A string key that reaches `setattr`/`hasattr`/`getattr` on a target object, where the
    baseline's class has that attribute and the target's does not: `setattr` now adds an
    attribute nothing reads, `hasattr` is now False, `getattr` raises or falls back."""
    if ctx.baseline_paths is None:
        return
    seen = set()
    recorded = {(mod.get("path"), u.get("line"), (u.get("path") or [""])[-1][1:]) for mod in ctx.usage
                for u in mod.get("uses") or () if u.get("kind") in ("attr_set", "attr")}
    for use in ctx.consumer.inferred.key_uses:
        if use["how"] == "call" or (use["path"], use["line"], use["key"]) in recorded:
            continue  # the patterns follow this key already (DRIFT060/DRIFT062 judge it there)
        path = tuple(use["target"]) + ("." + use["key"],)
        t, b = ctx.target_paths.value(path), ctx.baseline_paths.value(path)
        if t.kind != "missing" or not b.known or b.kind == "consumer" or t.cls is None:
            continue
        key = (use["path"], use["line"], use["key"])
        if key in seen:
            continue
        seen.add(key)
        owner = t.cls.dotted.rsplit(".", 1)[-1]
        where, line, _col = use["site"]
        yield Finding(
            rule_id="DRIFT068", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.RISKY,
            title=f"key `{use['key']}` reaches `{use['how']}()` on `{owner}` ({where}:{line}), which no longer "
                  f"has `{use['key']}`",
            consumer_site=_site(use),
            target_evidence=(Location(t.cls.path, t.cls.line, symbol=t.cls.dotted),),
            baseline_evidence=(Location(*b.evidence, symbol=f"{b.owner.dotted if b.owner else owner}.{use['key']}"),)
            if b.evidence else (),
            predicted_failure=None,
            details={"setattr": "the value is set on an attribute the target no longer reads",
                     "hasattr": "the test is now False", "getattr": "the lookup now fails or takes its default"}
            [use["how"]],
            fix=Fix(f"drop or rename the key `{use['key']}`", manual_reason="what replaced the attribute is the target's"),
            symbol=f"{t.cls.dotted}.{use['key']}",
        )


@rule("DRIFT017", RuleKind.KEYWORD_REMOVED)
def key_keyword_removed(ctx: CheckContext) -> Iterator[Finding]:
    """A string key of a dict passed as `**kwargs` to a target callable that accepted it in the
    baseline and no longer does: Python raises TypeError at the call. Risky when the key may not
    arrive (a comprehension on the way drops some entries, `if v is not None`) or the callee may
    be another object."""
    if ctx.baseline_paths is None:
        return
    seen = set()
    written = {(mod.get("path"), rec.get(at), kw) for mod in ctx.usage for rec in mod.get("calls") or []
               for kw in rec.get("keywords") or () for at in ("line", "call_line")}
    for use in ctx.consumer.inferred.key_uses:
        if use["how"] != "call" or (use["site"][0], use["site"][1], use["key"]) in written:
            continue  # the call's own record has the keyword (a dict the patterns follow): DRIFT010 judges it
        path = tuple(use["target"])
        name = use["key"]
        tsym, tparams, _tat, tctor = _callable(ctx.target, ctx.target_paths.value(path))
        bsym, bparams, bat, bctor = _callable(ctx.baseline, ctx.baseline_paths.value(path))
        if tparams is None or bparams is None:
            continue
        via = None  # the callable's `**kwargs` hands the key on: the class it builds judges it
        if _open(tparams, name) and _open(bparams, name):
            tend = _forwarded_end(ctx.target, tsym, _tat, tctor, name)
            bend = _forwarded_end(ctx.baseline, bsym, bat, bctor, name)
            if tend is None or bend is None:
                continue
            via = tsym.dotted.rsplit(".", 1)[-1]
            (tsym, tparams, _tat), (bsym, bparams, bat) = tend, bend
        if not _takes(bparams, name) or _takes(tparams, name):
            continue
        key = (use["path"], use["line"], name, tsym.dotted)
        if key in seen:
            continue
        seen.add(key)
        label = tsym.dotted.rsplit(".", 1)[-1]
        callee = f"{label}.__init__" if tsym.kind == "class" else label
        where, line, _col = use["site"]
        yield Finding(
            rule_id="DRIFT017", kind=RuleKind.KEYWORD_REMOVED,
            severity=Severity.RISKY if use.get("may") else Severity.BREAKING,
            title=(f"key `{name}` reaches `{label}(**...)` ({where}:{line}), which no longer accepts `{name}=`" if via is None
                   else f"key `{name}` reaches `{via}(**...)` ({where}:{line}), whose **kwargs go to `{label}`, "
                        f"which no longer accepts `{name}=`"),
            consumer_site=_site(use),
            target_evidence=(Location(tsym.path, tsym.line, symbol=tsym.dotted),),
            baseline_evidence=(Location(bsym.path, bsym.line, symbol=bsym.dotted),),
            predicted_failure=f"TypeError: {callee}() got an unexpected keyword argument '{name}'",
            fix=successor_fix(ctx.baseline, bat, name, accepted={p.name for p in tparams if p.kind != "POSITIONAL_ONLY"},
                              callee=label, value=None)
            or Fix(f"drop the key `{name}`", manual_reason="the value may need to go elsewhere"),
            symbol=tsym.dotted,
        )


def _open(params, name: str) -> bool:
    """Whether the callable takes `name` only through its `**kwargs`."""
    return any(p.kind == "VAR_KEYWORD" for p in params) and \
        not any(p.name == name and p.kind != "POSITIONAL_ONLY" for p in params)


def _forwarded_end(index, sym, at, ctor, name: str):  # type: ignore[no-untyped-def]
    """(class, its constructor's parameters, where defined) that a target callable's `**kwargs`
    is handed to whole (`LLM.__init__(self, model, **kwargs)` building `EngineArgs(model=model,
    **kwargs)`, forwarded.py's factories); None when it hands them nowhere drift can name, or
    takes `name` out of them first."""
    ends = factory_targets_of(index, forwarder(sym, at, ctor))
    if not ends or ends[0][0].star_args or name in ends[0][0].drops:
        return None
    cls = ends[0][1]
    cparams, cat = index.constructor(cls)
    return (cls, list(cparams), cat) if cparams is not None else None


def _takes(params, name: str) -> bool:
    return any(p.kind == "VAR_KEYWORD" for p in params) or \
        any(p.name == name and p.kind != "POSITIONAL_ONLY" for p in params)


RULES = [key_attribute_missing, key_keyword_removed]
