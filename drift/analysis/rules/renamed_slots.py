"""A positional argument whose slot the target renamed and retyped (DRIFT144).

vLLM 0.8.5 changed `init_app_state(engine_client, model_config, state, args)` into
`init_app_state(engine_client, vllm_config, state, args)` and now reads `vllm_config.model_config`;
vLLM 0.9.1 did the same to `init_worker_distributed_environment(parallel_config, ...)`. The arity
is unchanged, so a signature check sees nothing; a consumer that passes its `ModelConfig` by
position hands the target an object of the old parameter's class where the new one expects
another, and fails inside the target on the first member of the new class it reads. The solved
model (drift/consumer/infer.py `target_args`) says which positional arguments are typed as target
objects; the slot's parameter is read from both releases' declarations.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator

from drift.analysis.context import CheckContext, _callable
from drift.analysis.rules.base import rule
from drift.analysis.rules.callers import mro_names
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Param, Symbol
from drift.probes.reach import strip_optional
from drift.probes.srctext import dotted as _dotted


def _annotated_class(param: Param, index: PackageIndex, module: str) -> Symbol | None:
    """The one class a parameter's annotation names (`ModelConfig`, `Optional[VllmConfig]`, a
    quoted forward reference), or None for anything else (a union, a container, `Any`)."""
    text = (param.annotation or "").strip().strip("'\"")
    if not text:
        return None
    try:
        node = strip_optional(ast.parse(text, mode="eval").body)
    except SyntaxError:
        return None
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    name = _dotted(node)
    sym = index.resolve_in(module, name) if name else None
    return sym if sym is not None and sym.kind == "class" else None


def _is_a(index: PackageIndex, cls: Symbol, base: Symbol) -> bool:
    return base.dotted in mro_names(index, [cls])


def _short(sym: Symbol) -> str:
    return sym.dotted.rsplit(".", 1)[-1]


def _slots(params: list[Param] | None) -> list[Param]:
    return [p for p in params or () if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]


def _positional(params: list[Param] | None, position: int) -> Param | None:
    slots = _slots(params)
    return slots[position] if position < len(slots) else None


def _starred_calls(ctx: CheckContext) -> set[tuple[str, int]]:
    """(path, line) of calls passing `*args`: the slots of what follows are not known."""
    out = ctx.memo.get("renamed_slots.starred")
    if out is None:
        out = ctx.memo["renamed_slots.starred"] = {
            (mod.get("path"), rec.get(at)) for mod in ctx.usage for rec in mod.get("calls") or []
            if rec.get("star_args") for at in ("line", "call_line")}
    return out


# Names an annotation may use that are no class of the target's: a slot that only changed these
# (`Optional[int]` -> `int | None`) changed no class.
_TYPING_WORDS = frozenset({"List", "list", "Dict", "dict", "Tuple", "tuple", "Set", "set", "Optional", "Union",
                           "Sequence", "Mapping", "Iterable", "Any", "None", "str", "int", "float", "bool",
                           "bytes", "typing", "Callable", "Type", "type", "Literal"})


def _classes_named(param: Param) -> frozenset[str]:
    """The class names a parameter's annotation writes, typing's and the builtins' aside
    (`List[BaseModelPath]` -> {"BaseModelPath"}; `List[str]` -> {})."""
    words = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", param.annotation or "")
    return frozenset(w for w in words if w not in _TYPING_WORDS)


def _renamed_in_place(tparams: list[Param], bparams: list[Param], position: int) -> tuple[Param, Param] | None:
    """(target param, baseline param) at the slot when it was renamed in place: as many positional
    slots, the old name gone and the new one new; a slot inserted or removed shifts the arguments
    after it, which the arity and shift rules say."""
    tp, bp = _positional(tparams, position), _positional(bparams, position)
    if tp is None or bp is None or tp.name == bp.name:
        return None
    if len(_slots(tparams)) != len(_slots(bparams)) or bp.name in {p.name for p in tparams} \
            or tp.name in {p.name for p in bparams}:
        return None
    return tp, bp


@rule("DRIFT144", RuleKind.ARGUMENT_RETYPED)
def renamed_slot_retyped(ctx: CheckContext) -> Iterator[Finding]:
    """A positional argument of a target class's object, passed to a target callable whose
    parameter at that slot the target renamed and re-annotated with another class (`model_config:
    ModelConfig` became `vllm_config: VllmConfig`): the argument was an object of the old class
    and is no object of the new one. Nothing fails at the call; the target fails inside, on the
    first member of the new class it reads off the old object (an AttributeError). Only a slot
    renamed in place (as many positional slots on both sides, the old name gone, the new one new):
    a slot inserted or removed shifts the arguments after it, which DRIFT012's arity and shift
    findings say. An argument drift cannot type counts where the consumer named it exactly as the
    baseline's parameter at that slot (`served_model_names`) and the new annotation names classes
    the old one did not (`List[str]` -> `List[BaseModelPath]`, vLLM 0.6.2's `OpenAIServing`)."""
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    starred = _starred_calls(ctx)
    seen: set[tuple[str, int, int]] = set()
    for use in getattr(ctx.consumer.inferred, "target_args", None) or ():
        key = (use["path"], use["line"], use["position"])
        if key in seen or (use["path"], use["line"]) in starred:
            continue
        found = _slot_change(ctx, use)
        if found is None:
            continue
        seen.add(key)
        tsym, tp, bp, new, old, arg = found
        label = _short(tsym)
        n = use["position"] + 1
        yield Finding(
            rule_id="DRIFT144", kind=RuleKind.ARGUMENT_RETYPED, severity=Severity.BREAKING,
            title=f"`{label}(...)`'s argument {n} is a `{_short(arg)}`; the target renamed that "
                  f"parameter `{bp.name}: {_short(old)}` to `{tp.name}: {_short(new)}`",
            consumer_site=Location(use["path"], use["line"], symbol=f"{tsym.dotted}.{tp.name}"),
            target_evidence=(Location(tsym.path, tp.line or tsym.line, symbol=f"{tsym.dotted}.{tp.name}"),),
            baseline_evidence=(Location(old.path, old.line, symbol=old.dotted),),
            predicted_failure=f"AttributeError inside `{label}`: a `{_short(arg)}` has no member "
                              f"of `{_short(new)}` it reads off `{tp.name}`",
            details=f"passed by position, so the call still binds; `{arg.dotted}` is no `{new.dotted}`",
            fix=Fix(f"pass a `{_short(new)}` as argument {n} (`{tp.name}`)",
                    manual_reason="where the consumer gets that object is its own code"),
            symbol=f"{tsym.dotted}.{tp.name}",
        )
    yield from _named_for_old_slots(ctx, seen)


def _slot_change(ctx: CheckContext, use: dict):  # type: ignore[no-untyped-def]
    """(callee, target param, baseline param, its new class, its old class, the argument's class)
    when the slot was renamed and retyped and the argument fit the old class only."""
    for callee in use["callees"]:
        tv, bv = ctx.target_paths.value(tuple(callee)), ctx.baseline_paths.value(tuple(callee))
        tsym, tparams, tat, _ = _callable(ctx.target, tv)
        bsym, bparams, bat, _ = _callable(ctx.baseline, bv)
        if tparams is None or bparams is None or tat is None or bat is None:
            continue
        pair = _renamed_in_place(tparams, bparams, use["position"])
        if pair is None:
            continue
        tp, bp = pair
        new, old = _annotated_class(tp, ctx.target, tat.module), _annotated_class(bp, ctx.baseline, bat.module)
        if new is None or old is None or new.dotted == old.dotted:
            continue
        classes = []
        for obj in use["objects"]:
            targ, barg = ctx.target_paths.value(tuple(obj)), ctx.baseline_paths.value(tuple(obj))
            if targ.kind != "instance" or barg.kind != "instance" or targ.cls is None or barg.cls is None:
                return None
            if not _is_a(ctx.baseline, barg.cls, old) or _is_a(ctx.target, targ.cls, new) \
                    or _is_a(ctx.target, new, targ.cls):
                return None
            classes.append(targ.cls)
        return tsym, tp, bp, new, old, classes[0]
    return None


def _named_for_old_slots(ctx: CheckContext, seen: set[tuple[str, int, int]]) -> Iterator[Finding]:
    """A positional argument drift cannot type, but which the consumer named exactly as the
    baseline's parameter at that slot (`served_model_names`), where the target renamed the slot
    in place and its annotation names other classes (`served_model_names: List[str]` ->
    `base_model_paths: List[BaseModelPath]`): the value was written for the old parameter, and
    the target reads members of the new class off it."""
    for mod in ctx.usage:
        for rec in mod.get("calls") or ():
            names = rec.get("arg_names") or ()
            if not any(names) or rec.get("star_args"):
                continue
            callee = tuple(rec.get("path") or ())  # the callee's path, as the usage reader resolved it
            if not callee:
                continue
            tsym, tparams, tat, _ = _callable(ctx.target, ctx.target_paths.value(callee))
            bsym, bparams, bat, _ = _callable(ctx.baseline, ctx.baseline_paths.value(callee))
            if tparams is None or bparams is None or tsym is None:
                continue
            for i, name in enumerate(names):
                key = (mod.get("path"), rec["line"], i)
                pair = _renamed_in_place(tparams, bparams, i) if name else None
                if pair is None or key in seen or pair[1].name != name:
                    continue
                tp, bp = pair
                new, old = _classes_named(tp), _classes_named(bp)
                if not tp.annotation or not bp.annotation or new == old or not new:
                    continue
                seen.add(key)
                label = _short(tsym)
                yield Finding(
                    rule_id="DRIFT144", kind=RuleKind.ARGUMENT_RETYPED, severity=Severity.BREAKING,
                    title=f"`{label}(...)`'s argument {i + 1} `{name}` was written for `{bp.name}: "
                          f"{bp.annotation}`; the target renamed that parameter to `{tp.name}: {tp.annotation}`",
                    consumer_site=Location(mod["path"], rec["line"], symbol=f"{tsym.dotted}.{tp.name}"),
                    target_evidence=(Location(tsym.path, tp.line or tsym.line, symbol=f"{tsym.dotted}.{tp.name}"),),
                    baseline_evidence=(Location(bsym.path, bp.line or bsym.line, symbol=f"{bsym.dotted}.{bp.name}"),)
                    if bsym is not None else (),
                    predicted_failure=f"the call binds; `{label}` then reads members of "
                                      f"{', '.join(sorted(new))} off `{tp.name}`, which the old value has not",
                    details=f"passed by position, so the call still binds; the argument is the consumer's "
                            f"`{name}`, named as the baseline's parameter, and no {', '.join(sorted(new))}",
                    fix=Fix(f"pass `{tp.name}: {tp.annotation}` as argument {i + 1}",
                            manual_reason="building the new argument from the old value is the consumer's own code"),
                    symbol=f"{tsym.dotted}.{tp.name}",
                )


RULES = [renamed_slot_retyped]
