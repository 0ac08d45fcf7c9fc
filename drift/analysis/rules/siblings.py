"""The contract a dispatch family's methods share, for DRIFT070.

A target class that picks one of its own methods at construction (`self._forward_method =
self.dispatch_forward()`, returning `self.forward_oot`, `self.forward_cuda`, `self.forward_native`
by platform; rules/dispatch.py reads the shape) runs whichever was chosen with the very arguments
its callers give the public method, and those callers are written against the sibling the target
itself implements (`forward_native`). A parameter the target's own sibling gained is therefore
what the callers start passing, and a consumer's override of another sibling (`forward_oot` in a
hardware plugin) that does not take it fails where the target's callers pass it, although no
`.forward_oot(...)` call exists anywhere and the declaration of `forward_oot` itself never changed.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.rules.dispatch import dispatchers
from drift.model.index import PackageIndex, Symbol


_POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _lookup(index: PackageIndex, bases: list[Symbol], name: str) -> tuple[Symbol, Any] | None:
    for base in bases:
        for owner in index.mro(base):
            m = owner.as_class.methods.get(name)
            if m is not None:
                return owner, m
    return None


def _takes(sig: list[list[Any]], name: str) -> bool:
    return any(p[0] == name and p[1] != "POSITIONAL_ONLY" for p in sig) or any(p[1] == "VAR_KEYWORD" for p in sig)


def sibling_gains(target: PackageIndex, baseline: PackageIndex, tb: list[Symbol], bb: list[Symbol], name: str,
                  sig: list[list[Any]], own: set[str]) -> Iterator[tuple[str, Symbol, Any, Any]]:
    """(sibling, its target class, its new parameter, the baseline's sibling) for each parameter
    a sibling of `name` in the target's dispatch family gained since the baseline, which the
    consumer's `name` (parameters `sig`) does not take. Only siblings the consumer's class does
    not define itself (`own`), and only where `name` took every parameter the baseline's sibling
    had (it was written to that contract)."""
    seen: set[str] = set()
    for base in tb:
        for _public, chosen in sorted(dispatchers(target, base).items()):
            if name not in chosen:
                continue
            for sibling in sorted(chosen - {name} - own - seen):
                seen.add(sibling)
                now, was = _lookup(target, tb, sibling), _lookup(baseline, bb, sibling)
                if now is None or was is None:
                    continue
                old = [p for p in was[1].params if p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD")][1:]
                if not old or not all(_takes(sig, p.name) for p in old):
                    continue  # the override never followed this sibling's contract
                names = {p.name for p in was[1].params}
                now_params, was_params = now[1].params, was[1].params
                now_names = {p.name for p in now_params}
                for i, p in enumerate(now_params[1:], 1):
                    if p.kind in ("VAR_POSITIONAL", "VAR_KEYWORD") or p.name in names or _takes(sig, p.name):
                        continue
                    if i < len(was_params) and was_params[i].name not in now_names \
                            and was_params[i].kind in _POSITIONAL and p.kind in _POSITIONAL:
                        continue  # renamed in place (`q_fp8` -> `q_quant`): positional callers still bind it
                    yield sibling, now[0], p, was
