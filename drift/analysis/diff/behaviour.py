"""Behaviour changes an AST can prove: two-phase hand-offs, return shapes that start to
depend on a parameter, new state-guarded raises and new asserts on argument attributes."""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Mapping

from drift.analysis.diff.annotations import normalise
from drift.analysis.diff.kinds import ChangeKind
from drift.analysis.diff.model import Change, Evidence
from drift.analysis.diff.nulls import none_rejected
from drift.analysis.diff.site import Site
from drift.model.facts import AssertFacts, Behaviour, FunctionFacts, RaiseFacts, Table

_NO_METHODS: Table[FunctionFacts] = Table({}, FunctionFacts)


def _lines(mapping: Mapping[str, list[int]], field: str) -> list[int]:
    return list(mapping.get(field) or ())


def find_handoff(method: str, fn: FunctionFacts, siblings: Table[FunctionFacts]) -> list[tuple[str, str]]:
    """(field, sibling) pairs: `fn` sets self.<field>, a sibling method reads and resets it."""
    pairs = []
    for field in sorted(fn.behaviour.self_sets):
        for name, other in sorted(siblings.items(), key=lambda item: item[0]):
            if name == method:
                continue
            beh = other.behaviour
            if _lines(beh.self_reads, field) and _lines(beh.self_resets, field):
                pairs.append((field, name))
    return pairs


def compare_behaviour(
    old_fn: FunctionFacts,
    new_fn: FunctionFacts,
    *,
    site: Site,
    method: str | None = None,
    old_siblings: Table[FunctionFacts] | None = None,
    new_siblings: Table[FunctionFacts] | None = None,
) -> Iterator[Change]:
    old_beh, new_beh = old_fn.behaviour, new_fn.behaviour
    yield from _returns_none(old_fn, new_fn, old_beh, new_beh, site=site, method=method,
                             siblings=new_siblings or _NO_METHODS)
    yield from _return_shapes(old_beh, new_beh, site=site)
    raises = new_beh.raises
    if raises:
        yield from _state_raises(old_fn, new_fn, raises, site=site, method=method,
                                 old_siblings=old_siblings or _NO_METHODS, new_siblings=new_siblings or _NO_METHODS)
    if new_beh.asserts:
        yield from _asserts(old_fn, new_fn, site=site)
    if new_beh.param_derefs:
        yield from none_rejected(old_fn, new_fn, site=site)


def _returns_none(old_fn: FunctionFacts, new_fn: FunctionFacts, old_beh: Behaviour, new_beh: Behaviour, *,
                  site: Site, method: str | None, siblings: Table[FunctionFacts]) -> Iterator[Change]:
    new_tail = new_beh.tail_return_none
    if not new_tail or old_beh.tail_return_none:
        return
    if old_fn.returns == "None" or normalise(old_fn.returns) == "None":
        return  # it was declared to return None already
    old_ev = site.old(old_fn.line, f"returned {old_fn.returns or 'a value'}")
    pairs = find_handoff(method, new_fn, siblings) if method else []
    if not pairs:
        if not _none_on_every_path(old_beh, new_beh):
            return
        yield site.change(
            ChangeKind.RETURNS_NONE,
            f"{method or site.symbol}() now returns None on every path (it returned a value before)",
            old=old_ev,
            new=site.new(new_tail, "return None"),
        )
        return
    new_sets = new_beh.self_sets
    for field, sibling in pairs:
        sib = siblings[sibling].behaviour
        evidence: list[Evidence] = list(site.new(new_tail, "return None"))
        evidence += [Evidence(site.new_path, ln, f"sets self.{field}") for ln in _lines(new_sets, field)]
        evidence += [
            Evidence(site.new_path, ln, f"{sibling} reads self.{field}")
            for ln in _lines(sib.self_reads, field)
        ]
        evidence += [
            Evidence(site.new_path, ln, f"{sibling} resets self.{field}")
            for ln in _lines(sib.self_resets, field)
        ]
        yield site.change(
            ChangeKind.TWO_PHASE_PROTOCOL,
            f"two-phase protocol: {method} now returns None and hands state to "
            f"{sibling} via self.{field}",
            old=old_ev,
            new=tuple(evidence),
        )


def _return_shapes(old_beh: Behaviour, new_beh: Behaviour, *, site: Site) -> Iterator[Change]:
    # a return shape is a small mapping the model hands out as it is (SCHEMA.md "return_shapes")
    new_shapes = new_beh.return_shapes
    if not new_shapes:
        return
    old_deps = {frozenset(s.get("depends_on") or ()) for s in old_beh.return_shapes}
    for shape in new_shapes:
        deps = frozenset(shape.get("depends_on") or ())
        if not deps or deps in old_deps:
            continue  # no parameter decides it, or the same ones already did
        yield site.change(
            ChangeKind.RETURN_SHAPE_DEPENDS,
            f"returns `{shape.get('src')}` ({shape.get('shape')}), decided by "
            f"{', '.join(sorted(deps))}",
            new=site.new(shape.get("line"), "return"),
        )


def _none_on_every_path(old_beh: Behaviour, new_beh: Behaviour) -> bool:
    """The new body returns no value anywhere (facts 1.5 `value_returns`) and the old one did.

    Facts without `value_returns` (an older probe) prove nothing, so nothing is said."""
    if not (new_beh.knows_value_returns and old_beh.knows_value_returns):
        return False
    return not new_beh.value_returns and bool(old_beh.value_returns)


_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "__attrs_post_init__", "model_post_init"})
_SELF_ATTR = re.compile(r"\bself\.([A-Za-z_][A-Za-z0-9_]*)")
_FIELD = re.compile(r"\{[^{}]*\}")


def _message_key(message: str | None) -> str:
    """A raise message without its f-string fields and spacing: `{backend}` and `{self.backend}`
    are the same message."""
    return " ".join(_FIELD.sub("{}", message or "").split()).lower()


def _messages(functions: Iterable[FunctionFacts]) -> set[str]:
    return {_message_key(r.message) for fn in functions for r in fn.behaviour.raises}


def _state_attrs(siblings: Mapping[str, FunctionFacts]) -> set[str]:
    """Attributes that carry state between calls: cleared (`= None`) by a method outside
    construction, the way `sample_tokens()` clears what `execute_model()` left. Configuration
    that a setter may overwrite is not that."""
    out: set[str] = set()
    for name, fn in siblings.items():
        if name not in _CONSTRUCTORS:
            out.update(fn.behaviour.self_resets)
    return out


def _state_raises(
    old_fn: FunctionFacts, new_fn: FunctionFacts, raises: list[RaiseFacts], *, site: Site, method: str | None,
    old_siblings: Table[FunctionFacts], new_siblings: Table[FunctionFacts],
) -> Iterator[Change]:
    """A new raise guarded by the object's run-time state (a protocol between its methods).

    Not a new raise: one whose message (fields aside) the old function or any old method of the
    class already raised (moved into a helper, reworded fields). Not state: a guard that reads
    only what construction sets (configuration validated in `__post_init__`)."""
    old_msgs = None
    state = None
    for item in raises:
        guard = item.guard or ""
        message = item.message
        if not message or "self." not in guard:
            continue
        if old_msgs is None:
            old_msgs = _messages([old_fn, *old_siblings.values()])
            state = _state_attrs(new_siblings or ({method: new_fn} if method else {}))
        if _message_key(message) in old_msgs:
            continue
        if method is None or not (set(_SELF_ATTR.findall(guard)) & state):
            continue
        yield site.change(
            ChangeKind.STATE_RAISE_ADDED,
            f"{item.type or 'error'}({message!r}) when `{guard}`",
            new=site.new(item.line, "raise"),
        )


_NARROWING = re.compile(r"^\s*(not\s+)?(isinstance\(.*\)|[\w.\[\]'\"]+\s+is\s+(not\s+)?None)\s*$")


def _assert_key(src: str, subject: str | None, attr: str | None) -> str:
    """The assert with its subject spelled out of the way: `layer.activation == "silu"` and
    `activation == "silu"` are the same check."""
    text = " ".join((src or "").split())
    if subject and attr:
        text = re.sub(rf"\b{re.escape(subject)}\.{re.escape(attr)}\b", attr, text)
    return text


def _asserts(old_fn: FunctionFacts, new_fn: FunctionFacts, *, site: Site) -> Iterator[Change]:
    """A new assert on an attribute of an argument old callers already pass.

    Not new: the same check in the old body under another spelling (the value came from a
    parameter that is now read off an argument, a renamed parameter at the same position).
    Not a requirement: an assert on a parameter the old signature did not have or that compares
    with one (vLLM 0.16's `assert kv_cache_spec.block_size == alignment_tokens`, a parameter
    new there), on `self`/`cls`, or one that only narrows a type (`x.a is not None`, `isinstance(...)`)."""
    old_asserts, new_asserts = old_fn.behaviour.asserts, new_fn.behaviour.asserts
    old_params = [p.name for p in old_fn.param_facts]
    new_params = [p.name for p in new_fn.param_facts]
    renamed = {n: o for o, n in zip(old_params, new_params) if o != n and n not in old_params}
    receiver = new_params[0] if new_params and _is_method_like(new_fn) else None
    old_pairs = {(a.subject, a.attr) for a in old_asserts}
    old_keys = {_assert_key(a.src, a.subject, a.attr) for a in old_asserts}
    old_keys |= {" ".join(a.src.split()) for a in old_asserts}
    by_line: dict[int, list[AssertFacts]] = {}
    for item in new_asserts:
        by_line.setdefault(item.line, []).append(item)
    added = [n for n in new_params if n not in old_params and n not in renamed]
    for line, items in sorted(by_line.items(), key=lambda item: item[0]):
        src = items[0].src
        if _NARROWING.match(src):
            continue
        if any(re.search(rf"(?<![\w.]){re.escape(n)}\b", src) for n in added):  # the name, not `.attr`
            continue  # compared with a new parameter (`spec.block_size == alignment_tokens`): the new caller's contract
        fresh = []
        for item in items:
            subject, attr = item.subject, item.attr
            if subject == receiver or subject in ("self", "cls"):
                continue
            was = renamed.get(subject, subject)
            if was not in old_params or (was, attr) in old_pairs:
                continue  # a new parameter: no old caller passes it; or the same pair was asserted
            if attr in old_params:
                continue  # the old function took it as a parameter of its own
            if _assert_key(src, subject, attr) in old_keys or _assert_key(src, subject, attr).replace(
                    subject + ".", was + ".") in old_keys:
                continue
            fresh.append(item)
        if not fresh:
            continue
        names = ", ".join(f"{i.subject}.{i.attr}" for i in fresh)
        yield site.change(
            ChangeKind.ARG_ASSERT_ADDED,
            f"{names}: `assert {src}`",
            new=site.new(line, "assert"),
        )


def _is_method_like(fn: FunctionFacts) -> bool:
    """Whether the first parameter is the receiver (self or cls), not an argument."""
    if any(d.rsplit(".", 1)[-1] == "staticmethod" for d in fn.decorators):
        return False
    return "." in fn.qualname
