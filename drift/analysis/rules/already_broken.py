"""Whether an override that no longer fits the target already did not fit the baseline.

Two checks, one question ("would the finding hold against the baseline too?"):

* the same caller: DRIFT070 reports a target call an override no longer binds to. When the baseline's own
call of that method from the same function (same class and method, or the same module-level
function) did not bind to the override either, the consumer's path through that caller raised a
TypeError on the baseline too: the upgrade changed which argument Python names, not whether the
call fails. That is no change the upgrade brought (the override was written for an older vLLM,
or is never reached through that caller), so the finding is lowered to risky rather than dropped:
the failure is real if the path runs, but the baseline says it did not run for the consumer.

Only the same caller counts. A failure pooled over other baseline calls is no evidence: a new
caller (a MoE runner that now passes `topk_weights=`) may be the one the consumer reaches. And
only an override no baseline call of that name fitted: one that fitted some baseline call ran
there, and the target that leaves only failing callers is the change (a V0 engine's
`log(stats)` gone, V1's `log()` left).

* the baseline's declaration: where the target's calls are not known (a kernel launched as
  `kernel[grid](...)`) the override is held to the target's declaration. An override that already
  lacked a required parameter of the baseline's declaration (not taken by name, and not renamed in
  its positional slot) was written against an older declaration: a caller of the baseline's could
  not bind to it either. The new parameter it also lacks is
  lowered to risky, for the same reason.
"""

from __future__ import annotations

from typing import Any, Callable

# site: [path, line, positional count, keywords, star, class, method, receiver] (reach._call_sites)


def _same_caller(site: list[Any], other: list[Any]) -> bool:
    """Same enclosing function (a method by its class's dotted name and its own name, a
    module-level function by its module path and name) and the same receiver: the same call,
    whatever the baseline's declaration of the method admitted (an abstract `apply(layer, x,
    router_logits)` that its own callers passed a dozen more keywords)."""
    if len(other) > 7 and len(site) > 7 and other[7] != site[7]:
        return False
    if site[5] is not None:
        return other[5] == site[5] and other[6] == site[6]
    return other[5] is None and other[6] == site[6] and other[0] == site[0]


def failed_at_same_caller(fails: Callable[[list[Any]], bool], site: list[Any], baseline_sites: list[list[Any]]) -> bool:
    """True when the baseline has calls of the method from `site`'s own function, `fails` (the
    override does not bind to the call) holds for each of them, and for every other call of that
    name the baseline made too: an override one baseline call did fit ran on that path (a V0
    engine's `log(stats)`, a decoder layer's `forward(hidden_states, output)`), and a target that
    leaves it only the failing callers is the change. Calls with *args/**kwargs say nothing."""
    same = [b for b in baseline_sites if _same_caller(site, b)]
    return bool(same) and all(fails(b) for b in same) and all(b[4] or fails(b) for b in baseline_sites)


def caller_desc(site: list[Any]) -> str:
    """The details line of a lowered finding."""
    where = f"{site[5].rsplit('.', 1)[-1]}.{site[6]}" if site[5] else site[6]
    return (f"the baseline's call of this method in `{where}` did not bind to the override either: "
            "the path through that caller already raised on the baseline")


def lacked_on_baseline(sig: list[list[Any]], baseline_params: list) -> list[str]:
    """Required parameters of the baseline's declaration that the override (`sig`: [name, kind,
    has default], receiver excluded) does not take by name, the way DRIFT070 judges a new one
    ("required, so the callers pass it"), except one in whose positional slot the override has a
    name the baseline does not (a rename at the same position still gets the value). Empty when
    the override takes **kwargs."""
    if any(k == "VAR_KEYWORD" for _n, k, _d in sig):
        return []
    names = {n for n, k, _d in sig if k != "POSITIONAL_ONLY"}
    slots = [n for n, k, _d in sig if k in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    before = {p.name for p in baseline_params}
    out: list[str] = []
    position = 0
    for p in baseline_params:
        positional = p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
        renamed = positional and position < len(slots) and slots[position] not in before
        if p.required and p.name not in names and p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD") and not renamed:
            out.append(p.name)
        position += positional
    return out


def receiver_named(sig: list[list[Any]], method: Any) -> list[list[Any]]:
    """`sig` with its first parameter named `self` where the consumer's function replaces a
    target method (not a staticmethod): a patch `def patched(scheduler_self, request, ids)` is
    bound like a method, so its first parameter is the receiver whatever its name, and a call
    `self.m(request, ids)` fits it."""
    if not sig or sig[0][0] in ("self", "cls") or sig[0][1] not in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"):
        return sig
    if getattr(method, "kind", None) != "method":
        return sig
    if any(d.rsplit(".", 1)[-1] == "staticmethod" for d in method.as_function.decorators):
        return sig
    return [["self", sig[0][1], sig[0][2]]] + [list(p) for p in sig[1:]]
