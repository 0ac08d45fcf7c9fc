"""What the target hands an override in one parameter slot, read from the target's own declaration.

A plugin's class overrides a vLLM method (`apply(self, layer, x)` of a quantization method) and
reads attributes of what vLLM passes (`layer.ep_rank`). The plugin seldom says what that is
(`layer: torch.nn.Module`, or nothing), but vLLM's declaration of the method it overrides does
(`layer: "FusedMoE"` in one release, `layer: "RoutedExperts"` in the next): that annotation, read on
each side, types the slot, so a read that works on the baseline's class and not on the target's is
seen. Where the overridden declaration names no class of the target (`layer: Module`), the class's
other methods often do for the same parameter name (the object a quantization method's hooks all
receive): one class named for that name across the class's methods types the slot too, as a
weaker inference (`SIBLING`), which the rules report as risky. A quoted annotation naming a class
the declaring module never imports (`"FusedMoE"  # type: ignore[name-defined]`) is a forward
reference: the one class of that name in the package.

Kept out of `paths.py` so the evaluator only dispatches here (`over:` roots, probes/reach.py).
"""

from __future__ import annotations

from typing import Any

from drift.model.facts import FunctionFacts
from drift.model.index import Symbol

# `ev` below is drift.analysis.paths.PathEvaluator (not imported: paths.py imports this module)
PathEvaluator = Any

DECLARED = "declared"  # the overridden method's own annotation of the slot
SIBLING = "sibling"  # the same parameter name's annotation on the declaring class's other methods


def parse_slot(ref: str) -> tuple[str, str, int, str] | None:
    """`pkg.mod.Cls.meth:1:layer` -> (consumer class, method, slot, parameter name)."""
    parts = ref.split(":")
    if len(parts) != 3 or "." not in parts[0]:
        return None
    cref, method = parts[0].rsplit(".", 1)
    try:
        return cref, method, int(parts[1]), parts[2]
    except ValueError:
        return None


def slot_class(ev: PathEvaluator, ref: str) -> tuple[Symbol, str] | None:
    """The target class this side hands the override's parameter `ref`, and how it is known
    (DECLARED or SIBLING); None when the consumer's class overrides no target method there, the
    declaration names no one class, or the consumer extends that class (vLLM may build the
    consumer's subclass in its place, with attributes of its own)."""
    found = _declared_param(ev, ref)
    if found is None:
        return None
    owner, param = found
    cls = _annotated_class(ev, param.annotation, owner.module)
    how = DECLARED
    if cls is None:
        cls, how = _sibling_class(ev, owner, param.name), SIBLING
    if cls is None or _extended_by_consumer(ev, cls):
        return None
    return cls, how


def slot_container(ev: PathEvaluator, ref: str):  # type: ignore[no-untyped-def]
    """The builtin container the overridden method's declaration names for the slot (`kv_caches:
    dict[str, torch.Tensor]`), as a value; None for anything else. A slot that held a dict on the
    baseline and an object of a class on the target is read as each side declares it."""
    found = _declared_param(ev, ref)
    if found is None or not found[1].annotation:
        return None
    v = ev._annotation_value(found[1].annotation, found[0].module)
    return v if v.kind == "container" else None


def _declared_param(ev: PathEvaluator, ref: str):  # type: ignore[no-untyped-def]
    """(declaring target class, its parameter) for the override slot `ref`: the method the
    consumer's class overrides, found in its target bases' MROs; None when there is none."""
    parsed = parse_slot(ref)
    if parsed is None:
        return None
    cref, method, slot, name = parsed
    if cref not in ev.consumer.classes:
        return None
    declared = _declaration(ev, ev.target_bases(cref), method)
    param = _param(declared[1], slot, name) if declared is not None else None
    return (declared[0], param) if param is not None else None


def _declaration(ev: PathEvaluator, bases: list[Symbol], method: str) -> tuple[Symbol, FunctionFacts] | None:
    """The first target class in the bases' MROs that defines `method`, with its facts."""
    for base in bases:
        for owner in ev.index.mro(base):
            fn = owner.as_class.methods.get(method)
            if fn is not None:
                return owner, fn
    return None


def _param(fn: FunctionFacts, slot: int, name: str):  # type: ignore[no-untyped-def]
    """The declaration's parameter for the override's slot: the same name when the declaration
    has it (vLLM passes `layer=self` by keyword as often as by position), else the same position."""
    params = fn.params
    for p in params:
        if p.name == name:
            return p
    if 0 < slot < len(params) and params[slot].kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"):
        return params[slot]
    return None


def _annotated_class(ev: PathEvaluator, text: str | None, module: str) -> Symbol | None:
    """The target class an annotation names, or, for a quoted name the module never binds, the
    one class of that name in the package (a forward reference)."""
    if not text:
        return None
    v = ev._annotation_value(text, module)
    if v.kind == "instance" and v.cls is not None:
        return v.cls
    name = text.strip()
    if len(name) > 2 and name[0] == name[-1] and name[0] in "'\"" and name[1:-1].isidentifier():
        found = ev.index.definitions_of(name[1:-1], ("class",))
        if len(found) == 1:
            return found[0]
    return None


def _sibling_class(ev: PathEvaluator, owner: Symbol, name: str) -> Symbol | None:
    """The one target class the declaring class's methods (its MRO's) annotate a parameter
    called `name` with; None when they name none or several."""
    seen: dict[str, Symbol] = {}
    for cls in ev.index.mro(owner):
        for fn in cls.as_class.methods.values():
            for p in fn.param_facts:
                if p.name == name and p.annotation:
                    found = _annotated_class(ev, p.annotation, cls.module)
                    if found is not None:
                        seen.setdefault(found.dotted, found)
    return next(iter(seen.values())) if len(seen) == 1 else None


def _extended_by_consumer(ev: PathEvaluator, cls: Symbol) -> bool:
    """A consumer class extends `cls`: what the target hands may be that subclass (the target
    classes every consumer class extends, gathered once per side)."""
    extended = ev.__dict__.get("_consumer_extends")
    if extended is None:
        extended = ev.__dict__["_consumer_extends"] = {
            o.dotted for ref in ev.consumer.classes for b in ev.target_bases(ref) for o in ev.index.mro(b)}
    return cls.dotted in extended
