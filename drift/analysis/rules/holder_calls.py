"""DRIFT141: a call through what a target class holds (`self.model.compute_logits(h, None)` in a
subclass of vLLM's `GPUModelRunner`) passing the arguments the target's own class stopped passing.

Why: a platform plugin's model runner calls its model through `self.model`, which vLLM's
`load_model` builds with a factory (`get_model()`, annotated `nn.Module`): drift cannot type the
value, so no signature of `compute_logits` is there to check the call against. vLLM's own class
calls it too, though, through the same attribute, and when every model's method changes (vLLM 0.10
dropped `sampling_metadata` from `compute_logits`), vLLM rewrites its own calls with it: 0.9.2's
`GPUModelRunner` passes `(sample_hidden_states, None)`, 0.13's `(sample_hidden_states)`. A consumer's
call in a subclass still passing what the baseline's class passed is that rewrite left undone
(nnsight 0.5.12's runner). The evidence is the facts' `pos_calls` (a method call on `self` or what
it holds, positional arguments only) of every method in the base's MRO, in both releases.

Reported only where the holder is not the consumer's own (its class never sets or declares it),
drift did not type the call (the signature rules judge those), every such call of the target's
class passes one number of arguments and every one of the baseline's another, and the consumer's
call passes the baseline's number with no keyword or `*args`. Risky: the receiver's own signature is
not seen, only vLLM's change to how it calls it.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _consumer_classes
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol


def _own_calls(index: PackageIndex, bases: list[Symbol], callee: str) -> dict[int, Location]:
    """{number of positional arguments: one place} of the calls `callee` (`self.model.m`) that the
    methods of `bases`' MROs make, positional arguments only."""
    out: dict[int, Location] = {}
    seen: set[str] = set()
    for base in bases:
        for owner in index.mro(base):
            if owner.dotted in seen:
                continue
            seen.add(owner.dotted)
            for name, fn in owner.as_class.methods.items():
                for call in fn.behaviour.pos_calls:
                    if call.callee == callee:
                        out.setdefault(len(call.args), Location(owner.path, call.line,
                                                                symbol=f"{owner.dotted}.{name}"))
    return out


# what a class may annotate a holder with and still leave its methods unknown to drift
_OPAQUE = frozenset({"nn.Module", "torch.nn.Module", "Module", "Any", "typing.Any", "object"})


def _built_opaquely(index: PackageIndex, bases: list[Symbol], holder: str) -> bool:
    """Whether the base class sets `self.<holder>` from a call (`self.model = get_model(...)`) or
    annotates it as a bare `nn.Module`: a value whose class drift does not know. A holder annotated
    with anything else (`dict[str, Tensor]`, a vLLM class) has a known type, whose methods are
    judged by what they declare, not by how the target's own code happens to call them."""
    for base in bases:
        hit = index.instance_attrs(base).get(holder)
        if hit is None:
            continue
        value = hit[1].value
        if not isinstance(value, str):
            return False
        if value.startswith("call:"):
            return True
        if value.startswith("ann:"):
            ann = value[4:].split("[", 1)[0].strip().strip("'\"")
            return ann in _OPAQUE or ann.endswith("| None") and ann.split("|")[0].strip() in _OPAQUE
        return False
    return False


@rule("DRIFT141", RuleKind.POSITIONAL_ARITY, Severity.RISKY)
def holder_call_arity(ctx: CheckContext) -> Iterator[Finding]:
    """A positional call `self.<holder>.<method>(...)` in a consumer subclass of a target class,
    through a holder drift cannot type, passing the number of arguments the baseline's own class
    passed there, where the target's own class now passes another (`self.model.compute_logits(h,
    None)`: vLLM 0.13's `GPUModelRunner` calls it with one argument, 0.9.2's with two)."""
    if ctx.baseline is None:
        return
    typed = {id(rc.rec) for rc in ctx.binding_calls}
    classes = {(cls.get("path"), cls.get("qual")): (cls, tb, bb) for _ref, cls, tb, bb in _consumer_classes(ctx)}
    memo: dict[tuple[str, str], tuple[dict[int, Location], dict[int, Location]]] = {}
    for mod in ctx.usage:
        for rec in mod.get("calls") or ():
            src = str(rec.get("callee_src") or "")
            parts = src.split(".")
            if len(parts) != 3 or parts[0] != "self" or rec.get("star_args") or rec.get("keywords") \
                    or id(rec) in typed or not isinstance(rec.get("positional"), int):
                continue
            owner = (rec.get("function") or "").rpartition(".")[0]
            hit = classes.get((mod.get("path"), owner))
            if hit is None:
                continue
            cls, tb, bb = hit
            own = {*(cls.get("self_attrs") or ()), *(cls.get("class_attrs") or ())}
            if not tb or not bb or parts[1] in own:
                continue
            if not (_built_opaquely(ctx.target, tb, parts[1]) and _built_opaquely(ctx.baseline, bb, parts[1])):
                continue
            key = (cls.get("qual") or "", src)
            if key not in memo:
                memo[key] = (_own_calls(ctx.target, tb, src), _own_calls(ctx.baseline, bb, src))
            now, was = memo[key]
            passed = rec["positional"]
            if len(now) != 1 or len(was) != 1 or now.keys() == was.keys() or passed not in was:
                continue
            (n_now, at_now), (_, at_was) = next(iter(now.items())), next(iter(was.items()))
            owner_name = at_now.symbol.rsplit(".", 2)[-2] if at_now.symbol else "the base"
            yield Finding(
                rule_id="DRIFT141", kind=RuleKind.POSITIONAL_ARITY, severity=Severity.RISKY,
                title=f"`{src}(...)` passes {passed} argument(s), as the baseline's own `{owner_name}` did; the "
                      f"target's now passes {n_now}",
                consumer_site=Location(mod["path"], rec["line"], symbol=src, col=(rec.get("col") or 0) + 1),
                target_evidence=(at_now,),
                baseline_evidence=(at_was,),
                predicted_failure=(f"TypeError: {parts[2]}() takes {n_now + 1} positional arguments but "
                                   f"{passed + 1} were given" if n_now < passed else None),
                details=(f"`self.{parts[1]}` is what the target's class holds (drift cannot type it); every call "
                         f"`{src}(...)` of the target's class passes {n_now} positional argument(s), every one of "
                         f"the baseline's passed {passed}: the target rewrote its own calls as the method changed"),
                fix=Fix(f"call `{src}(...)` as the target's own `{owner_name}` now does ({at_now.path}:{at_now.line})",
                        manual_reason="which argument went, or came, is read in the target's call"),
                symbol=src,
            )


RULES = [holder_call_arity]
