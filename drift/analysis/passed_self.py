"""Which target classes the target itself passes in an override's parameter slot.

Why: vLLM's layers call their quantization method as `self.quant_method.apply(self, x, ...)`.
The consumer's override `apply(self, layer, x)` then receives the layer object, whatever its
annotation says (`torch.nn.Module`, or nothing). When the target's layer class (the class whose
method makes that call) lost an attribute the baseline's layer had, the override's `layer.<attr>`
raises inside vLLM's forward pass with no import of the consumer's naming the layer. The probe
roots such parameters at `passed:<module>.<Class>.<method>:<slot>:<name>` (probes/reach.py), and
the path evaluator of each side asks this module what that side's call sites pass there.

Only the first parameter after `self` is typed, and only from calls written
`self.<attr>.<method>(self, ...)` or `self.<attr>.<method>(<name>=self, ...)` (`<name>` the
declaration's parameter in that slot) inside a method of a target class, where `self.<attr>` is not
typed as a class unrelated to the override's (then it is not the consumer's object). A slot fed
by more than one target class is left untyped: which one reaches a given read is not known.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from drift.model.facts import ModuleFacts
from drift.model.index import Needle, PackageIndex, Symbol


def passing_needle(method: str, attr: str | None = None, keyword: str | None = None) -> Needle:
    """Text of a call `self.<attr>.<method>(self, ...)`, or `(..., <keyword>=self, ...)` when the
    declaration names the slot `keyword` (any attribute when `attr` is None)."""
    holder = rb"\w+" if attr is None else re.escape(attr.encode())
    head = rb"self\.%s\.%s\(" % (holder, re.escape(method.encode()))
    forms = [head + rb"\s*self\s*[,)]"]
    if keyword:  # the keyword anywhere inside the call's parentheses (one level of nesting)
        forms.append(head + rb"(?:[^()]|\([^()]*\))*?\b%s\s*=\s*self\s*[,)]" % re.escape(keyword.encode()))
    return Needle(f".{method}(".encode(), re.compile(b"|".join(b"(?:%s)" % f for f in forms)))


def passing_classes(index: PackageIndex, method: str, inherited: frozenset[str],
                    held_class: Callable[[str, str], Symbol | None], keyword: str | None = None) -> list[Symbol]:
    """Target classes with a method that calls `self.<attr>.<method>(self, ...)` (or passes
    `<keyword>=self`), where `self.<attr>` may be an object whose target classes are
    `inherited` (`held_class(owner, attr)` says how the target types that attribute; None when
    it does not)."""
    if not index.has_sources:
        return []
    found: dict[str, Symbol] = {}
    for mod_name in index.source_search(passing_needle(method, keyword=keyword)):
        for dotted, holder in _held_calls(index, mod_name, method):
            typed = held_class(dotted, holder)
            if typed is not None and typed.dotted not in inherited:
                continue
            if mod_name not in index.source_search(passing_needle(method, holder, keyword)):
                continue
            sym = index.lookup(dotted)
            if sym is not None and sym.kind == "class":
                found.setdefault(dotted, sym)
    return [found[k] for k in sorted(found)]


def _held_calls(index: PackageIndex, mod_name: str, method: str) -> Iterable[tuple[str, str]]:
    """(class, attribute) for each `self.<attribute>.<method>(...)` in a method of a class of
    module `mod_name`."""
    mod = ModuleFacts(index.modules[mod_name])
    stack = [(f"{mod_name}.{n}", c) for n, c in mod.classes.items()]
    while stack:
        dotted, c = stack.pop()
        for m in c.methods.values():
            for holder, calls in m.behaviour.held_calls.items():
                if method in calls and holder.startswith("self.") and "." not in holder[5:]:
                    yield dotted, holder[5:]
        stack.extend((f"{dotted}.{n}", sub) for n, sub in c.nested.items())
