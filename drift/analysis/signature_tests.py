"""Code on the side of a feature test the target never takes is not checked against it.

Why: a consumer that supports two releases of a callable asks the callable itself
(`if "model_vocab_size" in inspect.signature(load).parameters: kwargs["model_vocab_size"] = n`
/ `else: kwargs["target_embedding_padding"] = n`). The `else` holds the keywords of the older
release; on a target whose callable takes the new name it never runs, so the keywords it writes
are no break. The probe records each such test (probes/ir.py `sigtest`), the solver types its
callable (drift/consumer/infer.py `signature_tests`, target callables only), and here the test is
answered on the target's facts: where every callable the name may hold takes the parameter, the
side written for its absence is dead (and the other way round), and a finding on a line of that
side is dropped. A callable the consumer may define itself, or one drift cannot resolve, answers
nothing and every finding stays. `if hasattr(X, "name"):` is answered the same way, on whether the
target's X (every object the solver types it as) has the name: its `else`, or the statements after
a body that always leaves the block, hold the code for a release whose X lacks it.
"""

from __future__ import annotations

from drift.analysis.context import CheckContext, _callable
from drift.findings import Finding


def drop_dead_signature_sides(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` without those on the side of a signature test that does not run on the target."""
    dead: dict[str, list[tuple[int, int]]] = {}
    for test in getattr(ctx.consumer.inferred, "signature_tests", None) or ():
        takes = target_takes(ctx, test)
        side = test.get("lacks") if takes is True else test.get("takes") if takes is False else None
        if side:
            dead.setdefault(test["path"], []).append((side[0], side[1]))
    for test in getattr(ctx.consumer.inferred, "attribute_tests", None) or ():
        has = target_has(ctx, test)
        side = test.get("lacks") if has is True else test.get("has") if has is False else None
        if side:
            dead.setdefault(test["path"], []).append((side[0], side[1]))
    if not dead:
        return findings
    return [f for f in findings
            if not any(a <= f.consumer_site.line <= b for a, b in dead.get(f.consumer_site.path, ()))]


def target_takes(ctx: CheckContext, test: dict) -> bool | None:
    """Whether every target callable the test's name may hold has a parameter of that name
    (True), none has (False), or drift cannot tell (None: unresolved, or they disagree)."""
    answers = set()
    for callee in test.get("callees") or ():
        _sym, params, _at, _ctor = _callable(ctx.target, target_value(ctx, tuple(callee)))
        if params is None:
            return None
        answers.add(any(p.name == test["name"] for p in params))
    return answers.pop() if len(answers) == 1 else None


def target_has(ctx: CheckContext, test: dict) -> bool | None:
    """Whether every target object the `hasattr` test's subject may be has the name (True), none
    has (False), or drift cannot tell (None)."""
    answers = set()
    for obj in test.get("objects") or ():
        if ctx.target_paths.absent_class(obj) and ctx._relocated_member(obj[0][4:]) is None:
            continue  # a member of a union the target has no such class for: no object of it is tested
        subject = target_value(ctx, tuple(obj))
        if not subject.known or subject.sym is None and subject.cls is None:
            return None
        v = ctx.target_paths.value(tuple(obj) + ("." + test["name"],))
        if v.kind == "unknown":
            return None
        answers.add(v.kind != "missing")
    return answers.pop() if len(answers) == 1 else None


def target_value(ctx: CheckContext, path: tuple[str, ...]):
    """The target's value of `path`; a dotted name whose class or module moved is followed to where
    it lives now, as the findings on the import and the call follow it (the consumer's code is
    judged as if its import were mended, or the moved callable would answer nothing)."""
    v = ctx.target_paths.value(path)
    if v.kind == "missing" and len(path) == 1 and path[0].startswith("sym:"):
        moved = ctx._relocated_member(path[0][4:])
        if moved is not None:
            return ctx.target_paths.value(("sym:" + moved.dotted,))
    return v
