"""Arguments that reach a target callable through someone else's `*args` / `**kwargs`.

Two ways a caller's keywords land in a callable it never names:

- the consumer's own pass-through: `class Mine(Target): def __init__(self, *args, **kwargs):
  super().__init__(*args, **kwargs)`; every `Mine(...)` in the consumer is really a call of
  `Target.__init__` with what is left after `Mine.__init__` took its own parameters (and popped
  or set keys of the dict);
- the target's own: a factory `def get_x(spec, **kwargs): return cls(spec, **kwargs)` hands the
  consumer's keywords to the class it builds (named by the call, or by the factory's return
  annotation when the class is chosen at run time); so does a target class's `__init__(self,
  model, **kwargs)` that builds `EngineArgs(model=model, **kwargs)` (`LLM(..., k=v)`).

DRIFT015 reports a keyword the consumer passes that the callable at the end no longer accepts
(at the keyword, where it is written); DRIFT016 a parameter the callable now requires that no
caller's keywords supply (at the forwarding call for the consumer's pass-through: that is where
Python raises; at the consumer's call for a target factory).
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext, ResolvedCall, site_of
from drift.analysis.paths import strip_annotation
from drift.model.facts import KwargsForward
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Param, Symbol
from drift.analysis.rules.base import error_call_name, rule
from drift.analysis.rules.fix_tiers import drop_keyword_fix, gone_value_types, removal_gated_tier
from drift.analysis.rules.renames import successor_fix

_POS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _accepts(params: list[Param], kw: str) -> bool:
    return any(p.kind == "VAR_KEYWORD" for p in params) or any(p.name == kw and p.kind != "POSITIONAL_ONLY"
                                                              for p in params)


def _uncovered(params: list[Param], positional: int, keywords: set[str]) -> list[Param]:
    slots = [p for p in params if p.kind in _POS]
    covered = {p.name for p in slots[:positional]} | keywords
    return [p for p in params if p.required and p.name not in covered]


def _bind(params: list[list[Any]], rec: dict[str, Any], *, known_keys: bool = False) -> tuple[int, list[str]] | None:
    """What a call `rec` leaves for a signature's `*args` / `**kwargs`: (extra positional count,
    keywords no named parameter takes); None when the call's own stars hide what it passes.
    With `known_keys`, a call's `**d` hides nothing of the keys written into d that drift knows
    (`**self.args`): they are passed, whatever else d holds."""
    if rec.get("star_args") or (rec.get("star_kwargs") and not known_keys):
        return None
    slots = [n for n, k, _d in params if k in _POS]
    named = {n for n, k, _d in params if k not in ("VAR_POSITIONAL", "VAR_KEYWORD", "POSITIONAL_ONLY")}
    extra = max(rec.get("positional", 0) - len(slots), 0)
    return extra, [k for k in rec.get("keywords") or [] if k not in named]


def _init_owner(ctx: CheckContext, cref: str, seen: set[str] | None = None) -> str | None:
    """The consumer class whose own `__init__` runs when `cref` is built (itself or a consumer base)."""
    seen = seen if seen is not None else set()
    cls = ctx.consumer.classes.get(cref)
    if cls is None or cref in seen:
        return None
    seen.add(cref)
    if "__init__" in (cls.get("methods") or {}):
        return cref
    for b in cls.get("bases") or []:
        if not b:
            continue
        v = ctx.target_paths.value(tuple(b))
        if v.kind == "consumer" and v.ckind == "class":
            return _init_owner(ctx, v.cref or "", seen)
        if v.kind == "class":
            return None  # a target base's __init__ runs first
    return None


def _builders(ctx: CheckContext) -> dict[str, list[tuple[dict, dict]]]:
    """consumer class whose `__init__` runs -> [(module, call record)] of the consumer's `Cls(...)`."""
    memo = ctx.memo.get("forwarded.builders")
    if memo is not None:
        return memo
    out: dict[str, list[tuple[dict, dict]]] = {}
    for mod in ctx.usage:
        for rec in mod.get("calls") or []:
            path = (rec.get("callee") or {}).get("path") or rec.get("path")
            if not path or len(path) != 1 or rec.get("args") is None:
                continue
            v = ctx.target_paths.value(tuple(path))
            if v.kind != "consumer" or v.ckind != "class":
                continue
            owner = _init_owner(ctx, v.cref or "")
            if owner:
                out.setdefault(owner, []).append((mod, rec))
    ctx.memo["forwarded.builders"] = out
    return out


def _pass_throughs(ctx: CheckContext) -> Iterator[tuple[ResolvedCall, str, dict, dict, int, list[str]]]:
    """(the forwarding call resolved, its class, a consumer call building the class and its
    module, positional count and keywords the forwarding call passes on for it)."""
    for rc in ctx.calls:
        fwd = rc.rec.get("forwards")
        fn = rc.rec.get("function") or ""
        if not fwd or not fn.endswith(".__init__") or rc.target_params is None:
            continue
        cref = f"{rc.module.get('module')}.{fn[: -len('.__init__')]}"
        init = ((ctx.consumer.classes.get(cref) or {}).get("methods") or {}).get("__init__")
        if init is None:
            continue
        params = (init.get("params") or [])[1:]
        for mod, call in _builders(ctx).get(cref, []):
            bound = _bind(params, call)
            if bound is None:
                continue
            extra, rest = bound
            if (extra and not fwd.get("args")) or (rest and not fwd.get("kwargs")):
                continue  # the consumer's own __init__ rejects the call: not the target's drift
            keys = [k for k in rest if k not in (fwd.get("drops") or [])]
            yield rc, cref, mod, call, rc.rec["positional"] + (extra if fwd.get("args") else 0), keys


def factory_targets_of(index, fn: Symbol | None) -> list[tuple[KwargsForward, Symbol]]:
    """(forwarding record, class it builds) for a target function of `index` handing its
    `**kwargs` on."""
    if fn is None or index is None:
        return []
    node = fn.as_function
    out = []
    for fwd in node.behaviour.kwargs_into:
        cls = index.resolve_in(fn.module, fwd.callee) if fwd.callee else None
        if (cls is None or cls.kind != "class") and fwd.returned:
            text = strip_annotation(node.returns)
            cls = index.resolve_in(fn.module, text) if text else None
        if cls is not None and cls.kind == "class":
            out.append((fwd, cls))
    return out


def forwarder(callee: Symbol | None, params_at: Symbol | None, is_constructor: bool) -> Symbol | None:
    """The function whose body hands the call's `**kwargs` on: the callee itself, or for a
    construction the `__init__` its parameters come from (`LLM(..., k=v)` whose `__init__(self,
    model, **kwargs)` builds `EngineArgs(model=model, **kwargs)`: `k` lands in EngineArgs)."""
    if not is_constructor:
        return callee
    return params_at if params_at is not None and params_at.kind == "method" else None


def _factories(ctx: CheckContext, *, known_keys: bool = False) -> Iterator[tuple[
        ResolvedCall, KwargsForward, Symbol, list[Param], Symbol | None, list[Param] | None, Symbol | None, int,
        set[str], list[str]]]:
    """The target factories the consumer's calls reach and what each call hands on through them.
    With `known_keys`, also calls with an open `**d` whose known keys are passed: fit to ask which
    keys the end no longer accepts, never which it now requires (d may hold any)."""
    for rc in ctx.calls:
        if rc.target is None or rc.target_params is None:
            continue
        tf = factory_targets_of(ctx.target, forwarder(rc.target, rc.target_params_at, rc.is_constructor))
        if not tf:
            continue
        sig = [[p.name, p.kind, not p.required] for p in rc.target_params]
        if not any(k == "VAR_KEYWORD" for _n, k, _d in sig):
            continue
        bound = _bind(sig, rc.rec, known_keys=known_keys)
        if bound is None:
            continue
        _extra, rest = bound
        bf = factory_targets_of(ctx.baseline, forwarder(rc.baseline, rc.baseline_params_at, rc.is_constructor))
        for fwd, cls in tf[:1]:
            if fwd.star_args:
                continue
            keys = [k for k in rest if k not in fwd.drops]
            tparams, tat = ctx.target.constructor(cls)
            bparams = bat = None
            if bf and ctx.baseline is not None:
                bparams, bat = ctx.baseline.constructor(bf[0][1])
            have = set(fwd.keywords) | set(fwd.adds) | set(keys)
            yield rc, fwd, cls, tparams, tat, bparams, bat, fwd.positional, have, keys


def _names(params) -> set[str]:  # type: ignore[no-untyped-def]
    """The keywords a callable's parameters accept by name."""
    return {p.name for p in params or () if p.kind != "POSITIONAL_ONLY"}


def _init_name(at: Symbol | None, cls_label: str) -> str:
    if at is not None and at.kind == "method":
        return f"{at.dotted.rsplit('.', 2)[-2]}.__init__()"
    return f"{cls_label}.__init__()"


def _kw_site(mod: dict, rec: dict, kw: str) -> Location:
    pos = (rec.get("kw_cols") or {}).get(kw)
    if not pos:
        return site_of(mod, rec)
    return Location(mod["path"], pos[0], snippet=rec.get("callee_src"), col=pos[1] + 1)


def fails_on_baseline(ctx: CheckContext, rc: ResolvedCall) -> bool:
    """Whether the call already lacked a required argument on the baseline, directly or through
    a baseline factory's `**kwargs`: it raised there, so what the target now also requires
    breaks no line that worked (DRIFT011/016 report only what the target changed)."""
    memo = ctx.memo.setdefault("forwarded.fails_on_baseline", None)
    if memo is None:
        memo = ctx.memo["forwarded.fails_on_baseline"] = set()
        for frc, _fwd, _cls, _tp, _tat, bparams, _bat, pos, have, _keys in _factories(ctx):
            if bparams is not None and _uncovered(bparams, pos, have):
                memo.add(id(frc))
    if id(rc) in memo:
        return True
    if rc.baseline_params is None or rc.rec.get("star_args") or rc.rec.get("star_kwargs"):
        return False
    return bool(_uncovered(rc.baseline_params, rc.rec.get("positional") or 0, set(rc.rec.get("keywords") or ())))


@rule("DRIFT015", RuleKind.KEYWORD_REMOVED)
def forwarded_keyword_removed(ctx: CheckContext) -> Iterator[Finding]:
    """A keyword that reaches a target callable through a `**kwargs` passed on whole (the
    consumer's pass-through `__init__(self, *args, **kwargs)` into `super().__init__`, or a target
    factory's `cls(spec, **kwargs)`), which that callable no longer accepts."""
    for rc, cref, mod, call, _pos, keys in _pass_throughs(ctx):
        for kw in keys:
            if _accepts(rc.target_params, kw) or (rc.baseline_params is not None
                                                  and not _accepts(rc.baseline_params, kw)):
                continue
            mine = cref.rsplit(".", 1)[-1]
            yield Finding(
                rule_id="DRIFT015", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING,
                title=f"`{kw}=` goes through `{mine}.__init__`'s **kwargs to `{rc.label}`, which no longer accepts it",
                consumer_site=_kw_site(mod, call, kw),
                target_evidence=(ctx.evidence(rc.target_params_at), rc.site),
                baseline_evidence=(ctx.evidence(rc.baseline_params_at),) if rc.baseline_params_at else (),
                predicted_failure=f"TypeError: {error_call_name(rc)} got an unexpected keyword argument '{kw}'",
                fix=successor_fix(ctx.baseline, rc.baseline_params_at, kw, accepted=_names(rc.target_params),
                                  passed=set(call.get("keywords") or ()),
                                  callee=(call.get("callee_src") or mine).rsplit(".", 1)[-1],
                                  value=(call.get("kw_values") or {}).get(kw))
                or drop_keyword_fix(callee=(call.get("callee_src") or mine).rsplit(".", 1)[-1], keyword=kw,
                                    value=(call.get("kw_values") or {}).get(kw),
                                    base_param=next((p for p in rc.baseline_params or [] if p.name == kw), None),
                                    **_drop_tiers(ctx, rc.target_params, rc.baseline_params, rc.baseline_params_at, kw)),
                symbol=rc.dotted,
            )
    for rc, fwd, cls, tparams, tat, bparams, bat, _pos, _have, keys in _factories(ctx, known_keys=True):
        if bparams is None:
            continue
        for kw in keys:
            if _accepts(tparams, kw) or not _accepts(bparams, kw):
                continue
            label = cls.dotted.rsplit(".", 1)[-1]
            yield Finding(
                rule_id="DRIFT015", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING,
                title=f"`{kw}=` goes through `{rc.label}`'s **kwargs to `{label}`, which no longer accepts it",
                consumer_site=rc.keyword_site(kw),
                target_evidence=(ctx.evidence(tat or cls), Location(rc.target.path, fwd.line,
                                                                    symbol=rc.target.dotted)),
                predicted_failure=f"TypeError: {_init_name(tat, label)} got an unexpected keyword argument '{kw}'",
                fix=successor_fix(ctx.baseline, bat, kw, accepted=_names(tparams), passed=set(rc.rec["keywords"]),
                                  callee=rc.rec["callee_src"].rsplit(".", 1)[-1],
                                  value=(rc.rec.get("kw_values") or {}).get(kw))
                or drop_keyword_fix(callee=rc.rec["callee_src"].rsplit(".", 1)[-1], keyword=kw,
                                    value=(rc.rec.get("kw_values") or {}).get(kw),
                                    base_param=next((p for p in bparams or [] if p.name == kw), None),
                                    **_drop_tiers(ctx, tparams, bparams, bat, kw)),
                symbol=cls.dotted,
            )


def _drop_tiers(ctx, tparams, bparams, bat, kw: str) -> dict:  # type: ignore[no-untyped-def]
    """`drop_keyword_fix`'s version-branch tier for `kw` and the lost types that deny it."""
    gone = gone_value_types(ctx.baseline, ctx.target, bat, bparams, [kw])
    return {"gated_tier": removal_gated_tier(tparams, bparams, gone_types=gone), "gone_types": gone}


@rule("DRIFT016", RuleKind.REQUIRED_ADDED)
def forwarded_required_added(ctx: CheckContext) -> Iterator[Finding]:
    """A parameter a target callable now requires, where the arguments it gets come through a
    `**kwargs` passed on whole and no caller's keywords hold it: the consumer's pass-through
    `super().__init__(..., **kwargs)` (reported there, for the first consumer call that lacks
    it), or the consumer's call of a target factory that builds the class with `**kwargs`."""
    for rc, cref, mod, call, pos, keys in _pass_throughs(ctx):
        have = set(rc.rec.get("keywords") or []) | set(rc.rec["forwards"].get("adds") or []) | set(keys)
        before = {p.name for p in _uncovered(rc.baseline_params, pos, have)} if rc.baseline_params is not None else set()
        if before:
            continue  # the same calls already lacked a required argument on the baseline: they never worked
        for p in _uncovered(rc.target_params, pos, have):
            if p.name in before:
                continue  # the same call lacked it on the baseline too: not drift
            mine = cref.rsplit(".", 1)[-1]
            caller = site_of(mod, call)
            yield Finding(
                rule_id="DRIFT016", kind=RuleKind.REQUIRED_ADDED, severity=Severity.BREAKING,
                title=f"`{rc.label}` now requires `{p.name}`; `{mine}.__init__` passes on **kwargs without it "
                      f"(built at {caller.path}:{caller.line})",
                consumer_site=rc.site,
                target_evidence=(ctx.evidence(rc.target_params_at),),
                baseline_evidence=(ctx.evidence(rc.baseline_params_at),) if rc.baseline_params_at else (),
                predicted_failure=f"TypeError: {error_call_name(rc)} missing 1 required "
                                  f"{'keyword-only ' if p.kind == 'KEYWORD_ONLY' else 'positional '}argument: '{p.name}'",
                fix=Fix(f"pass `{p.name}=` to `{mine}(...)` or to `super().__init__`",
                        manual_reason="the value is the consumer's to choose"),
                symbol=rc.dotted,
            )
    for rc, fwd, cls, tparams, tat, bparams, bat, pos, have, _keys in _factories(ctx):
        if bparams is None:
            continue
        before = {p.name for p in _uncovered(bparams, pos, have)}
        if before:
            continue  # the call already failed on the baseline: nothing the target added breaks it
        label = cls.dotted.rsplit(".", 1)[-1]
        for p in _uncovered(tparams, pos, have):
            if p.name in before:
                continue
            yield Finding(
                rule_id="DRIFT016", kind=RuleKind.REQUIRED_ADDED, severity=Severity.BREAKING,
                title=f"`{label}` now requires `{p.name}`; `{rc.label}` builds it from the call's **kwargs, "
                      f"which do not hold it",
                consumer_site=rc.site,
                target_evidence=(ctx.evidence(tat or cls), Location(rc.target.path, fwd.line,
                                                                    symbol=rc.target.dotted)),
                baseline_evidence=(ctx.evidence(bat),) if bat is not None else (),
                predicted_failure=f"TypeError: {_init_name(tat, label)} missing 1 required "
                                  f"{'keyword-only ' if p.kind == 'KEYWORD_ONLY' else 'positional '}argument: '{p.name}'",
                fix=Fix(f"pass `{p.name}=` to `{rc.label}`", manual_reason="the value is the consumer's to choose"),
                symbol=cls.dotted,
            )


@rule("DRIFT152", RuleKind.KEYWORD_REMOVED, Severity.RISKY)
def keyword_absorbed(ctx: CheckContext) -> Iterator[Finding]:
    """A keyword the consumer passes by name that the baseline's callable declared, and the
    target's no longer does though its `**kwargs` still takes it: no TypeError at the call, but
    the value no longer means what it did. Where the target hands its `**kwargs` whole to a
    callable drift cannot read (`serve_http(app, **uvicorn_kwargs)` building `uvicorn.Config(app,
    **uvicorn_kwargs)`, which rejects `engine=`), that callable decides; where it hands them
    nowhere, the value is ignored. Risky: neither is in the target's facts. A keyword the target's
    `**kwargs` passes to a class of its own is DRIFT015's; one its body takes out first is read."""
    if ctx.baseline is None:
        return
    seen: set[tuple] = set()
    for rc in ctx.calls:
        tparams, bparams = rc.target_params, rc.baseline_params
        if rc.target is None or tparams is None or bparams is None or rc.is_constructor:
            continue
        if not any(p.kind == "VAR_KEYWORD" for p in tparams):
            continue
        named_now = {p.name for p in tparams if p.kind != "POSITIONAL_ONLY" and p.kind != "VAR_KEYWORD"}
        named_before = {p.name for p in bparams if p.kind not in ("POSITIONAL_ONLY", "VAR_KEYWORD")}
        gone = [kw for kw in rc.rec.get("keywords") or () if kw in named_before and kw not in named_now]
        if not gone:
            continue
        node = rc.target.as_function if rc.target.kind in ("function", "method") else None
        if node is None:
            continue
        forwards = list(node.behaviour.kwargs_into)
        if factory_targets_of(ctx.target, rc.target) or any(f.star_args for f in forwards):
            continue  # a class of the target's gets them (DRIFT015), or `*args` too: not followed
        for kw in gone:
            if any(kw in f.drops or kw in f.keywords for f in forwards) or ctx.target.writes_quoted(kw):
                continue  # the body takes it out by name (`kwargs.pop("engine")`) or may read it
            key = (rc.site.path, rc.site.line, kw)
            if key in seen:
                continue
            seen.add(key)
            where = f", handed whole to `{forwards[0].callee}`" if forwards and forwards[0].callee else ""
            yield Finding(
                rule_id="DRIFT152", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.RISKY,
                title=f"`{rc.label}` no longer declares `{kw}`: the keyword lands in its **kwargs{where}",
                consumer_site=rc.keyword_site(kw),
                target_evidence=(ctx.evidence(rc.target),),
                baseline_evidence=(ctx.evidence(rc.baseline),) if rc.baseline is not None else (),
                predicted_failure=(f"TypeError where `{forwards[0].callee}` does not take `{kw}=`" if where
                                   else f"`{kw}=` is ignored: nothing on the target reads it"),
                fix=Fix(f"drop `{kw}=` from the call or pass it where the target now takes it",
                        manual_reason="what replaced the parameter is the target's to read"),
                symbol=rc.dotted,
            )


RULES = [forwarded_keyword_removed, forwarded_required_added, keyword_absorbed]
