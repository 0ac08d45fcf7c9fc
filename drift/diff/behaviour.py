"""Behaviour changes an AST can prove: two-phase hand-offs, return shapes that start to
depend on a parameter, new state-guarded raises and new asserts on argument attributes."""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from drift.diff.annotations import normalise
from drift.diff.kinds import ChangeKind
from drift.diff.model import Change, Evidence
from drift.diff.nulls import none_rejected
from drift.diff.site import Site


def _beh(fn: dict) -> dict:
    return fn.get("behaviour") or {}


def _lines(mapping: dict, field: str) -> list[int]:
    return list((mapping or {}).get(field) or ())


def find_handoff(method: str, fn: dict, siblings: dict[str, dict]) -> list[tuple[str, str]]:
    """(field, sibling) pairs: `fn` sets self.<field>, a sibling method reads and resets it."""
    pairs = []
    for field in sorted(_beh(fn).get("self_sets") or {}):
        for name, other in sorted(siblings.items()):
            if name == method:
                continue
            beh = _beh(other)
            if _lines(beh.get("self_reads"), field) and _lines(beh.get("self_resets"), field):
                pairs.append((field, name))
    return pairs


def compare_behaviour(
    old_fn: dict,
    new_fn: dict,
    *,
    site: Site,
    method: str | None = None,
    old_siblings: dict[str, dict] | None = None,
    new_siblings: dict[str, dict] | None = None,
) -> Iterator[Change]:
    old_beh, new_beh = _beh(old_fn), _beh(new_fn)
    yield from _returns_none(old_fn, new_fn, site=site, method=method, siblings=new_siblings or {})
    yield from _return_shapes(old_beh, new_beh, site=site)
    if new_beh.get("raises"):
        yield from _state_raises(old_fn, new_fn, site=site, method=method,
                                 old_siblings=old_siblings or {}, new_siblings=new_siblings or {})
    if new_beh.get("asserts"):
        yield from _asserts(old_fn, new_fn, site=site)
    if new_beh.get("param_derefs"):
        yield from none_rejected(old_fn, new_fn, site=site)


def _returns_none(old_fn, new_fn, *, site, method, siblings) -> Iterator[Change]:
    new_tail = _beh(new_fn).get("tail_return_none")
    if not new_tail or _beh(old_fn).get("tail_return_none"):
        return
    if old_fn.get("returns") == "None" or normalise(old_fn.get("returns")) == "None":
        return  # it was declared to return None already
    old_ev = site.old(old_fn.get("line"), f"returned {old_fn.get('returns') or 'a value'}")
    pairs = find_handoff(method, new_fn, siblings) if method else []
    if not pairs:
        if not _none_on_every_path(old_fn, new_fn):
            return
        yield site.change(
            ChangeKind.RETURNS_NONE,
            f"{method or site.symbol}() now returns None on every path (it returned a value before)",
            old=old_ev,
            new=site.new(new_tail, "return None"),
        )
        return
    new_sets = _beh(new_fn).get("self_sets") or {}
    for field, sibling in pairs:
        sib = _beh(siblings[sibling])
        evidence: list[Evidence] = list(site.new(new_tail, "return None"))
        evidence += [Evidence(site.new_path, ln, f"sets self.{field}") for ln in _lines(new_sets, field)]
        evidence += [
            Evidence(site.new_path, ln, f"{sibling} reads self.{field}")
            for ln in _lines(sib.get("self_reads"), field)
        ]
        evidence += [
            Evidence(site.new_path, ln, f"{sibling} resets self.{field}")
            for ln in _lines(sib.get("self_resets"), field)
        ]
        yield site.change(
            ChangeKind.TWO_PHASE_PROTOCOL,
            f"two-phase protocol: {method} now returns None and hands state to "
            f"{sibling} via self.{field}",
            old=old_ev,
            new=tuple(evidence),
        )


def _return_shapes(old_beh: dict, new_beh: dict, *, site: Site) -> Iterator[Change]:
    old_deps = {frozenset(s.get("depends_on") or ()) for s in old_beh.get("return_shapes") or ()}
    for shape in new_beh.get("return_shapes") or ():
        deps = frozenset(shape.get("depends_on") or ())
        if not deps or deps in old_deps:
            continue  # no parameter decides it, or the same ones already did
        yield site.change(
            ChangeKind.RETURN_SHAPE_DEPENDS,
            f"returns `{shape.get('src')}` ({shape.get('shape')}), decided by "
            f"{', '.join(sorted(deps))}",
            new=site.new(shape.get("line"), "return"),
        )


def _none_on_every_path(old_fn: dict, new_fn: dict) -> bool:
    """The new body returns no value anywhere (facts 1.5 `value_returns`) and the old one did.

    Facts without `value_returns` (an older probe) prove nothing, so nothing is said."""
    new_values = _beh(new_fn).get("value_returns")
    old_values = _beh(old_fn).get("value_returns")
    if new_values is None or old_values is None:
        return False
    return not new_values and bool(old_values)


_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "__attrs_post_init__", "model_post_init"})
_SELF_ATTR = re.compile(r"\bself\.([A-Za-z_][A-Za-z0-9_]*)")
_FIELD = re.compile(r"\{[^{}]*\}")


def _message_key(message: str | None) -> str:
    """A raise message without its f-string fields and spacing: `{backend}` and `{self.backend}`
    are the same message."""
    return " ".join(_FIELD.sub("{}", message or "").split()).lower()


def _messages(functions: Iterable[dict]) -> set[str]:
    return {_message_key(r.get("message")) for fn in functions for r in _beh(fn).get("raises") or ()}


def _state_attrs(siblings: dict[str, dict]) -> set[str]:
    """Attributes that carry state between calls: cleared (`= None`) by a method outside
    construction, the way `sample_tokens()` clears what `execute_model()` left. Configuration
    that a setter may overwrite is not that."""
    out: set[str] = set()
    for name, fn in siblings.items():
        if name not in _CONSTRUCTORS:
            out.update(_beh(fn).get("self_resets") or ())
    return out


def _state_raises(
    old_fn: dict, new_fn: dict, *, site: Site, method: str | None,
    old_siblings: dict[str, dict], new_siblings: dict[str, dict],
) -> Iterator[Change]:
    """A new raise guarded by the object's run-time state (a protocol between its methods).

    Not a new raise: one whose message (fields aside) the old function or any old method of the
    class already raised (moved into a helper, reworded fields). Not state: a guard that reads
    only what construction sets (configuration validated in `__post_init__`)."""
    old_msgs = None
    state = None
    for item in _beh(new_fn).get("raises") or ():
        guard = item.get("guard") or ""
        message = item.get("message")
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
            f"{item.get('type') or 'error'}({message!r}) when `{guard}`",
            new=site.new(item.get("line"), "raise"),
        )


_NARROWING = re.compile(r"^\s*(not\s+)?(isinstance\(.*\)|[\w.\[\]'\"]+\s+is\s+(not\s+)?None)\s*$")


def _assert_key(src: str, subject: str | None, attr: str | None) -> str:
    """The assert with its subject spelled out of the way: `layer.activation == "silu"` and
    `activation == "silu"` are the same check."""
    text = " ".join((src or "").split())
    if subject and attr:
        text = re.sub(rf"\b{re.escape(subject)}\.{re.escape(attr)}\b", attr, text)
    return text


def _asserts(old_fn: dict, new_fn: dict, *, site: Site) -> Iterator[Change]:
    """A new assert on an attribute of an argument old callers already pass.

    Not new: the same check in the old body under another spelling (the value came from a
    parameter that is now read off an argument, a renamed parameter at the same position).
    Not a requirement: an assert on a parameter the old signature did not have, on `self`/`cls`,
    or one that only narrows a type (`x.a is not None`, `isinstance(...)`)."""
    old_beh, new_beh = _beh(old_fn), _beh(new_fn)
    old_params = [p["name"] for p in old_fn.get("params") or ()]
    new_params = [p["name"] for p in new_fn.get("params") or ()]
    renamed = {n: o for o, n in zip(old_params, new_params) if o != n and n not in old_params}
    receiver = new_params[0] if new_params and _is_method_like(new_fn) else None
    old_pairs = {(a.get("subject"), a.get("attr")) for a in old_beh.get("asserts") or ()}
    old_keys = {_assert_key(a.get("src"), a.get("subject"), a.get("attr")) for a in old_beh.get("asserts") or ()}
    old_keys |= {" ".join((a.get("src") or "").split()) for a in old_beh.get("asserts") or ()}
    by_line: dict[int, list[dict]] = {}
    for item in new_beh.get("asserts") or ():
        by_line.setdefault(item.get("line") or 0, []).append(item)
    for line, items in sorted(by_line.items()):
        src = items[0].get("src") or ""
        if _NARROWING.match(src):
            continue
        fresh = []
        for item in items:
            subject, attr = item.get("subject"), item.get("attr")
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
        names = ", ".join(f"{i['subject']}.{i['attr']}" for i in fresh)
        yield site.change(
            ChangeKind.ARG_ASSERT_ADDED,
            f"{names}: `assert {src}`",
            new=site.new(line, "assert"),
        )


def _is_method_like(fn: dict) -> bool:
    """Whether the first parameter is the receiver (self or cls), not an argument."""
    decorators = fn.get("decorators") or ()
    if any(d.rsplit(".", 1)[-1] == "staticmethod" for d in decorators):
        return False
    return "." in (fn.get("qualname") or "")
