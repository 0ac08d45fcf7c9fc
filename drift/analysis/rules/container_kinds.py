"""A value that kept its name but became another builtin kind: DRIFT061's reads on a list, a
tuple, a dict key or a `str` where the baseline had an object (or another container) with that
member.

vLLM changes the kind of a container more often than its element class: `lora_requests` went
from `list[LoRARequest]` to `dict[str, LoRARequest]` (0.10: iterating it yields names),
`block_ids` from `list[int]` to `tuple[list[int], ...]` (0.9: one list per KV-cache group, and
a tuple has no `extend`), `Worker.cache_engine` from one `CacheEngine` to a list of them (0.6:
one per pipeline stage). Each is read off the annotations both trees declare; the builtin's own
members (`hasattr(tuple, name)`) decide whether the consumer's read still works, so a `.count()`
that both kinds have, or a `.upper()` on what became a `str`, says nothing.
"""

from __future__ import annotations

import builtins

from drift.analysis.context import CheckContext
from drift.analysis.paths import Value, builtin_type


def builtin_lacks(ctx: CheckContext, path: list[str], tv: list[Value], k: int) -> tuple[str, str, str, Value] | None:
    """(holder, now, was, the baseline's value at k) when step k (`.name`) reads a member the
    target's builtin value at k - 1 lacks and the baseline's value there had: an object whose
    class defines it (`was` is the class's name), or a builtin of another type that has it (its
    name). None otherwise (or when the target's value is no builtin drift knows)."""
    name = path[k][1:]
    now = builtin_type(tv[k - 1])
    if now is None or hasattr(now, name) or not name.isidentifier():
        return None
    bv = ctx.baseline_paths.steps(path)
    bprev, b = bv[k - 1], bv[k]
    if bprev.kind == "instance" and bprev.cls is not None:
        if not b.known or b.kind == "consumer" or b.owner is None:
            return None
        was = bprev.describe()
    else:
        before = builtin_type(bprev)
        if before is None or before is now or not hasattr(before, name):
            return None
        was = before.__name__
    return holder_text(path, k - 1), now.__name__, was, b


def holder_text(path: list[str], j: int) -> str:
    """What step j of a use's path is, in words: `` `reqs` `` for an attribute, what iterating
    or indexing the one before it gives, what a call returns."""
    step = path[j]
    before = path[j - 1][1:] if j >= 1 and path[j - 1].startswith(".") else "it"
    if step.startswith("."):
        return f"`{step[1:].lstrip('?')}`"
    if step == "[*]":
        return f"what iterating `{before}` yields"
    if step in ("[]", "[:]"):
        return f"an item of `{before}`"
    if step == "()":
        return f"what `{before}()` returns"
    return f"`{before}`"


def stored_kind_clash(ctx: CheckContext, path: list[str], stored: str) -> tuple[str, Value, Value] | None:
    """(what the target keeps there, in words; the target's and the baseline's declared values)
    when the consumer stores one object (`stored` "object") where the target now keeps a
    container and the baseline kept one object of a class (`LLMEngine.scheduler`: one
    `Scheduler` -> a list of them, one per pipeline stage), or a container where the target
    keeps one object and the baseline kept that container. The target's own code then indexes,
    iterates or reads members of what the consumer put there."""
    t = _declared(ctx.target_paths, path)
    b = _declared(ctx.baseline_paths, path)
    now, before = builtin_type(t), builtin_type(b)
    if stored == "object" and now in (list, tuple, dict) and b.kind == "instance" and b.cls is not None:
        return f"a `{now.__name__}`", t, b
    if stored in ("list", "tuple", "dict", "set") and t.kind == "instance" and t.cls is not None \
            and before is getattr(builtins, stored):
        return f"one `{t.describe()}`", t, b
    return None


def _declared(paths, path: list[str]) -> Value:  # type: ignore[no-untyped-def]
    """What the target's own classes declare `path`'s last attribute to hold on the object before
    it, the consumer's stores aside (the consumer's store is the one being judged): the owner's
    target class, or the target bases of the consumer's class it is an object of."""
    owner = paths.value(tuple(path[:-1]))
    if owner.kind == "instance" and owner.cls is not None:
        classes = [owner.cls]
    elif owner.kind == "consumer" and owner.ckind in ("instance", "super") and owner.cref:
        classes = paths.target_bases(owner.cref)
    else:
        return paths.value(tuple(path))
    for cls in classes:
        v = paths.value((f"sym:{cls.dotted}", "()", path[-1]))
        if v.kind != "unknown":
            return v
    return paths.value(tuple(path))
