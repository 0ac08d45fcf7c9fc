"""How the target's own subclasses define a method their base newly declares as a stub.

Why: when vLLM adds a method to a base class that only raises NotImplementedError (vLLM 0.13's
`WorkerBase.sample_tokens`), its own subclasses show what the method is for: the GPU worker's
`sample_tokens` hands the call to `self.model_runner.sample_tokens(...)`. A consumer's subclass
(vllm-ascend's `NPUWorker`) that lacks it is told concretely: define it as that sibling does, and,
where the object the sibling hands the call to is the consumer's own (`NPUModelRunner`) and has
no such method either, that it needs one too; the delegation alone would fail one call further.
Read from facts the probe records already (`held_calls`: calls a method makes on `self.<x>`;
the consumer's `self_attrs`); the edit stays manual, the method's contract being the target's.
"""

from __future__ import annotations

from dataclasses import dataclass

from drift.analysis.context import CheckContext
from drift.model.facts import ModuleFacts
from drift.model.index import Symbol, def_of


@dataclass(frozen=True)
class Delegation:
    sibling: Symbol  # the target subclass whose method hands the call on
    held: str  # the attribute it hands the call to (`model_runner`)
    line: int
    lacking: str | None  # the consumer's class held there, when it lacks the method too


def sibling_delegation(ctx: CheckContext, consumer_cls: dict, stub: Symbol, name: str) -> Delegation | None:
    """The target subclass of `stub`'s class whose `name` calls `self.<x>.<name>(...)`, when every
    subclass defining `name` hands it to the same attribute; None otherwise (no sibling, one that
    does something else, or siblings that disagree)."""
    owner = stub.owner
    if owner is None:
        return None
    found: list[tuple[Symbol, str, int]] = []
    for mod_name in ctx.target.modules_mentioning(def_of(name)):
        for cname, cls in ModuleFacts(ctx.target.modules[mod_name]).classes.items():
            method = cls.methods.get(name)
            if method is None:
                continue
            sym = ctx.target.lookup(f"{mod_name}.{cname}")
            if sym is None or sym.dotted == owner.dotted or \
                    owner.dotted not in {o.dotted for o in ctx.target.mro(sym)}:
                continue
            hands = [(holder[5:], calls[name]) for holder, calls in method.behaviour.held_calls.items()
                     if name in calls and holder.startswith("self.")]
            if len(hands) != 1:
                return None  # a sibling that does something else (or two things): no one way to copy
            found.append((sym, *hands[0]))
    if not found or len({h for _s, h, _l in found}) != 1:
        return None
    sibling, held, line = found[0]
    lacking = None
    attr = (consumer_cls.get("self_attrs") or {}).get(held) or {}
    path = attr.get("path")
    if path and len(path) == 2 and str(path[0]).startswith("sym:") and path[1] == "()":
        ref = str(path[0])[4:]
        if ref in ctx.consumer.classes:
            v = ctx.target_paths.value((str(path[0]), "()", f".{name}"))
            if v.kind == "missing":
                lacking = ref
    return Delegation(sibling, held, line, lacking)
