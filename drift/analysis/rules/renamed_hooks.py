"""DRIFT129: the consumer's class keeps, under its old name, the hook a new abstract method renamed.

A target base gains `@abstractmethod forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata,
layer)` in place of the hook its subclasses used to write as `_forward_decode` with those very
parameters (often declared by the consumer's own copy of an older base, so no target method
says the old name). DRIFT071 reports the class, which cannot be instantiated; the maintainers'
fix is at the method: rename it. The method is found by its parameters: the one method of the
class (or of its consumer bases) that no target base declares on either side, that is not
abstract, and whose parameter names after `self` are exactly the new abstract method's (two or
more of them, so a lone `x` matches nothing).

Risky: a method with the same parameters is strong evidence of the same hook under another
name, not proof; the class-level DRIFT071 finding is the certain part.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _abstract, _consumer_classes, _consumer_defines, _lookup_method
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Symbol

_MIN_PARAMS = 2


def _names_after_self(params: list[Any]) -> tuple[str, ...]:
    names = [p[0] if isinstance(p, (list, tuple)) else getattr(p, "name", None) for p in params or ()]
    return tuple(names[1:])


def _abstract_decorated(m: dict) -> bool:
    return any(str(d).rsplit(".", 1)[-1] == "abstractmethod" for d in m.get("decorators") or [])


def _candidates(ctx: CheckContext, ref: str, tb: list[Symbol], bb: list[Symbol],
                wanted: tuple[str, ...]) -> list[tuple[dict, str, dict]]:
    """(class record, method name, method record) of the class and its consumer bases whose
    parameters after `self` are `wanted` and that no target base declares."""
    out, seen = [], set()
    for cls in ctx.consumer_lineage(ref):
        for name, m in (cls.get("methods") or {}).items():
            if name in seen or name.startswith("__") or _abstract_decorated(m):
                continue
            seen.add(name)
            if _names_after_self(m.get("params")) != wanted:
                continue
            if _lookup_method(ctx.target, tb, name) is not None or \
                    (ctx.baseline is not None and _lookup_method(ctx.baseline, bb, name) is not None):
                continue
            out.append((cls, name, m))
    return out


@rule("DRIFT129", RuleKind.ABSTRACT_ADDED, Severity.RISKY)
def hook_kept_under_old_name(ctx: CheckContext) -> Iterator[Finding]:
    """A new abstract method of a target base that the consumer's class lacks, where the class
    has one method of its own with exactly that method's parameters: the hook, renamed."""
    if ctx.baseline is None:
        return
    reported: set[tuple[str, int]] = set()
    for ref, cls, tb, bb in _consumer_classes(ctx):
        if not tb or any(_abstract_decorated(m) for m in (cls.get("methods") or {}).values()):
            continue
        new = _abstract(ctx.target, tb)
        if not new:
            continue
        old = _abstract(ctx.baseline, bb) if bb else {}
        own = _consumer_defines(ctx, ref)
        for name in sorted(n for n in new if n not in own and n not in old):
            decl = new[name]
            wanted = _names_after_self(decl.as_function.params)
            if len(wanted) < _MIN_PARAMS:
                continue
            found = _candidates(ctx, ref, tb, bb, wanted)
            if len(found) != 1:
                continue
            holder, old_name, m = found[0]
            mod = ctx.consumer.modules.get(holder["module"]) or {"path": holder.get("path") or "?"}
            if (mod["path"], m["line"]) in reported:
                continue
            reported.add((mod["path"], m["line"]))
            owner = decl.dotted.rsplit(".", 2)[-2]
            yield Finding(
                rule_id="DRIFT129", kind=RuleKind.ABSTRACT_ADDED, severity=Severity.RISKY,
                title=f"`{holder['qual']}.{old_name}` takes exactly what `{owner}.{name}` (new, abstract) takes: "
                      f"the hook under its old name",
                consumer_site=Location(mod["path"], m["line"], symbol=f"{holder['module']}.{holder['qual']}.{old_name}",
                                       col=(m.get("col") or 0) + 1),
                target_evidence=(Location(decl.path, decl.line, symbol=decl.dotted),),
                predicted_failure=f"TypeError: Can't instantiate abstract class {cls['qual'].rsplit('.', 1)[-1]} "
                                  f"with abstract method '{name}' (it has `{old_name}` instead)",
                fix=Fix(f"rename `{old_name}` to `{name}` (and its callers)",
                        manual_reason="the parameters match; whether the contract did too is the target's code"),
                symbol=decl.dotted,
            )


RULES = [hook_kept_under_old_name]
