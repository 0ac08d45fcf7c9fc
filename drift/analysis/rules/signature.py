"""Calls whose arguments the target's signature no longer accepts."""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, ResolvedCall
from drift.findings import SAFE, UNSAFE, Finding, Fix, RuleKind, Severity
from drift.analysis.rules.base import error_call_name, plural, rule
from drift.analysis.rules.fix_tiers import (drop_keyword_fix, gone_value_types, noop_in_baseline, passes_nothing,
                                            removal_gated_tier, same_value)
from drift.analysis.rules.forwarded import fails_on_baseline
from drift.analysis.rules.own_additions import own_added_value
from drift.analysis.rules.own_rewrites import own_rewrite, positional_rewrite
from drift.analysis.rules.renames import successor_fix
from drift.analysis.rules.values import determinable_value, target_example


def _accepts_var_kw(params) -> bool:
    return any(p.kind == "VAR_KEYWORD" for p in params)


def _checkable(rc: ResolvedCall) -> bool:
    return rc.target_params is not None and rc.target is not None


def _pydantic(ctx: CheckContext, rc: ResolvedCall) -> bool:
    at = rc.target_params_at
    return bool(at and at.kind == "class" and ctx.target.is_pydantic(at))


@rule("DRIFT010", RuleKind.KEYWORD_REMOVED)
def keyword_removed(ctx: CheckContext) -> Iterator[Finding]:
    """A keyword the consumer passes that the target's callable no longer accepts.

    Covers functions, methods and constructors, including dataclass and pydantic fields. Risky
    where the call already lacked a required argument on the baseline (it raised there too: a
    path the consumer never ran, not a break the upgrade made).
    """
    for rc in ctx.binding_calls:
        if not _checkable(rc) or _accepts_var_kw(rc.target_params):
            continue
        names = {p.name for p in rc.target_params if p.kind != "POSITIONAL_ONLY"}
        positional_only = {p.name for p in rc.target_params if p.kind == "POSITIONAL_ONLY"}
        base_names = {p.name for p in rc.baseline_params or []}
        for kw in rc.rec["keywords"]:
            if kw in names:
                continue
            fresh = False  # a call on a branch first run on the target (guards.live_on): held to the target alone
            if rc.baseline_params is not None and kw not in base_names and not _accepts_var_kw(rc.baseline_params):
                if not (rc.rec.get("first_live") or kw in (rc.rec.get("first_kws") or ())):
                    continue  # was already wrong against the baseline: not drift
                fresh = True
            if kw in positional_only:
                failure = (f"TypeError: {error_call_name(rc)} got some positional-only arguments passed as "
                           f"keyword arguments: '{kw}'")
            elif _pydantic(ctx, rc) and not ctx.target.forbids_extra(rc.target_params_at):
                failure = None  # pydantic's default extra="ignore": no error, the value is dropped
            elif _pydantic(ctx, rc):
                failure = f"pydantic_core.ValidationError: {kw}: Unexpected keyword argument"
            elif rc.is_constructor and not rc.target_params and rc.target_params_at is None:
                failure = f"TypeError: {rc.label}() takes no arguments"
            else:
                failure = f"TypeError: {error_call_name(rc)} got an unexpected keyword argument '{kw}'"
            base_param = next((p for p in rc.baseline_params or [] if p.name == kw), None)
            silent = failure is None
            broken = not fresh and fails_on_baseline(ctx, rc)  # the call already lacked a required argument
            if fresh:
                yield Finding(
                    rule_id="DRIFT010", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.RISKY,
                    title=f"`{rc.label}` does not accept `{kw}=` in the target, on a branch that first runs there",
                    consumer_site=rc.keyword_site(kw),
                    target_evidence=(ctx.evidence(rc.target_params_at),), baseline_evidence=(),
                    predicted_failure=failure,
                    details="the line's version test is false on the baseline and true on the target: written for a "
                            "newer vLLM, this call never ran on the baseline (which lacks the keyword too)",
                    fix=Fix(f"pass `{kw}=` only on a vLLM that accepts it",
                            manual_reason="the branch was written for a newer vLLM than the target"),
                    symbol=rc.dotted,
                )
                continue
            yield Finding(
                rule_id="DRIFT010", kind=RuleKind.KEYWORD_REMOVED,
                severity=Severity.RISKY if silent or broken else Severity.BREAKING,
                title=f"`{rc.label}` no longer accepts `{kw}=`" + (" (pydantic drops it silently)" if silent else ""),
                consumer_site=rc.keyword_site(kw),
                target_evidence=(ctx.evidence(rc.target_params_at),),
                baseline_evidence=(ctx.evidence(rc.baseline_params_at, base_param.line if base_param else None),)
                if rc.baseline_params_at else (),
                predicted_failure=failure,
                details=("the model does not forbid extra fields, so the value is ignored without an error"
                         if silent else "the call already lacked a required argument on the baseline: that path "
                         "raised there too" if broken else None),
                fix=_keyword_fix(ctx, rc, kw, names, base_param),
                symbol=rc.dotted,
            )


def removed_keyword_fix(ctx: CheckContext, rc: ResolvedCall, kw: str) -> Fix | None:
    """DRIFT010's fix for keyword `kw` of call `rc` when the target's callable no longer accepts
    it (and the baseline's did); None when it still does, or either side cannot be read."""
    if not _checkable(rc) or _accepts_var_kw(rc.target_params) or rc.baseline_params is None:
        return None
    names = {p.name for p in rc.target_params if p.kind != "POSITIONAL_ONLY"}
    base_param = next((p for p in rc.baseline_params if p.name == kw), None)
    if kw in names or (base_param is None and not _accepts_var_kw(rc.baseline_params)):
        return None
    return _keyword_fix(ctx, rc, kw, names, base_param)


def _keyword_fix(ctx: CheckContext, rc: ResolvedCall, kw: str, names: set[str], base_param) -> Fix:
    """The successor the baseline's deprecation shim named, when the target takes it and the call
    does not pass it already; else dropping the keyword (safe only when that loses nothing)."""
    callee = rc.rec["callee_src"].rsplit(".", 1)[-1]
    value = (rc.rec.get("kw_values") or {}).get(kw)
    silent = _pydantic(ctx, rc) and not ctx.target.forbids_extra(rc.target_params_at)
    return (successor_fix(ctx.baseline, rc.baseline_params_at, kw, accepted=names, passed=set(rc.rec["keywords"]),
                          callee=callee, value=value)
            or _own_rewrite_fix(ctx, rc, kw, callee, value, base_param)
            or _still_unbound_fix(ctx, rc, kw, value)
            or _drop_fix(ctx, rc, kw, callee, value, base_param, breaks=not silent))


def _drop_fix(ctx: CheckContext, rc: ResolvedCall, kw: str, callee: str, value: str | None, base_param, *,
              breaks: bool) -> Fix:
    """`drop_keyword` for `kw`, its tiers judged from the baseline's and the target's parameters."""
    gone = gone_value_types(ctx.baseline, ctx.target, rc.baseline_params_at, rc.baseline_params, [kw])
    return drop_keyword_fix(callee=callee, keyword=kw, value=value, base_param=base_param,
                            gated_tier=removal_gated_tier(rc.target_params, rc.baseline_params, breaks=breaks,
                                                          gone_types=gone),
                            noop=(str(ctx.evidence(rc.baseline_params_at))
                                  if noop_in_baseline(rc.baseline_params_at, kw) else None),
                            gone_types=gone)


def _still_unbound_fix(ctx: CheckContext, rc: ResolvedCall, kw: str, value: str | None) -> Fix | None:
    """A manual fix when dropping `kw` alone leaves a call that still raises on the target: a
    parameter the target requires that the call does not pass, and for which no value can be
    determined (DRIFT011 adds one where it can). None when the drop leaves a call that binds.

    Why: vLLM 0.11.1's `CachedRequestData(...)` lost `resumed_from_preemption` and gained three
    required fields; vLLM 0.10's `LLM.generate(prompt_token_ids=...)` made `prompts` required.
    Dropping the keyword there is no fix at all, even in a version branch: the call still raises,
    and the value the consumer passed (the prompts) is what the new required parameter wants."""
    if rc.rec.get("star_args") or rc.rec.get("star_kwargs") or rc.target_params is None:
        return None
    slots = [p for p in rc.target_params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    covered = {p.name for p in slots[: rc.rec["positional"]]} | (set(rc.rec["keywords"]) - {kw})
    missing = [p.name for p in rc.target_params
               if p.required and p.name not in covered and determinable_value(ctx, rc, p.name) is None]
    if not missing:
        return None
    names = ", ".join(f"`{n}`" for n in missing)
    shown = f"{kw}={value}" if value else f"{kw}="
    return Fix(f"replace `{shown}` with what the target requires and the call does not pass: {names}",
               manual_reason=f"dropping `{kw}` alone leaves the call without {names}, which the target requires "
                             f"and drift finds no value for: it would still raise")


def _own_rewrite_fix(ctx: CheckContext, rc: ResolvedCall, kw: str, callee: str, value: str | None,
                     base_param) -> Fix | None:
    """`drop_keyword` as the target rewrote its own identical call (own_rewrites.py): safe, and
    written with the keyword the target passes in its place where that may carry the value on.
    Only where a plain drop would be unsafe (a drop of the default or of no data already is safe)."""
    if (base_param is not None and same_value(value, base_param.default)) or passes_nothing(value):
        return None
    found = own_rewrite(ctx, rc, kw)
    if found is None:
        return None
    added = "".join(f" and pass `{k}={v}`" for k, v in found.add.items())
    what = "this very call" if found.callee == callee else f"its identical call of `{found.callee}` (a sibling that lost `{kw}` too)"
    return Fix(f"drop `{kw}={value}` from the call{added}, as the target's own `{found.function}` rewrote "
               f"{what} ({found.baseline_evidence} -> {found.evidence})",
               codemod="drop_keyword", tier=SAFE,
               args={"callee": callee, "keyword": kw, **({"add": dict(found.add)} if found.add else {}),
                     "migration": str(found.evidence)})


@rule("DRIFT011", RuleKind.REQUIRED_ADDED)
def required_added(ctx: CheckContext) -> Iterator[Finding]:
    """A parameter (or dataclass/pydantic field, InitVar included) the target now requires and
    the call does not pass.

    The fix passes the value the target's own code uses when the target shows it (a factory's
    `kwargs[...] = value`, or its own construction of the same class, or call of the same function
    or method, rewritten in terms of the arguments the consumer already passes, or, for a
    positional call the baseline's own function made verbatim, what the target's same function now
    appends: `rewrite_arguments`, by keyword; or, for a keyword call that copies the baseline's own
    call verbatim, the value the target's rewrite of that call passes, `self.<attr>` included where
    the consumer's class stores that attribute itself); otherwise the finding stays manual.
    A call with `**d` is judged too where every such dict holds only keys the consumer wrote
    literally (built in one function, maybe returned by a helper; probes/closed_dicts.py).
    """
    closed = ctx.consumer.inferred.closed_kwargs
    for rc in ctx.binding_calls:
        through = closed.get(f"{rc.module.get('path')}:{rc.rec.get('call_line')}") if rc.rec["star_kwargs"] else None
        if not _checkable(rc) or rc.rec["star_args"]:
            continue
        if rc.rec["star_kwargs"] and through is None:
            yield from _required_past_open_kwargs(ctx, rc)
            continue
        if through is None and fails_on_baseline(ctx, rc):
            continue  # a required argument was missing on the baseline already: the call never worked
        positional_slots = [p for p in rc.target_params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        covered = {p.name for p in positional_slots[: rc.rec["positional"]]} | set(rc.rec["keywords"]) | set(through or ())
        base_required = {p.name for p in rc.baseline_params or [] if p.required}
        for p in rc.target_params:
            if not p.required or p.name in covered:
                continue
            if rc.baseline_params is not None and p.name in base_required:
                continue  # required before too: the consumer was wrong already, not drift
            value = determinable_value(ctx, rc, p.name)
            where = "keyword-only " if p.kind == "KEYWORD_ONLY" else "positional "
            failure = (f"pydantic_core.ValidationError: {p.name}: Field required" if _pydantic(ctx, rc) and p.source != "param"
                       else f"TypeError: {error_call_name(rc)} missing 1 required {where}argument: '{p.name}'")
            fix = (Fix(f"pass `{p.name}={value.source}` ({value.why})", codemod="add_keyword",
                       tier=SAFE if value.agreed else UNSAFE,
                       args={"callee": rc.rec["callee_src"].rsplit(".", 1)[-1], "keyword": p.name, "value": value.source})
                   if value else _own_positional_fix(ctx, rc, append_only=True) or _own_added_fix(ctx, rc, p.name)
                   or _manual_value(ctx, rc, p.name))
            src = p.source if p.source != "param" else "parameter"
            abstract = _abstract_init(rc)
            yield Finding(
                rule_id="DRIFT011", kind=RuleKind.REQUIRED_ADDED,
                severity=Severity.RISKY if abstract else Severity.BREAKING,
                details=(f"`{rc.target_params_at.dotted}` is abstract: the class built here is one of its "
                     "implementations, whose own `__init__` may give the parameter a default") if abstract else None,
                title=f"`{rc.label}` now requires `{p.name}` ({src}{': ' + p.annotation if p.annotation else ''})",
                consumer_site=rc.site,
                target_evidence=tuple(e for e in (ctx.evidence(rc.target_params_at, p.line if p.source != 'param' else None),
                                                  value.evidence if value else None) if e),
                baseline_evidence=(ctx.evidence(rc.baseline_params_at),) if rc.baseline_params_at else (),
                predicted_failure=failure,
                fix=fix,
                symbol=rc.dotted,
            )


def _abstract_init(rc: ResolvedCall) -> bool:
    """Whether the parameters come from an `@abstractmethod __init__` (vLLM's `SchedulerInterface`):
    a class reached through `type[Interface]` is built as one of its implementations, and the
    interface says what they must accept, not what each one requires."""
    at = rc.target_params_at
    return at is not None and at.kind == "method" and "abstractmethod" in {
        d.rsplit(".", 1)[-1] for d in at.as_function.decorators}


def _written_keys(ctx: CheckContext, mod: dict) -> frozenset[str]:
    """Every string the consumer's module writes as a dict key or keyword (IR `key` and `dict`
    rows, call keywords): a key it may put in a dict it splats, on some version."""
    memo = ctx.memo.setdefault("written_keys", {})
    found = memo.get(mod.get("path"))
    if found is None:
        keys: set[str] = set()
        ir = ctx.module_ir(mod)
        keys.update(str(row[0]) for row in ir.get("key") or () if isinstance(row, list) and row)
        for row in ir.get("dict") or ():
            if isinstance(row, list) and len(row) > 1 and isinstance(row[1], list):
                keys.update(str(k[0]) for k in row[1] if isinstance(k, list) and k)
        for rec in mod.get("calls") or ():
            keys.update(str(k) for k in rec.get("keywords") or ())
        found = memo[mod.get("path")] = frozenset(keys)
    return found


def _consumer_built_dicts(ctx: CheckContext, rc: ResolvedCall) -> bool:
    """Whether every `**d` of the call is a local the consumer builds itself: a parameter (not the
    function's own `**kwargs`, a wrapper whose caller can pass anything), a dict only literal keys
    enter (`closed`, probes/closed_dicts.py), or a name bound only to what a consumer function
    returns. A dict built from a target object (`**asdict(batch)`,
    `**vars(cfg)`, `**obj.model_dump()`) holds the target's own fields on each side, whatever the
    baseline took."""
    ir = ctx.module_ir(rc.module)
    defs = ir.get("defs") or {}
    rows = [r for r in ir.get("starkw") or () if isinstance(r, list) and len(r) >= 3 and r[2] == rc.rec.get("call_line")]
    if not rows:
        return False
    own = {str(m.get("module") or "").split(".")[0] for m in ctx.usage} - {""}
    closed = {r[0] for r in ir.get("closed") or () if isinstance(r, list) and r}  # only literal keys enter
    for r in rows:
        path = r[1]
        if not (isinstance(path, list) and len(path) == 1 and isinstance(path[0], str) and path[0].startswith("var:")):
            return False
        if path[0] in closed:
            continue
        fn, _, name = path[0][4:].rpartition(":")
        spec = defs.get(fn)
        params = spec[1] if isinstance(spec, list) and len(spec) > 1 and isinstance(spec[1], list) else []
        param = next((q for q in params if isinstance(q, list) and len(q) > 3 and q[0] == name), None)
        if param is not None:
            if param[3] == "VAR_KEYWORD":
                return False
            continue
        sources = [a[1] for a in ir.get("assign") or () if isinstance(a, list) and len(a) == 2 and a[0] == path[0]]
        if not sources or not all(isinstance(src, list) and src and isinstance(src[0], str) and src[0].startswith("sym:")
                                  and src[0][4:].split(".")[0] in own and "()" in src for src in sources):
            return False
    return True


def _object_of_the_target(ctx: CheckContext, rc: ResolvedCall, annotation: str | None) -> bool:
    """Whether a parameter is annotated with a class of the target (`OpenAIServingRender`): an object
    the target builds, which no configuration data fed into a dict can hold; a plain value (or no
    annotation) may come from such data once the user adds it for the new release."""
    at = rc.target_params_at or rc.target
    if not annotation or at is None:
        return False
    try:
        v = ctx.target_paths._annotation_value(annotation, at.module)
    except (TypeError, ValueError, AttributeError):
        return False
    return v.kind == "instance" and v.cls is not None and ctx.target.lookup(v.cls.dotted) is not None


def _required_past_open_kwargs(ctx: CheckContext, rc: ResolvedCall) -> Iterator[Finding]:
    """A call with a `**d` drift cannot see into, where the target now requires a parameter the
    baseline's callable did not have at all and had no `**kwargs` to take: `d` cannot hold it (the
    call would have raised on the baseline), unless the consumer's module writes that key somewhere (a
    version branch filling it) or the callee is a pydantic model (which ignores unknown keys). Only a
    parameter annotated with a class of the target: an object no configuration data holds (a plain
    value may come from data the user extends for the new release)."""
    if rc.baseline_params is None or _accepts_var_kw(rc.baseline_params) or _pydantic(ctx, rc) \
            or _accepts_var_kw(rc.target_params) or not _consumer_built_dicts(ctx, rc):
        return
    before = {p.name for p in rc.baseline_params}
    positional_slots = [p for p in rc.target_params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    covered = {p.name for p in positional_slots[: rc.rec["positional"]]} | set(rc.rec["keywords"])
    for p in rc.target_params:
        if not p.required or p.name in covered or p.name in before or p.name in _written_keys(ctx, rc.module):
            continue
        if not _object_of_the_target(ctx, rc, p.annotation):
            continue  # a plain value a configuration the dict is read from may carry on the target
        where = "keyword-only " if p.kind == "KEYWORD_ONLY" else "positional "
        yield Finding(
            rule_id="DRIFT011", kind=RuleKind.REQUIRED_ADDED, severity=Severity.BREAKING,
            title=f"`{rc.label}` now requires `{p.name}` ({'parameter'}{': ' + p.annotation if p.annotation else ''}); "
                  f"the call's `**` dict cannot hold it",
            consumer_site=rc.site,
            target_evidence=(ctx.evidence(rc.target_params_at),) if rc.target_params_at else (),
            baseline_evidence=(ctx.evidence(rc.baseline_params_at),) if rc.baseline_params_at else (),
            predicted_failure=f"TypeError: {error_call_name(rc)} missing 1 required {where}argument: '{p.name}'",
            details="the baseline's callable had no such parameter and no `**kwargs`, so a dict that carried "
                    "it would have failed there; the consumer writes no such key anywhere",
            fix=_manual_value(ctx, rc, p.name),
            symbol=rc.dotted,
        )


@rule("DRIFT012", RuleKind.POSITIONAL_ARITY)
def positional_arity(ctx: CheckContext) -> Iterator[Finding]:
    """More positional arguments than the target's callable now takes.

    Fix (safe): where the baseline's own function made this positional call verbatim and the
    target's same function passes other arguments, `rewrite_arguments` writes the target's
    (`(any_request, len(self.running))` -> `(any_request.request_id)`). Fix (unsafe): where the
    target deleted positional parameters and kept the others in the baseline's order, `drop_argument` removes the call's arguments at the deleted positions, so
    the rest bind to the baseline's names again; only when the shorter call passes everything
    the target requires. Otherwise manual."""
    for rc in ctx.binding_calls:
        if not _checkable(rc) or any(p.kind == "VAR_POSITIONAL" for p in rc.target_params):
            continue
        slots = [p for p in rc.target_params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        n = rc.rec["positional"]
        if n <= len(slots):
            continue
        base_slots = [p for p in rc.baseline_params or [] if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        if rc.baseline_params is not None and n > len(base_slots) and not any(p.kind == "VAR_POSITIONAL" for p in rc.baseline_params):
            continue
        yield Finding(
            rule_id="DRIFT012", kind=RuleKind.POSITIONAL_ARITY, severity=Severity.BREAKING,
            title=f"`{rc.label}` takes {len(slots)} positional argument(s), the call passes {n}",
            consumer_site=rc.site,
            target_evidence=(ctx.evidence(rc.target_params_at),),
            baseline_evidence=(ctx.evidence(rc.baseline_params_at),) if rc.baseline_params_at else (),
            predicted_failure=f"TypeError: {error_call_name(rc)} takes "
                              f"{plural(len(slots) + (0 if rc.target.kind == 'function' else 1), 'positional argument')} "
                              f"but {n + (0 if rc.target.kind == 'function' else 1)} "
                              f"{'was' if n + (0 if rc.target.kind == 'function' else 1) == 1 else 'were'} given",
            fix=_own_positional_fix(ctx, rc, append_only=False) or _removed_slot_fix(ctx, rc, n)
            or _arity_manual(rc, slots, base_slots),
            symbol=rc.dotted,
        )


def _arity_manual(rc: ResolvedCall, slots: list, base_slots: list) -> Fix:
    """The manual edit for a call with more positional arguments than the target takes: where the
    baseline's names are known, the two signatures side by side, and the new parameters no
    argument of the call maps to by name (`get_num_common_prefix_blocks(request, num_running_requests)`
    became `(running_request_id)`: the call must pass what that names, not its old arguments)."""
    if rc.baseline_params is None or not base_slots:
        return Fix("pass the extra arguments by keyword", manual_reason="which parameter each argument maps to needs a human")
    own = [p.name for p in slots if p.name not in ("self", "cls")]
    old = [p.name for p in base_slots if p.name not in ("self", "cls")]
    new = [n for n in own if n not in old]
    return Fix(f"call `{rc.label}` as the target declares it ({', '.join(own)}) where the baseline took "
               f"({', '.join(old)})" + (f": pass what {', '.join(f'`{n}`' for n in new)} "
                                       f"{'names' if len(new) == 1 else 'name'} (new in the target)" if new else ""),
               manual_reason="which value each new parameter takes needs a human")


def _removed_slot_fix(ctx: CheckContext, rc: ResolvedCall, n: int) -> Fix | None:
    """`drop_argument` when the target deleted positional parameters and kept the others in the
    baseline's order (`(engine_client, vllm_config, state, args)` -> `(engine_client, state, args)`):
    dropping the call's arguments at the deleted parameters' positions binds the rest to the
    same names as on the baseline. Unsafe: the value the consumer passed there is no longer
    given to anything (the target may read it elsewhere, or not at all). None when the
    remaining arguments would not line up with the target's names."""
    if rc.baseline_params is None or any(p.kind == "VAR_POSITIONAL" for p in rc.baseline_params):
        return None
    bslots = [p.name for p in _positional_slots(rc.baseline_params)]
    tslots = [p.name for p in _positional_slots(rc.target_params)]
    every = {p.name for p in rc.target_params}
    gone = [i for i, name in enumerate(bslots[:n]) if name not in every]
    kept = [name for name in bslots[:n] if name in every]
    if not gone or kept != tslots[:len(kept)]:
        return None
    passed = set(kept) | set(rc.rec["keywords"])
    if any(p.required and p.name not in passed for p in rc.target_params
           if p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD")):
        return None  # the shorter call still lacks what the target requires: not a drop alone
    names = ", ".join(f"`{bslots[i]}`" for i in gone)
    # a pure removal (nothing new in the target's signature could take the value) is safe in the
    # vLLM-version branch a range consumer's patch always puts this edit in
    gated = removal_gated_tier(rc.target_params, rc.baseline_params,
                               gone_types=gone_value_types(ctx.baseline, ctx.target, rc.baseline_params_at,
                                                           rc.baseline_params, [bslots[i] for i in gone]))
    check = ("no new parameter of the target's could receive that value; safe in a vLLM-version branch that keeps "
             "the call for the baseline" if gated else "check nothing else must now receive that value")
    return Fix(f"drop the argument{'s' if len(gone) > 1 else ''} passed as {names} (positional "
               f"{', '.join(str(i + 1) for i in gone)}), a parameter `{rc.label}` no longer has; the rest then bind "
               f"to the same names as on the baseline ({check})",
               codemod="drop_argument", tier=UNSAFE, gated_tier=gated,
               args={"callee": rc.rec["callee_src"].rsplit(".", 1)[-1], "positions": gone, "count": n})


def _positional_slots(params) -> list:
    return [p for p in params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]


def _quoted_list(names: list[str]) -> str:
    """Python's own list in a `missing N required ... arguments` message."""
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _type_names(annotation: str | None) -> set[str] | None:
    """The type names an annotation admits (None when it admits anything or is absent)."""
    if not annotation:
        return None
    from drift.analysis.diff.annotations import normalise

    text = normalise(annotation) or annotation
    names = {n for n in text.replace("[", " ").replace("]", " ").replace("|", " ").replace(",", " ").split()}
    names.discard("None")
    if not names or names & {"Any", "object", "typing.Any"} or any(len(n) == 1 and n.isupper() for n in names):
        return None  # Any, object or a TypeVar: every value fits
    return {n.rsplit(".", 1)[-1] for n in names}


def _shift_cause(base_slots, slots, i: int) -> str:
    """Why argument i+1 moved, as the signatures say: positional parameters removed before it,
    inserted before it, or a new one in its place. Why not always "inserted": a removal shifts
    the arguments as surely, and the reader fixes the call knowing which."""
    base_names, names = {p.name for p in base_slots}, [p.name for p in slots]
    was = base_slots[i].name
    removed = [p.name for p in base_slots[:i] if p.name not in names]
    inserted = [n for n in names[:i] if n not in base_names]
    if names[i] not in base_names and was in names and names.index(was) > i:
        inserted.append(names[i])  # the new one stands where the value's parameter was, which moved on
    parts = [f"{', '.join(removed)} removed before it"] if removed else []
    if was not in names:
        parts.append(f"{was} removed")
    if inserted:
        parts.append(f"{', '.join(inserted)} inserted before it")
    return "; ".join(parts) or "positional parameters reordered"


@rule("DRIFT013", RuleKind.POSITIONAL_SHIFT)
def positional_shift(ctx: CheckContext) -> Iterator[Finding]:
    """A positional argument that now lands on a different parameter: the target inserted a
    parameter (even an optional one) at or before its position, so `f(a, b, c)` written for
    `f(a, b, c)` passes `c`'s value as the new parameter of `f(a, new=None, b, c)`; or removed
    one before it, so `f(a, gone, b, c=...)` called `f(1, 2, 3, c=4)` now gives `c` twice.

    Breaking when Python rejects the call (a displaced required parameter is now missing, or a
    parameter is given positionally and by keyword) or when the annotations of the parameter the
    value was written for and the one it now binds share no type; risky otherwise (the call runs,
    with the values in the wrong parameters). A call of a layer (`layer(a, b, c)`, reached
    through `nn.Module.__call__`) is breaking only where Python rejects it: the layer object may be
    a per-platform replacement with its own `forward`, so disagreeing annotations are no proof; nor
    is a call of a class whose `__init__` is abstract (`impl_cls(...)` from a backend's
    `get_impl_cls() -> type[AttentionImpl]`): the class built is an implementation, maybe the
    consumer's own, with its own `__init__` (risky).

    Fix: `keywordize_arguments` passes the shifted arguments by the baseline's names
    (`f(a, b, c=c)`), which binds them as the baseline did and, on the target, to the parameters
    of those names. Safe when every name is in both signatures and can be passed by keyword and
    none went to the baseline's `*args`; the edit is only described (manual) when the named call
    would still be wrong on the target (a required parameter it inserted, an earlier slot renamed
    in place).
    """
    for rc in ctx.binding_calls:
        if not _checkable(rc) or rc.baseline_params is None or rc.rec["star_args"]:
            continue
        n = rc.rec["positional"]
        slots, base_slots = _positional_slots(rc.target_params), _positional_slots(rc.baseline_params)
        if n > len(base_slots) and not any(p.kind == "VAR_POSITIONAL" for p in rc.baseline_params):
            continue  # more positional arguments than the baseline took: the call never worked, not drift
        base_names = {p.name for p in rc.baseline_params}
        base_slot_names = {p.name for p in base_slots}
        target_names = {p.name for p in rc.target_params}
        shifted = []
        for i in range(min(n, len(slots), len(base_slots))):
            was, now = base_slots[i], slots[i]
            if was.name == now.name or (was.name not in target_names and now.name not in base_names):
                continue  # same parameter, or renamed in place: the value still lands where it did
            if any(p.name not in base_slot_names for p in slots[: i + 1]):
                shifted.append((i, was, now))  # a parameter new to the positional slots before it
            elif any(b.name not in target_names for b in base_slots[: i + 1]):
                shifted.append((i, was, now))  # a parameter at or before it removed: the rest move up
        if not shifted:
            continue
        i, was, now = shifted[0]
        bound = {p.name for p in slots[:n]}
        keywords = set(rc.rec["keywords"])
        twice = sorted(bound & keywords)
        covered = bound | keywords
        displaced = {b.name for b in base_slots[:n] if b.required}
        missing = [p for p in rc.target_params if p.required and p.name not in covered and p.name in displaced]
        # Python reports missing positional parameters first, keyword-only ones only when none is
        missing_pos = [p.name for p in missing if p.kind != "KEYWORD_ONLY"]
        missing_names = missing_pos or [p.name for p in missing]
        failure = details = None
        if twice:
            failure = f"TypeError: {error_call_name(rc)} got multiple values for argument '{twice[0]}'"
        elif missing_names and not rc.rec["star_kwargs"]:
            where = "positional" if missing_pos else "keyword-only"
            failure = (f"TypeError: {error_call_name(rc)} missing {len(missing_names)} required {where} "
                       f"argument{'s' if len(missing_names) > 1 else ''}: {_quoted_list(missing_names)}")
        else:  # the first shifted value whose annotations disagree, if any, is the one to show
            for j, w, m in shifted:
                wrote, lands = _type_names(w.annotation), _type_names(m.annotation)
                if wrote is not None and lands is not None and not wrote & lands:
                    i, was, now = j, w, m
                    details = (f"the value written for `{was.name}: {was.annotation}` is passed as "
                               f"`{now.name}: {now.annotation}`; Python does not check it at the call")
                    break
        moves = ", ".join(f"argument {j + 1} ({w.name}) now binds {m.name}" for j, w, m in shifted)
        abstract = _abstract_init(rc)  # the class built is an implementation, whose own `__init__` decides
        if abstract:
            details = (details or moves) + (f"; `{rc.target_params_at.dotted}` is abstract: the class built "
                                            "here is one of its implementations")
        yield Finding(
            rule_id="DRIFT013", kind=RuleKind.POSITIONAL_SHIFT,
            severity=Severity.BREAKING if (failure or (details and not rc.through_call)) and not abstract
            else Severity.RISKY,
            title=f"`{rc.label}`: positional argument {i + 1} was `{was.name}`, now binds `{now.name}` "
                  f"({_shift_cause(base_slots, slots, i)})",
            consumer_site=rc.site,
            target_evidence=(ctx.evidence(rc.target_params_at),),
            baseline_evidence=(ctx.evidence(rc.baseline_params_at),) if rc.baseline_params_at else (),
            predicted_failure=failure,
            details=details or moves,
            fix=_shift_fix(ctx, rc, base_slots, i, n),
            symbol=rc.dotted,
        )


def _shift_fix(ctx: CheckContext, rc: ResolvedCall, base_slots, i: int, n: int) -> Fix:
    """Naming the shifted arguments; where that cannot be written because a slot before them was
    deleted (`init_app_state(engine_client, vllm_config, state, args)` lost `vllm_config`), DRIFT012's
    `drop_argument` of that slot's argument: the very fix of the same call, so one edit fixes both
    findings (identical fixes at one line are applied once)."""
    fix = _keywordize_fix(rc, base_slots, i, n)
    if fix.codemod is None:
        return _removed_slot_fix(ctx, rc, n) or fix
    return fix


def _keywordize_fix(rc: ResolvedCall, base_slots, i: int, n: int) -> Fix:
    """Name the shifted arguments as the baseline named them: `f(a, b, c)` -> `f(a, b, c=c)`.

    Safe when the edit binds every value on the baseline exactly as before and on the target to
    the parameter of the same name: each argument from slot i on has a baseline slot (none went
    to the baseline's *args), that slot can be named (not positional-only), and the target takes
    a parameter of that name by keyword. When the named call would still be wrong on the target
    (a required parameter it inserted stays missing, or an earlier slot changed meaning in
    place) the edit is described but manual: it alone would not fix the call."""
    names = [p.name for p in base_slots[i:n]]
    target = {p.name: p for p in rc.target_params or []}
    was = base_slots[i].name if i < len(base_slots) else "?"
    usable = (n <= len(base_slots) and not rc.rec["star_args"]
              and all(p.kind != "POSITIONAL_ONLY" for p in base_slots[i:n])
              and all(nm in target and target[nm].kind in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY") for nm in names)
              and not set(names) & set(rc.rec["keywords"]))
    if not usable:
        return Fix(f"pass `{was}` and the arguments after it by keyword",
                   manual_reason="an argument has no parameter of the same name in both releases")
    callee = rc.rec["callee_src"].rsplit(".", 1)[-1]
    slots = _positional_slots(rc.target_params)
    named = set(names) | set(rc.rec["keywords"]) | {p.name for p in slots[:i]}
    still = [p.name for p in rc.target_params or [] if p.required and p.name not in named]
    # an earlier slot renamed in place keeps its value positionally under another name: the
    # edit would leave that one as it is, so the call is not right on the target either
    renamed = [f"`{b.name}` -> `{t.name}`" for b, t in zip(base_slots[:i], slots[:i]) if b.name != t.name]
    shown = ", ".join(f"`{nm}=`" for nm in names)
    edit = (f"pass argument{'s' if n - i > 1 else ''} {i + 1}{f'-{n}' if n - i > 1 else ''} of "
            f"`{rc.rec['callee_src']}(...)` by keyword as {shown} (the baseline's names, which the target keeps)")
    if still or renamed:
        left = ([f"the target also requires {', '.join(f'`{s}`' for s in still)}"] if still else []) + (
            [f"an earlier positional slot changed meaning ({', '.join(renamed)})"] if renamed else [])
        return Fix(f"{edit}; then {' and '.join(left)}",
                   manual_reason="naming the arguments alone leaves the call wrong on the target: " + "; ".join(left))
    return Fix(edit, codemod="keywordize_arguments", args={"callee": callee, "start": i, "names": names}, tier=SAFE)


def _own_positional_fix(ctx: CheckContext, rc: ResolvedCall, *, append_only: bool) -> Fix | None:
    """`rewrite_arguments` as the target rewrote its own identical positional call (own_rewrites.py,
    facts +pc): safe, since vLLM's maintainers judged that rewrite for those very arguments; the
    codemod writes it only where the consumer's call passes the baseline's arguments verbatim and
    every name the new ones read is bound as the target's call has it (a local of the calling
    function, a module imported)."""
    found = positional_rewrite(ctx, rc, append_only=append_only)
    if found is None:
        return None
    callee = rc.rec["callee_src"].rsplit(".", 1)[-1]
    evidence = f"({found.baseline_evidence} -> {found.evidence})"
    dropped = _dropped_nones(rc, found)
    if dropped:
        # the target's rewrite only stopped passing trailing `None`s, and the consumer passes `None`
        # there too: the same drop, whatever the consumer's other arguments are called
        shown = ", ".join(str(i + 1) for i in dropped)
        return Fix(f"stop passing the `None` at argument{'s' if len(dropped) > 1 else ''} {shown} of "
                   f"`{rc.rec['callee_src']}(...)`, as the target's own `{found.function}` rewrote its own call "
                   f"{evidence}",
                   codemod="drop_argument", tier=SAFE,
                   args={"callee": callee, "positions": dropped, "count": rc.rec["positional"]})
    where = f"as the target's own `{found.function}` rewrote this very call {evidence}"
    built = "".join(f"; `{k}` there is `{v}`" for k, v in found.built.items())
    guard = [f"`{k}` is " + (f"`{v}`" if v else "a local of the calling function") for k, v in sorted(found.names.items())]
    shown = ", ".join([*found.after, *(f"{k}={v}" for k, v in found.add.items())])
    return Fix(f"call `{callee}({shown})` where it passes `({', '.join(found.before)})`, {where}{built}"
               + (f" (written where {', '.join(guard)})" if guard else ""),
               codemod="rewrite_arguments", tier=SAFE,
               args={"callee": callee, "before": list(found.before), "after": list(found.after),
                     **({"add": dict(found.add)} if found.add else {}),
                     **({"names": dict(found.names)} if found.names else {}), "migration": str(found.evidence)})


def _dropped_nones(rc: ResolvedCall, found) -> list[int]:  # type: ignore[no-untyped-def]
    """Positions (0-based) the target's rewrite of its own call dropped at the end, when each
    was the literal `None` there and is the literal `None` in the consumer's call too
    (`compute_logits(hidden_states, None)` -> `compute_logits(hidden_states)`); else []."""
    before, after = list(found.before), list(found.after)
    if found.add or len(after) >= len(before) or before[:len(after)] != after:
        return []
    gone = list(range(len(after), len(before)))
    nones = {int(i) for i, kind, *_ in rc.rec.get("arg_lits") or () if kind == "None"}
    if any(before[i].strip() != "None" or i not in nones for i in gone):
        return []
    return gone


def _own_added_fix(ctx: CheckContext, rc: ResolvedCall, name: str) -> Fix | None:
    """`add_keyword` with the value the target's own rewrite of this very call passes
    (own_additions.py): safe, as vLLM's maintainers wrote that value for those very arguments,
    and the call raised on the target without it."""
    found = own_added_value(ctx, rc, name)
    if found is None:
        return None
    value = found.add[name]
    return Fix(f"pass `{name}={value}`, as the target's own `{found.function}` rewrote this very call "
               f"({found.baseline_evidence} -> {found.evidence})", codemod="add_keyword", tier=SAFE,
               args={"callee": rc.rec["callee_src"].rsplit(".", 1)[-1], "keyword": name, "value": value})


def _manual_value(ctx: CheckContext, rc: ResolvedCall, name: str) -> Fix:
    """The manual edit for a new required argument no value can be written for: concrete where
    the target's own construction shows how it fills it (the consumer writes its equivalent)."""
    seen = target_example(ctx, rc, name)
    if seen is None:
        return Fix(f"pass `{name}=`", manual_reason="the target's code shows no value drift can reuse")
    text, at = seen
    return Fix(f"pass `{name}=` as the target's own construction does: {text} ({at.path}:{at.line})",
               manual_reason="the target's value is built from its own locals, which the consumer's call does not hold")
