"""Parameters the baseline guarded for None that the target dereferences unconditionally.

One detector for both sides of drift: `drift diff` reports each such parameter as a change,
and `drift check` (drift/analysis/rules/nulls.py) asks the same function which parameters of the
callable a consumer calls lost their guard, then looks at what the consumer passes there.

The facts are the probe's (probes/derefs.py, facts 1.10): `param_guards` — a test on the
parameter that accepts None — and `param_derefs` — the first dereference on every path from
the function's entry, with its line and column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterator

from drift.analysis.diff.kinds import ChangeKind
from drift.analysis.diff.model import Change
from drift.analysis.diff.site import Site
from drift.model.facts import Behaviour, FunctionFacts

_GUARD_WORDS = {"none": "tested against None", "truth": "tested for truth",
                "isinstance": "tested with isinstance"}


@dataclass(frozen=True)
class DroppedGuard:
    """`param` was tested (`guard_how`, at `guard_line` of the old body) and is now dereferenced
    first at `line`:`col` of the new body, by `how` (attr, item, call, iter, len, ...)."""

    param: str
    guard_line: int
    guard_how: str
    line: int
    col: int
    how: str
    detail: str

    @property
    def use(self) -> str:
        """The dereference as source-like text, for titles and evidence."""
        p, d = self.param, self.detail
        return {"attr": f"{p}.{d}", "setattr": f"{p}.{d} = ...", "item": f"{p}[...]",
                "setitem": f"{p}[...] = ...", "call": f"{p}(...)", "iter": f"{d}({p})" if d else f"for ... in {p}",
                "unpack": f"... = {p}", "len": f"len({p})", "arith": f"{p} {d} ...", "compare": f"{p} {d} ...",
                "in": f"... in {p}"}.get(self.how, p)

    @property
    def guard(self) -> str:
        return _GUARD_WORDS.get(self.guard_how, "tested")

    def failure(self, type_name: str = "NoneType") -> str:
        """What Python raises when a value of `type_name` reaches the dereference."""
        t = type_name
        return {
            "attr": f"AttributeError: '{t}' object has no attribute '{self.detail}'",
            "setattr": f"AttributeError: '{t}' object has no attribute '{self.detail}'",
            "item": f"TypeError: '{t}' object is not subscriptable",
            "setitem": f"TypeError: '{t}' object does not support item assignment",
            "call": f"TypeError: '{t}' object is not callable",
            "iter": f"TypeError: '{t}' object is not iterable",
            "unpack": f"TypeError: cannot unpack non-iterable {t} object",
            "len": f"TypeError: object of type '{t}' has no len()",
            "arith": f"TypeError: unsupported operand type(s) for {self.detail}: '{t}' and …",
            "compare": f"TypeError: '{self.detail}' not supported between instances of '{t}' and …",
            "in": f"TypeError: argument of type '{t}' is not iterable",
        }.get(self.how, f"TypeError: a {t} reaches `{self.use}`")


_NO_BEHAVIOUR = Behaviour({})


def _beh(fn: FunctionFacts | Mapping[str, Any] | None) -> Behaviour:
    if fn is None:
        return _NO_BEHAVIOUR
    # a rule may hand over a Symbol's record (`sym.facts`) rather than its view
    return (fn if isinstance(fn, FunctionFacts) else FunctionFacts(fn)).behaviour


def dropped_guards(old_fn: FunctionFacts | Mapping[str, Any] | None,
                   new_fn: FunctionFacts | Mapping[str, Any] | None) -> list[DroppedGuard]:
    """Parameters of both bodies that the old one guarded (and did not dereference first) and the
    new one dereferences on every path. Facts from a probe without these fields say nothing."""
    old, new = _beh(old_fn), _beh(new_fn)
    derefs = new.param_derefs
    guards = old.param_guards
    if not derefs or not guards:
        return []
    old_derefs = old.param_derefs
    out = []
    for name, d in sorted(derefs.items()):
        g = guards.get(name)
        if g is None or name in old_derefs:
            continue
        out.append(DroppedGuard(name, int(g[0]), str(g[1]), int(d[0]), int(d[1]), str(d[2]), str(d[3])))
    return out


def none_rejected(old_fn: FunctionFacts, new_fn: FunctionFacts, *, site: Site) -> Iterator[Change]:
    """`drift diff`: one change per parameter whose None guard is gone."""
    for g in dropped_guards(old_fn, new_fn):
        yield site.change(
            ChangeKind.PARAM_NONE_REJECTED,
            f"`{g.param}` is now used unconditionally (`{g.use}`); it was {g.guard}: "
            f"passing None raises {g.failure().split(':', 1)[0]}",
            old=site.old(g.guard_line, f"{g.param} {g.guard}"),
            new=site.new(g.line, g.use),
        )
