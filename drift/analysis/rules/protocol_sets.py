"""DRIFT147: an override reads an attribute off an object vLLM hands it, which the overridden
class's own methods set on that object in the baseline and no longer set in the target.

vLLM drives some classes through a protocol of methods that receive the same object in turn: a
quantization method's `create_weights(layer, ...)` stores what `process_weights_after_loading
(layer)` and `apply(layer, x)` read back (`layer.num_groups = ...`). A plugin's subclass keeps the
base's `create_weights` (or calls it through `super()`) and reads those attributes in its own
override of a later step. When the target's base stops storing one (vLLM 0.19's AWQ-Marlin method
keeps its sizes in a kernel object instead), the override's read raises AttributeError, though no
name the plugin imports or calls changed.

What drift reads: the consumer's reads of an override's parameter (`over:` paths, usage `attr`
records), the attributes each method of the overridden class's MRO stores on its parameters
(`param_sets`, facts +pf), matched by the parameter's name (the protocol hands the same object
under the same name), on each side. Reported where the baseline's class stored the attribute on
every path and the target's class stores it nowhere; silent where the consumer's own code stores
it on a parameter of that name, where the consumer overrides the storing method without calling
the base's, and where any target code still assigns an attribute of that name (an object built
elsewhere, the layer's own class, may carry it): there the read may still work. That last test
reads the target's text (`stored_attribute_names`), or its facts where a host sent no text.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol


def _override_param(root: str) -> tuple[str, str, str] | None:
    """`over:pkg.mod.Cls.method:1:layer` -> (consumer class, method, parameter)."""
    if not root.startswith("over:"):
        return None
    parts = root[5:].split(":")
    if len(parts) != 3 or "." not in parts[0]:
        return None
    cls, _, method = parts[0].rpartition(".")
    return cls, method, parts[2]


def _stored(index: PackageIndex, bases: list[Symbol], param: str) -> dict[str, tuple[Symbol, int, bool]]:
    """attr -> (method, line, on every path) that a method of the bases' MROs stores on its
    parameter named `param`, nearest class first."""
    out: dict[str, tuple[Symbol, int, bool]] = {}
    for base in bases:
        for owner in index.mro(base):
            for name, fn in owner.as_class.methods.items():
                sets = {a: row for a, row in ((fn.behaviour.param_sets or {}).get(param) or {}).items()
                        if a not in out and isinstance(row, list) and row}
                sym = index.lookup(f"{owner.dotted}.{name}") if sets else None
                for attr, row in sets.items() if sym is not None else ():
                    out[attr] = (sym, int(row[0]), not (len(row) > 2 and row[2]))
    return out


def _assigned_anywhere(index: PackageIndex, attr: str) -> bool:
    """Whether any of the target's code assigns an attribute named `attr` (`x.attr = ...`): from
    the text where drift has it, else from the facts (what every class sets on `self` and every
    method stores on its parameters; a host's reply brings no text)."""
    if index.has_sources:
        return attr in index.stored_attribute_names()
    return attr in index.derived(_FACTS_STORED, _stored_in_facts)


_FACTS_STORED = "protocol-sets-stored.1"


def _stored_in_facts(index: PackageIndex) -> frozenset[str]:
    out: set[str] = set()
    for cls in index.iter_classes():
        node = cls.as_class
        out.update(node.instance_attrs)
        for fn in node.methods.values():
            for sets in (fn.behaviour.param_sets or {}).values():
                out.update(sets)
    return frozenset(out)


def _consumer_sets(mod: dict[str, Any], cls: str, param: str) -> set[str]:
    """What the consumer class's methods store on a parameter named `param`."""
    out = set()
    for rec in mod.get("uses") or ():
        path = rec.get("path") or []
        if rec.get("kind") == "attr_set" and len(path) == 2:
            over = _override_param(path[0])
            if over is not None and over[0] == cls and over[2] == param:
                out.add(path[1][1:])
            elif path[0].startswith(("arg:", "var:")) and path[0].endswith(":" + param):
                out.add(path[1][1:])
    return out


def _skips_base(ctx: CheckContext, mod: dict[str, Any], cls: str, method: str) -> bool:
    """Whether the consumer class overrides `method` without handing the call to the base."""
    rec = ctx.consumer.classes.get(cls) or {}
    if method not in (rec.get("methods") or {}):
        return False
    qual = f"{rec.get('qual') or cls.rsplit('.', 1)[-1]}.{method}"
    return not any(c.get("function") == qual and (c.get("callee") or {}).get("via") == "super"
                   and (c.get("callee") or {}).get("method") == method for c in mod.get("calls") or ())


@rule("DRIFT147", RuleKind.ATTRIBUTE_MISSING)
def protocol_attribute_unset(ctx: CheckContext) -> Iterator[Finding]:
    """An override's parameter attribute that the overridden class's methods stored on that
    parameter in the baseline and store nowhere in the target: AttributeError when read."""
    tpaths, bpaths = ctx.target_paths, ctx.baseline_paths
    if ctx.baseline is None or tpaths is None or bpaths is None:
        return
    seen: set[tuple[str, str, str]] = set()
    for mod in ctx.usage:
        for rec in mod.get("uses") or ():
            path = rec.get("path") or []
            if rec.get("kind") not in ("attr", "item") or len(path) < 2 or not path[1].startswith("."):
                continue
            over = _override_param(path[0])
            if over is None:
                continue
            cls, method, param = over
            attr = path[1][1:]
            key = (cls, param, attr)
            if key in seen or ctx.consumer.classes.get(cls) is None:
                continue
            seen.add(key)
            tbases, bbases = tpaths.target_bases(cls), bpaths.target_bases(cls)
            if not tbases or not bbases:
                continue
            before = _stored(ctx.baseline, bbases, param).get(attr)
            if before is None or not before[2] or attr in _stored(ctx.target, tbases, param):
                continue
            if attr in _consumer_sets(mod, cls, param) or _skips_base(ctx, mod, cls, before[0].dotted.rsplit(".", 1)[-1]):
                continue
            if _assigned_anywhere(ctx.target, attr):
                continue
            yield _finding(ctx, mod, rec, cls, method, param, attr, before[0], before[1])


def _finding(ctx: CheckContext, mod: dict[str, Any], rec: dict[str, Any], cls: str, method: str, param: str,
             attr: str, setter: Symbol, line: int) -> Finding:
    short = cls.rsplit(".", 1)[-1]
    where = ".".join(setter.dotted.rsplit(".", 2)[-2:])
    return Finding(
        rule_id="DRIFT147", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.BREAKING,
        title=f"`{param}.{attr}` in `{short}.{method}` was stored by `{where}`, which the target no longer does",
        consumer_site=site_of(mod, rec),
        target_evidence=(),
        baseline_evidence=(Location(setter.path, line, symbol=f"{setter.dotted}.{param}.{attr}"),),
        predicted_failure=f"AttributeError: '{param}' has no attribute '{attr}'",
        fix=Fix(f"compute `{attr}` where `{short}` needs it, or store it on `{param}` in `{short}`'s own "
                f"`{setter.dotted.rsplit('.', 1)[-1]}`, as the baseline's `{where}` did",
                manual_reason="what the value is, the target now keeps elsewhere"),
        symbol=f"{setter.dotted}.{param}.{attr}",
        details=f"the baseline's `{where}` stored `{param}.{attr}` on every path; no code of the target "
                f"assigns an attribute `{attr}`",
    )


RULES = [protocol_attribute_unset]
