"""Behaviour changes an AST can prove: two-phase hand-offs, return shapes that start to
depend on a parameter, new state-guarded raises and new asserts on argument attributes."""

from __future__ import annotations

from typing import Iterator

from drift.diff.annotations import normalise
from drift.diff.kinds import ChangeKind
from drift.diff.model import Change, Evidence
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
    new_siblings: dict[str, dict] | None = None,
) -> Iterator[Change]:
    old_beh, new_beh = _beh(old_fn), _beh(new_fn)
    yield from _returns_none(old_fn, new_fn, site=site, method=method, siblings=new_siblings or {})
    yield from _return_shapes(old_beh, new_beh, site=site)
    yield from _state_raises(old_beh, new_beh, site=site)
    yield from _asserts(old_beh, new_beh, site=site)


def _returns_none(old_fn, new_fn, *, site, method, siblings) -> Iterator[Change]:
    new_tail = _beh(new_fn).get("tail_return_none")
    if not new_tail or _beh(old_fn).get("tail_return_none"):
        return
    if old_fn.get("returns") == "None" or normalise(old_fn.get("returns")) == "None":
        return  # it was declared to return None already
    old_ev = site.old(old_fn.get("line"), f"returned {old_fn.get('returns') or 'a value'}")
    pairs = find_handoff(method, new_fn, siblings) if method else []
    if not pairs:
        yield site.change(
            ChangeKind.RETURNS_NONE,
            f"{method or site.symbol}() now ends in an unconditional `return None`",
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


def _state_raises(old_beh: dict, new_beh: dict, *, site: Site) -> Iterator[Change]:
    old_msgs = {r.get("message") for r in old_beh.get("raises") or ()}
    for item in new_beh.get("raises") or ():
        guard = item.get("guard") or ""
        message = item.get("message")
        if not message or "self." not in guard or message in old_msgs:
            continue
        yield site.change(
            ChangeKind.STATE_RAISE_ADDED,
            f"{item.get('type') or 'error'}({message!r}) when `{guard}`",
            new=site.new(item.get("line"), "raise"),
        )


def _asserts(old_beh: dict, new_beh: dict, *, site: Site) -> Iterator[Change]:
    old_pairs = {(a.get("subject"), a.get("attr")) for a in old_beh.get("asserts") or ()}
    seen: set[tuple[str, str]] = set()
    for item in new_beh.get("asserts") or ():
        pair = (item.get("subject"), item.get("attr"))
        if pair in old_pairs or pair in seen:
            continue
        seen.add(pair)
        yield site.change(
            ChangeKind.ARG_ASSERT_ADDED,
            f"{pair[0]}.{pair[1]}: `assert {item.get('src')}`",
            new=site.new(item.get("line"), "assert"),
        )
