"""DRIFT142: state a consumer subclass sets on `self` before it runs its target base's `__init__`,
which the target's base `__init__` now sets itself.

Why: a plugin's layer often fills in what the base's set-up reads first (`self.tp_size =
get_mlp_tensor_model_parallel_world_size()`), then calls the base `__init__`, which used to leave
those names alone. When the target's base starts setting them (vLLM 0.10.2's `LinearBase.__init__`
took over `tp_rank` / `tp_size` for its `disable_tp` option), the call overwrites the plugin's values
with the target's: nothing raises, and the layer shards its weights by the wrong group
(vllm-ascend 0.10.1rc1's MLP-parallel linear layers).

The evidence: the consumer's stores on `self` in its `__init__` (the IR's `store` and `attrset`
rows) before the line of its call of the base's `__init__` (`super().__init__(...)` or
`Base.__init__(self, ...)`), the attributes the target's base `__init__` chain sets
(`PackageIndex.instance_attrs` of `__init__`), and the baseline's same chain, which must not have
set them. A name the subclass sets again after the call keeps its value and is left out. Risky:
the value the base now computes may be the one the subclass chose.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.base_init import _init_state
from drift.analysis.rules.reach import _consumer_classes, _module_of
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol


def _base_init_calls(ctx: CheckContext, mod: dict, qual: str, tb: list[Symbol]) -> list[tuple[int, Symbol]]:
    """(line, the target class whose `__init__` runs) of each call of a base `__init__` in the
    consumer class's own `__init__`: `super().__init__(...)` (the first class of the target bases'
    MROs that defines one) or `Base.__init__(self, ...)` with Base a target class."""
    out = []
    for rec in mod.get("calls") or ():
        src = str(rec.get("callee_src") or "")
        if rec.get("function") != f"{qual}.__init__" or not src.endswith(".__init__") or not isinstance(rec.get("line"), int):
            continue
        head = src[: -len(".__init__")]
        if head == "super()":
            base = _first_init(ctx.target, tb)
        elif head.isidentifier() or "." in head and all(p.isidentifier() for p in head.split(".")):
            base = next((c for b in tb for c in ctx.target.mro(b) if c.dotted.rsplit(".", 1)[-1] == head.split(".")[-1]),
                        None)
        else:
            base = None  # `super(X, self).__init__`: another class's set-up (DRIFT075 judges what it skips)
        if base is not None:
            out.append((rec["line"], base))
    return sorted(out, key=lambda lb: lb[0])


def _first_init(index: PackageIndex, bases: list[Symbol]) -> Symbol | None:
    for base in bases:
        for owner in index.mro(base):
            if "__init__" in owner.as_class.methods:
                return owner
    return None


def _self_stores(ir: dict, fn: str) -> list[tuple[str, int]]:
    """(attribute, line) of each store on `self` in the IR function `fn`."""
    me = [f"var:{fn}:self"]
    rows = [(attr, line) for obj, attr, _src, line in ir.get("store") or () if list(obj) == me]
    rows += [(attr, line) for obj, attr, line in ir.get("attrset") or () if list(obj) == me]
    return [(a, ln) for a, ln in rows if isinstance(ln, int)]


@rule("DRIFT142", RuleKind.STATE_OVERWRITTEN, Severity.RISKY)
def state_overwritten(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer class's `__init__` sets `self.x` and then calls its target base's `__init__`,
    which now sets `x` too (the baseline's did not): the base overwrites the subclass's value
    (vLLM 0.10.2's `LinearBase.__init__` sets `tp_rank` and `tp_size`)."""
    if ctx.baseline is None:
        return
    for ref, cls, tb, _bb in _consumer_classes(ctx):
        if not tb or "__init__" not in (cls.get("methods") or {}):
            continue
        mod = _module_of(ctx, cls)
        qual = cls.get("qual") or ref.rsplit(".", 1)[-1]
        calls = _base_init_calls(ctx, mod, qual, tb)
        if not calls:
            continue
        line, base = calls[0]
        bbase = ctx.baseline.lookup(base.dotted)
        if bbase is None or bbase.kind != "class":
            continue
        stores = _self_stores(ctx.module_ir(mod), f"{ref}.__init__")
        before = {a for a, ln in stores if ln < line}
        again = {a for a, ln in stores if ln > line}
        now, was = _init_state(ctx.target, base), _init_state(ctx.baseline, bbase)
        lost = sorted(a for a in before - again if a in now and a not in was)
        if not lost:
            continue
        owner, at = now[lost[0]]
        short, bshort = qual.rsplit(".", 1)[-1], base.dotted.rsplit(".", 1)[-1]
        names = ", ".join(f"`{a}`" for a in lost)
        yield Finding(
            rule_id="DRIFT142", kind=RuleKind.STATE_OVERWRITTEN, severity=Severity.RISKY,
            title=f"`{short}.__init__` sets {names} before calling `{bshort}.__init__`, which now sets "
                  f"{'them' if len(lost) > 1 else 'it'} too: the subclass's value is overwritten",
            consumer_site=Location(mod.get("path") or "?", line, symbol=f"{base.dotted}.__init__"),
            target_evidence=tuple(Location(now[a][0].path, now[a][1], symbol=f"{now[a][0].dotted}.{a}") for a in lost[:3]),
            baseline_evidence=(Location(bbase.path, bbase.line, symbol=bbase.dotted),),
            predicted_failure=None,
            details=f"no error is raised: after the call `self.{lost[0]}` holds what `{owner.dotted.rsplit('.', 1)[-1]}"
                    f".__init__` computes, not what `{short}` set",
            fix=Fix(f"set {names} again after `{bshort}.__init__(...)` (or pass what the base now takes to choose "
                    f"{'them' if len(lost) > 1 else 'it'})", manual_reason="whether the base's new value is the one "
                    "the subclass wants needs reading the target"),
            symbol=f"{base.dotted}.{lost[0]}",
        )


RULES = [state_overwritten]
