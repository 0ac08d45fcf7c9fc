"""DRIFT110: an attribute the consumer reads off an object it handed to a target function, which
that function (or one it hands the object on to) stored there in the baseline and no longer stores
in the target.

`state = State(); await init_app_state(engine, state=state, args=args); state.openai_serving_embedding`:
the consumer builds a plain object, hands it to the target to fill, and reads what the target put
there. Nothing in the consumer assigns the attribute, so no type or signature shows the break:
when the target's initialiser stores the server under another name (`state.serving_embedding`) or
only on some paths (inside `if "transcription" in supported_tasks:`), the read raises
`AttributeError` at start-up, far from any vLLM name.

What drift reads: per target function, the attributes it stores on each parameter and whether on
every path (`param_sets`, facts +pf, probes/behaviour.py), and the parameters it hands on to
other functions it also stores on (`param_hands`), followed three calls deep; per consumer
function, the locals it hands whole to a call and the attributes it reads off them after that call
(`handed`, the IR, probes/ir.py). Breaking where the baseline's chain stored the attribute and the
target's, read in full (every hand-on resolved), stores it nowhere; risky where the baseline stored
it on every path and the target only on some. Silent where the consumer stores the attribute on the
object itself, or where the object's own class (a target class) has the attribute.

The value filled in is typed too, where the baseline built it (`call:OpenAIServingEmbedding`, a class
imported inside the storing function resolved to its dotted name): a method called on it, directly
(`state.x.m(...)`) or where the consumer keeps it on `self` (`self.f = state.x` in one method,
`self.f.m(...)` in another), is reported where the target stores no such attribute and that class is
gone from the target or lacks the method: the consumer's call is written against an object the
target never makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.paths import PathEvaluator
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol
from drift.probes.consumer_scan import ir_handed, ir_of

MAX_DEPTH = 3  # hand-ons followed: init_app_state -> init_pooling_state -> ...


@dataclass(frozen=True)
class Stored:
    """One attribute a target function stores on a parameter: where, and whether on every path."""

    every_path: bool
    kind: str | None  # what is stored (probes/behaviour.py `_value_kind`: "call:ServingEmbedding", ...)
    where: Symbol
    line: int


def _bound_param(fn: Symbol, slot: Any, bound: bool) -> str | None:
    """The name of the parameter a positional index or keyword binds in `fn` (None when it goes
    to `*args`/`**kwargs` or nowhere)."""
    params = [p for p in (fn.facts.get("params") or ()) if isinstance(p, dict)]
    if bound and params and params[0].get("kind") in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"):
        params = params[1:]
    if isinstance(slot, int):
        positional = [p for p in params if p.get("kind") in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        return str(positional[slot].get("name")) if slot < len(positional) else None
    if isinstance(slot, str):
        for p in params:
            if p.get("name") == slot and p.get("kind") in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"):
                return slot
    return None


def _callee(index: PackageIndex, name: str, module: str) -> Symbol | None:
    """A hand-on's callee as the function's module names it (dotted through a lazy import, or a
    module-level name of that module)."""
    for dotted in (name, f"{module}.{name}"):
        sym = index.lookup(dotted)
        if sym is not None and sym.kind in ("function", "method"):
            return sym
    return None


def stored_on(index: PackageIndex, fn: Symbol, param: str, depth: int = 0,
              seen: frozenset = frozenset()) -> tuple[dict[str, Stored], bool]:
    """What `fn` stores on its parameter `param`, itself and through the functions it hands the
    parameter to: {attr: Stored}, and whether every hand-on was followed (a callee drift could not
    resolve, or too deep, may store anything)."""
    behaviour = fn.facts.get("behaviour") or {}
    out: dict[str, Stored] = {}
    complete = True
    sets = (behaviour.get("param_sets") or {}).get(param) or {}
    for attr, row in sets.items():
        if isinstance(row, list) and len(row) >= 3:
            out[str(attr)] = Stored(not row[2], row[1] if isinstance(row[1], str) else None, fn,
                                    row[0] if isinstance(row[0], int) else fn.line)
    for hand in behaviour.get("param_hands") or ():
        if not (isinstance(hand, list) and len(hand) >= 5 and hand[1] == param and isinstance(hand[0], str)):
            continue
        callee = _callee(index, hand[0], fn.module)
        if callee is None or depth >= MAX_DEPTH or callee.dotted in seen:
            complete = complete and callee is not None and callee.dotted in seen
            continue
        inner = _bound_param(callee, hand[2], callee.kind == "method")
        if inner is None:
            complete = False
            continue
        sub, sub_complete = stored_on(index, callee, inner, depth + 1, seen | {fn.dotted})
        complete = complete and sub_complete
        for attr, st in sub.items():
            every = st.every_path and not hand[4]
            old = out.get(attr)
            if old is None or (every and not old.every_path):
                out[attr] = Stored(every, st.kind, st.where, st.line)
    return out, complete


def _target_function(paths: PathEvaluator, callee: list) -> tuple[Symbol, bool] | None:
    """The target function a consumer call reaches on one side, and whether it is bound (a method
    called on an instance: its first parameter is taken)."""
    try:
        v = paths.value(tuple(callee))
    except (TypeError, ValueError):
        return None
    if v.sym is None or v.kind not in ("function", "method", "unbound"):
        return None
    if v.sym.kind not in ("function", "method"):
        return None
    return v.sym, v.kind == "method"


def _consumer_stores(ir: dict, root: str) -> set[str]:
    """Attributes the consumer itself stores on the local `root` anywhere in the module."""
    out = set()
    for row in ir.get("store") or ():
        if isinstance(row, list) and len(row) >= 2 and row[0] == [root] and isinstance(row[1], str):
            out.add(row[1])
    return out


def _own_member(paths: PathEvaluator, ir: dict, root: str, attr: str) -> bool:
    """Whether the local was bound to a target object whose own class has `attr` on this side
    (then the attribute does not depend on the callee filling it)."""
    for row in ir.get("assign") or ():
        if isinstance(row, list) and len(row) == 2 and row[0] == root and isinstance(row[1], list):
            try:
                v = paths.value(tuple(row[1]) + ("." + attr,))
            except (TypeError, ValueError):
                continue
            if v.known and v.kind not in ("external", "consumer", "literal"):
                return True
    return False


def _shown(kind: str | None) -> str:
    return kind.split(":", 1)[1] if kind and kind.startswith("call:") else ""


@rule("DRIFT110", RuleKind.ATTRIBUTE_MISSING)
def filled_attribute_gone(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer reads `obj.attr` after handing `obj` to a target function that stored `attr` on
    it in the baseline: breaking when the target's function (and those it hands the object on to)
    stores it nowhere, risky when it now stores it only on some paths, or when the read is a
    `getattr(obj, "attr", default)` (the default comes back silently). An object handed through
    `**kw` built as `dict(state=state)` counts as handed under that keyword."""
    tpaths, bpaths = ctx.target_paths, ctx.baseline_paths
    if bpaths is None or ctx.baseline is None:
        return
    seen: set[tuple[str, int, str]] = set()
    for mod in ctx.usage:
        rows = ir_handed(mod) or ()  # read without decoding the IR: most modules hand nothing
        if not rows:
            continue
        ir = ir_of(mod)
        for row in rows:
            if not (isinstance(row, list) and len(row) == 5 and isinstance(row[0], str)
                    and isinstance(row[1], list) and isinstance(row[4], list)):
                continue
            root, callee, slot, line, reads = row
            before = _target_function(bpaths, callee)
            now = _target_function(tpaths, callee)
            if before is None or now is None:
                continue
            bparam = _bound_param(before[0], slot, before[1])
            tparam = _bound_param(now[0], slot, now[1])
            if bparam is None or tparam is None:
                continue
            if isinstance(slot, int) and tparam != bparam and _bound_param(now[0], bparam, now[1]) is not None:
                continue  # the slot shifted (`init_app_state` lost a parameter before it): the object lands
                # on another parameter, or the call no longer binds at all (DRIFT013/DRIFT012 say which)
            old, _ = stored_on(ctx.baseline, before[0], bparam)
            if not old:
                continue
            new, complete = stored_on(ctx.target, now[0], tparam)
            own = _consumer_stores(ir, root)
            local = root.rpartition(":")[2]
            for read in reads:
                if not (isinstance(read, list) and len(read) in (3, 4) and isinstance(read[0], str)):
                    continue
                attr, rline, rcol = read[:3]
                soft = read[3:] == ["default"]  # `getattr(state, "x", None)`: the default, silently
                was, is_ = old.get(attr), new.get(attr)
                if was is None or attr in own or (mod.get("path"), rline, attr) in seen:
                    continue
                if is_ is None and not complete:
                    continue
                if is_ is not None and (is_.every_path or not was.every_path):
                    continue
                if _own_member(tpaths, ir, root, attr):
                    continue
                seen.add((mod.get("path"), rline, attr))
                yield _finding(ctx, mod, (local, attr, rline, rcol), (before[0], now[0]), (was, is_),
                               sorted(a for a in new if a not in old), soft=soft)
            yield from _calls_on_filled(ctx, mod, ir, row, (old, new), seen)


def _class_of(index: PackageIndex, st: Stored) -> Symbol | None:
    """The class a stored value was built from (`call:ServingEmbedding` in the storing function's
    module), or None when it is not a construction drift can name."""
    if not st.kind or not st.kind.startswith("call:"):
        return None
    name = st.kind[5:]
    for dotted in (f"{st.where.module}.{name}", name):
        sym = index.lookup(dotted)
        if sym is not None:
            return sym if sym.kind == "class" else None
    return None


def _has_member(paths: PathEvaluator, cls: Symbol, name: str) -> bool | None:
    """Whether an instance of `cls` has `name` on this side (None: not known)."""
    try:
        v = paths.value(("sym:" + cls.dotted, "()", "." + name))
    except (TypeError, ValueError):
        return None
    return True if v.known else False if v.kind == "missing" else None


def _kept_on_self(ir: dict, root: str, attr: str) -> list[tuple[str, str]]:
    """(class qual, field) for each `self.f = <root>.<attr>` in the module: the filled value kept on
    the consumer's object, read in its other methods."""
    defs = ir.get("defs") or {}
    out = []
    for row in ir.get("store") or ():
        if not (isinstance(row, list) and len(row) >= 3 and row[2] == [root, "." + attr]
                and isinstance(row[0], list) and len(row[0]) == 1 and isinstance(row[0][0], str)):
            continue
        holder = row[0][0]
        fn, _, name = holder[4:].rpartition(":") if holder.startswith("var:") else ("", "", "")
        spec = defs.get(fn)
        params = spec[1] if isinstance(spec, list) and len(spec) > 1 and isinstance(spec[1], list) else []
        if spec and spec[0] and params and isinstance(params[0], list) and params[0][0] == name \
                and isinstance(row[1], str):
            out.append((spec[0], row[1]))
    return out


def _method_calls(ir: dict, root: str, attr: str) -> Iterator[tuple[str, int]]:
    """(method, line) of each call on the filled value: `<root>.<attr>.m(...)`, or `self.f.m(...)` in
    any method of a class that keeps it as `self.f = <root>.<attr>`."""
    kept = set(_kept_on_self(ir, root, attr))
    defs = ir.get("defs") or {}
    for row in ir.get("call") or ():
        if not (isinstance(row, list) and len(row) >= 4 and isinstance(row[0], list) and isinstance(row[3], int)):
            continue
        callee = row[0]
        if len(callee) == 3 and callee[:2] == [root, "." + attr] and isinstance(callee[2], str):
            yield callee[2][1:], row[3]
        elif kept and len(callee) == 3 and isinstance(callee[0], str) and callee[0].startswith("var:") \
                and isinstance(callee[1], str) and isinstance(callee[2], str):
            fn, _, name = callee[0][4:].rpartition(":")
            spec = defs.get(fn)
            params = spec[1] if isinstance(spec, list) and len(spec) > 1 and isinstance(spec[1], list) else []
            if spec and params and isinstance(params[0], list) and params[0][0] == name \
                    and (spec[0], callee[1][1:]) in kept:
                yield callee[2][1:], row[3]


def _calls_on_filled(ctx: CheckContext, mod: dict, ir: dict, row: list, stores: tuple,
                     seen: set) -> Iterator[Finding]:
    """Calls of a method on a value the baseline's function filled in, where the target no longer
    fills that attribute and the class the baseline built there no longer has the method (the class
    itself gone, or the method): the consumer's call is written against an object the target never
    makes."""
    old, new = stores
    root, reads = row[0], row[4]
    local = root.rpartition(":")[2]
    for attr in sorted({r[0] for r in reads if isinstance(r, list) and r and isinstance(r[0], str)}):
        was = old.get(attr)
        if was is None or attr in new:
            continue
        cls = _class_of(ctx.baseline, was)
        if cls is None:
            continue
        for method, line in _method_calls(ir, root, attr):
            if (mod.get("path"), line, method) in seen or method.startswith("__"):
                continue
            if _has_member(ctx.baseline_paths, cls, method) is not True:
                continue
            now_has = _has_member(ctx.target_paths, cls, method)
            if now_has is not False and ctx.target.lookup(cls.dotted) is not None:
                continue
            seen.add((mod.get("path"), line, method))
            gone = ctx.target.lookup(cls.dotted) is None
            yield Finding(
                rule_id="DRIFT110", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.BREAKING,
                title=f"`.{method}(...)` on the `{cls.dotted.rsplit('.', 1)[-1]}` the baseline stored as "
                      f"`{local}.{attr}`: the target stores no `{attr}`, and "
                      + (f"`{cls.dotted.rsplit('.', 1)[-1]}` is gone" if gone else f"its class has no `{method}`"),
                consumer_site=Location(mod["path"], line, snippet=f".{method}("),
                target_evidence=(),
                baseline_evidence=(ctx.evidence(cls), ctx.evidence(was.where, was.line)),
                predicted_failure=f"AttributeError: object has no attribute '{attr}'",
                details=f"the baseline's `{was.where.dotted.rsplit('.', 1)[-1]}` stored a "
                        f"`{cls.dotted}` there (line {was.line}); the call is written against that class",
                fix=Fix(f"call what the target's object offers in place of `{method}`",
                        manual_reason="the target's replacement is another class with another interface"),
                symbol=f"{cls.dotted}.{method}",
            )


def _finding(ctx: CheckContext, mod: dict, read: tuple, fns: tuple[Symbol, Symbol], stores: tuple,
             added: list[str], soft: bool = False) -> Finding:
    local, attr, line, col = read
    before, now = fns
    was, is_ = stores
    gone = is_ is None
    name = now.dotted.rsplit(".", 1)[-1]
    where = f" (set by `{was.where.dotted.rsplit('.', 1)[-1]}`)" if was.where.dotted != before.dotted else ""
    if gone:
        title = f"`{name}(...)` no longer sets `{local}.{attr}`{where}; the consumer reads it after the call"
        details = "the baseline stored it" + (f" ({_shown(was.kind)})" if _shown(was.kind) else "") + \
            "; the target's function, and every function it hands the object on to, store no such attribute"
        if added:
            details += "; the target stores " + ", ".join(f"`{a}`" for a in added[:6]) + " instead"
    else:
        title = f"`{name}(...)` now sets `{local}.{attr}` only on some paths; the consumer reads it after the call"
        details = "the baseline stored it on every path; the target stores it only under a condition " \
                  f"(`{is_.where.dotted.rsplit('.', 1)[-1]}`, line {is_.line})"
    return Finding(
        rule_id="DRIFT110", kind=RuleKind.ATTRIBUTE_MISSING,
        severity=Severity.BREAKING if gone and not soft else Severity.RISKY,
        title=title + ("; `getattr` with a default hides it: the feature is silently off" if soft and gone else ""),
        consumer_site=Location(mod["path"], line, snippet=f"{local}.{attr}",
                               col=col + 1 if isinstance(col, int) else None),
        target_evidence=(ctx.evidence(now if gone else is_.where, None if gone else is_.line),),
        baseline_evidence=(ctx.evidence(was.where, was.line),),
        predicted_failure=(f"no error: `getattr` returns its default for '{attr}'" if soft else
                           f"AttributeError: object has no attribute '{attr}'") if gone else None,
        details=details,
        fix=Fix(f"read what the target's `{name}` now stores (or guard the read with `getattr({local}, "
                f"\"{attr}\", None)`)", manual_reason="which attribute replaces it is the target's design"),
        symbol=f"{now.dotted}.{attr}",  # one finding per attribute read, several on a line
    )


RULES = [filled_attribute_gone]
