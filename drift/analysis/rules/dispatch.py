"""Calls that reach a method through a bound method the class chose once and keeps.

A target class may pick, at construction, which of its own methods a public one runs:
`self._forward_method = self.dispatch_forward()` where `dispatch_forward` returns
`self.forward_oot`, `self.forward_cuda`, ... by platform, and `def forward(self, *args, **kwargs):
return self._forward_method(*args, **kwargs)`. Every `self.forward(...)` in that class family then
calls one of the chosen methods with the very same arguments, so a consumer's `forward_oot` (a
subclass's override, or a function patched over the class's `forward_oot`) must take what the
target passes to `forward`, although no `.forward_oot(...)` call exists anywhere.

Read from facts the probe already records, by shape, no method names: a pass-through method
(parameters `self, *args, **kwargs` only, its one `**kwargs` hand-on a call of `self.<attr>` with
`*args` and nothing added or dropped), an `__init__`-style method storing `self.<attr> =
self.<chooser>()` (`self_types` `call:self.<chooser>`), and the chooser's `self.<m>` reads on the
lines where it returns a value (`self_reads` and `value_returns`) that name methods of the class.
Only calls on `self` (or `super()`) in a class of the same family count: elsewhere the receiver is
any object with a method of that common name.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from drift.analysis.rules.callers import RECEIVER
from drift.model.index import PackageIndex, Symbol

_PASS_THROUGH = [("POSITIONAL_OR_KEYWORD",), ("VAR_POSITIONAL",), ("VAR_KEYWORD",)]


def _passes_through(m: Any) -> bool:
    """Parameters `self, *args, **kwargs` and nothing else (read off the raw rows: cheap)."""
    rows = m.param_facts
    return len(rows) == 3 and [(p.kind,) for p in rows] == _PASS_THROUGH


def _methods(index: PackageIndex, cls: Symbol) -> dict[str, Any]:
    """name -> the method the class's objects run (nearest in the MRO)."""
    out: dict[str, Any] = {}
    for owner in index.mro(cls):
        for n, m in owner.as_class.methods.items():
            out.setdefault(n, m)
    return out


def _choosers(index: PackageIndex, owner: Symbol) -> dict[str, str]:
    """attr -> chooser of the `self.<attr> = self.<chooser>()` stores in one class's methods
    (memoised per class: every class of a family asks for its bases')."""
    memo = index.__dict__.setdefault("_choosers", {})
    hit = memo.get(owner.dotted)
    if hit is None:
        hit = memo[owner.dotted] = {
            attr: kind[len("call:self."):]
            for m in owner.as_class.methods.values() for attr, kind in m.behaviour.self_types.items()
            if isinstance(kind, str) and kind.startswith("call:self.")}
    return hit


def _chosen(index: PackageIndex, cls: Symbol, methods: dict[str, Any], attr: str) -> set[str]:
    """The methods a chooser stored in `self.<attr>` may return: `self.<m>` read where it returns.
    Any method of the MRO may store it (a base's `__init__` the subclass's hands on to)."""
    out: set[str] = set()
    for owner in index.mro(cls):
        chooser = methods.get(_choosers(index, owner).get(attr, ""))
        if chooser is None:
            continue
        returns = set(chooser.behaviour.value_returns)
        out |= {n for n, lines in chooser.behaviour.self_reads.items()
                if n in methods and returns.intersection(lines or ())}
    return out


def dispatchers(index: PackageIndex, cls: Symbol) -> dict[str, set[str]]:
    """public method -> the methods of `cls` a call of it may run through a chosen bound method."""
    memo = index.__dict__.setdefault("_dispatchers", {})
    hit = memo.get(cls.dotted)
    if hit is not None:
        return hit
    out: dict[str, set[str]] = {}
    passing = [owner for owner in index.mro(cls)
               if any(_passes_through(m) for m in owner.as_class.methods.values())]
    if not passing:  # most classes: no method hands its arguments on whole
        memo[cls.dotted] = out
        return out
    methods = _methods(index, cls)
    for name, m in methods.items():
        if not _passes_through(m):
            continue
        for row in m.behaviour.kwargs_into:
            if row.callee.startswith("self.") and row.star_args and not row.positional \
                    and not row.keywords and not row.drops and not row.adds:
                chosen = _chosen(index, cls, methods, row.callee[len("self."):])
                if chosen:
                    out[name] = chosen
    memo[cls.dotted] = out
    return out


def dispatched_sites(index: PackageIndex, classes: Iterable[Symbol], name: str, decl: Symbol | None,
                     sites_of: Callable[[PackageIndex, str, Symbol | None], list[list[Any]] | None]) -> list[list[Any]]:
    """The target's calls of a public method that run `name` through a chosen bound method, on
    `self` or `super()` in a class of the same family as one of `classes`; those that fit `decl`
    (`sites_of`: rules/reach.py's reading of the target's call sites, which imports this module)."""
    out: list[list[Any]] = []
    for cls in classes:
        if cls is None or cls.kind != "class":
            continue
        family = {s.dotted for s in index.mro(cls)}
        for public, chosen in sorted(dispatchers(index, cls).items()):
            if name not in chosen:
                continue
            near = []
            for s in sites_of(index, public, None) or []:  # every call first, cheaply narrowed
                if len(s) <= RECEIVER or s[RECEIVER] not in ("self", "super") or not s[5]:
                    continue
                owner = index.lookup(s[5])
                if owner is not None and owner.kind == "class" \
                        and (s[5] in family or cls.dotted in {o.dotted for o in index.mro(owner)}):
                    near.append(s)
            if near:  # then those that fit the declaration (a per-declaration pass over them all)
                fitting = {id(s) for s in sites_of(index, public, decl) or []}
                out += [s for s in near if id(s) in fitting]
    return out
