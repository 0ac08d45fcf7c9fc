"""A target class that became a function (a factory), where the consumer still uses it as a class.

vLLM 0.24 turned `FusedMoE` from a layer class into a function that builds the layer's parts and
returns a runner. Calling it still works; everything that needs a *class* does not:

- `class Mine(FusedMoE)`: Python takes the function's type as the metaclass and fails when the
  module is imported;
- `isinstance(layer, FusedMoE)`, `issubclass(c, FusedMoE)`: the type argument is rejected;
- `FusedMoE.make_expert_params_mapping(...)`, `FusedMoE.some_constant`: class attributes and
  static methods are not on a function;
- `{FusedMoE: "name"}` (a registry keyed by class) and `type(m) is FusedMoE`: nothing raises
  there, but no object's type is the function any more, so the lookup or the test never matches
  (risky).

Each use is evaluated in the baseline (a class) and in the target (a function) with the one
resolver, so a re-export, an alias or a module attribute (`layer.FusedMoE`) is followed the same
way as for every other rule.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.paths import Value, is_soft
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _lookup_method, _module_of, _sites_of, _typed_paths

_TYPE_ARG_ERRORS = {
    "isinstance": "TypeError: isinstance() arg 2 must be a type, a tuple of types, or a union",
    "issubclass": "TypeError: issubclass() arg 2 must be a class, a tuple of classes, or a union",
}


def _turned(tv: Value, bv: Value) -> bool:
    """The baseline resolves to a class, the target to a plain function."""
    return bv.kind == "class" and tv.kind == "function" and tv.sym is not None


def _uncalled(ctx: CheckContext, mod: dict, rec: dict) -> bool:
    """The use sits in a method of a consumer class that nothing is known to call: no target
    base defines the name (not an override), the target calls no `.name(...)`, the consumer
    calls it nowhere and installs it nowhere. Such code may never run (a leftover helper)."""
    qual = rec.get("function") or ""
    cls_qual, _, name = qual.rpartition(".")
    ref = f"{mod.get('module')}.{cls_qual}" if cls_qual else ""
    if not name or name.startswith("__") or ref not in ctx.consumer.classes:
        return False
    if any(_lookup_method(ctx.target, [b], name) is not None for b in ctx.target_paths.target_bases(ref)):
        return False
    for m in ctx.usage:
        if any(((c.get("callee") or {}).get("path") or [""])[-1] == "." + name
               or (c.get("callee_src") or "").rsplit(".", 1)[-1] == name for c in m.get("calls") or []):
            return False
        if any((p.get("value") or {}).get("function") in (qual, name) for p in m.get("patches") or []):
            return False
    return not _sites_of(ctx.target, name, None)


def _finding(ctx: CheckContext, mod: dict, site: Location, tv: Value, bv: Value, *, use: str, failure: str | None,
             details: str | None = None, rec: dict | None = None, silent: bool = False) -> Finding:
    short = tv.sym.dotted.rsplit(".", 1)[-1]
    decorated = bool(tv.sym.as_function.decorators)  # a decorator may hand back a class after all
    uncalled = rec is not None and _uncalled(ctx, mod, rec)
    if uncalled:
        details = "; ".join(filter(None, [details, f"nothing is known to call `{rec['function']}`"]))
    return Finding(
        rule_id="DRIFT066", kind=RuleKind.NOT_A_CLASS,
        severity=Severity.RISKY if silent or decorated or uncalled or ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=f"`{short}` is a function in the target, no longer a class: {use}",
        consumer_site=site,
        target_evidence=(Location(tv.sym.path, tv.sym.line, symbol=tv.sym.dotted),),
        baseline_evidence=(Location(bv.sym.path, bv.sym.line, symbol=bv.sym.dotted),) if bv.sym else (),
        predicted_failure=failure,
        fix=Fix(f"use the class `{short}()` now builds (or returns) instead of `{short}` itself",
                manual_reason="which class takes its place is a design choice of the target"),
        symbol=tv.sym.dotted,
        details=details,
    )


@rule("DRIFT066", RuleKind.NOT_A_CLASS)
def class_became_function(ctx: CheckContext) -> Iterator[Finding]:
    """A name the consumer uses as a class (a base of its own class, the type argument of
    `isinstance`/`issubclass`, or the holder of a class attribute or static method it reads)
    that is a class in the baseline and a plain function in the target; also, risky, a name
    held as a type without being called (a dict key of a registry, `type(x) is C`), where no
    lookup or test matches any more. A decorated target
    function is reported as risky (its decorator may return a class), and so is a use inside a
    consumer method nothing is known to call (not an override, called by neither side).
    """
    if ctx.baseline_paths is None:
        return
    tp, bp = ctx.target_paths, ctx.baseline_paths
    for ref, cls in ctx.consumer.classes.items():  # class Mine(Factory): fails at import
        bases = [b for b in cls.get("bases") or [] if b]
        for base in bases:
            tv, bv = tp.value(tuple(base)), bp.value(tuple(base))
            if not _turned(tv, bv):
                continue
            mod = _module_of(ctx, cls)
            alone = len(bases) == 1
            failure = ("TypeError: function() argument 'code' must be code, not str" if alone else
                       "TypeError: metaclass conflict: the metaclass of a derived class must be a (non-strict) "
                       "subclass of the metaclasses of all its bases")
            col = cls.get("col")
            yield _finding(ctx, mod, Location(mod.get("path") or "?", cls.get("line") or 1,
                                              col=col + 1 if isinstance(col, int) else None),
                           tv, bv, use=f"`{ref.rsplit('.', 1)[-1]}` subclasses it", failure=failure,
                           details="the class statement fails when the module is imported")
    for mod in ctx.usage:  # isinstance(x, Factory), issubclass(c, (A, Factory))
        for rec in mod.get("uses") or []:
            if rec.get("kind") != "type_arg" or rec.get("call") not in _TYPE_ARG_ERRORS:
                continue
            tv, bv = tp.value(tuple(rec["path"])), bp.value(tuple(rec["path"]))
            if _turned(tv, bv):
                yield _finding(ctx, mod, site_of(mod, rec), tv, bv, use=f"`{rec['call']}()` is given it as a type",
                               failure=_TYPE_ARG_ERRORS[rec["call"]],
                               details="in a tuple of types it fails whenever no earlier type matches"
                               if rec.get("tuple") else None, rec=rec)
    yield from _held_as_type(ctx)
    seen: set[tuple] = set()
    for mod, rec, path, _what in _typed_paths(ctx):  # Factory.static_method(...), Factory.CONSTANT
        if not path[0].startswith("sym:") or "()" in path[:2]:
            continue  # the factory is a name the consumer imports (or a module attribute of one)
        tv, bv = tp.steps(path), bp.steps(path)
        for k in range(1, len(path)):
            if not path[k].startswith(".") or path[k].startswith(".__") or is_soft(path[k]):
                continue  # (a soft read, `getattr(f, "x", d)`, falls back to its default: no error)
            if not _turned(tv[k - 1], bv[k - 1]):
                continue
            name = path[k][1:]
            key = (mod.get("path"), rec.get("line"), tuple(path[:k + 1]))
            if key not in seen:
                seen.add(key)
                yield _finding(ctx, mod, site_of(mod, rec), tv[k - 1], bv[k - 1],
                               use=f"`.{name}` is read on it",
                               failure=f"AttributeError: 'function' object has no attribute '{name}'", rec=rec)
            break


_HELD = {
    "class_key": ("a dict is keyed by it (a registry of classes)",
                  "a lookup by the class the function now builds (`type(obj)`) never finds the entry, and "
                  "`issubclass(c, key)` over the keys raises TypeError"),
    "type_cmp": ("`type(x)` is compared with it", "the test is never true: no object's type is a function"),
}


def _held_as_type(ctx: CheckContext) -> Iterator[Finding]:
    """A name held as a type without being called: a dict key, the other side of `type(x) is C`.
    Nothing raises where it is written, so the finding is risky: what goes wrong is the lookup or
    test that later never matches."""
    tp, bp = ctx.target_paths, ctx.baseline_paths
    for mod in ctx.usage:
        for rec in mod.get("uses") or []:
            held = _HELD.get(rec.get("kind"))
            if held is None:
                continue
            tv, bv = tp.value(tuple(rec["path"])), bp.value(tuple(rec["path"]))
            if _turned(tv, bv):
                yield _finding(ctx, mod, site_of(mod, rec), tv, bv, use=held[0], failure=None, details=held[1],
                               rec=rec, silent=True)


RULES = [class_became_function]
