"""DRIFT135: vLLM newly calls, on what a consumer's override returns, a method the returned
object only has as a stub.

Why: a hook's contract includes what its caller does with the value. A consumer override that
returns a plain instance of a vLLM class (`return KVStats(data=d)`, the base class itself, not a
subclass) was fine while vLLM only stored or forwarded it; once a vLLM function that calls the
hook starts calling a method on the result (`stats = self.connector.get_stats();
stats.is_empty()`), and that method is a `raise NotImplementedError` stub meant for subclasses,
the first call fails. Nothing in the consumer changed and neither did the class: only vLLM's use
of the return value did, which no per-symbol diff sees. The consumer's method is reached either as
an override of the hook or through a vLLM class that builds the consumer's object and forwards the
hook to it (`return self._impl.get_stats()`: vLLM's in-tree connectors for third-party engines).

The evidence is two facts: the override's constructions in its `return` (`returns_built`,
probes/returned_builds.py) and, per vLLM function, the methods it calls on what `.hook(...)`
returned (`result_calls`, probes/behaviour.py). A call is new when no function of the baseline
with the same name (wherever it was: functions move) made such a call on that hook's result. The hook's declared return type must name
the built class or one of its bases, so a common method name whose result is something else is
not taken for the consumer's value.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.handed import _builds
from drift.analysis.rules.reach import _consumer_classes, _lookup_method, _module_of, _stub
from drift.analysis.rules.signature import _type_names
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, functions_in, word


def _sites(index: PackageIndex, modules=None) -> dict[str, list[list[Any]]]:
    """hook -> [[module path, owner, function, called, line]]: every call a function makes on what
    a call of `.hook(...)` returned."""
    out: dict[str, list[list[Any]]] = {}
    for mod_name, mod, owner, fn in functions_in(index, index.modules if modules is None else modules):
        for hook, called in fn.behaviour.result_calls.items():
            out.setdefault(hook, []).extend([mod.path, owner or mod_name, fn.name, m, line] for m, line in called.items())
    return out


def result_call_sites(index: PackageIndex, hook: str) -> list[list[Any]]:
    """The calls the package's functions make on what `.hook(...)` returned."""
    return index.query("result_calls.v1", hook, needle=word(hook), build=_sites) or []


def _declares(ctx: CheckContext, returns: str | None, cls) -> bool:
    """The hook's return annotation names `cls` or one of its bases."""
    names = _type_names(returns)
    if not names:
        return False
    return any(c.dotted.rsplit(".", 1)[-1] in names for c in ctx.target.mro(cls))


def _hooks(ctx: CheckContext) -> Iterator[tuple[str, dict, str, dict, Any, list]]:
    """(ref, class, hook name, method record, the target's hook, baseline bases) for each consumer
    method whose value reaches the target's callers of a hook: an override of a target method, or
    a method of a consumer object a target class builds and hands the hook to (`return
    self._impl.hook()` in the target's own class, DRIFT074's holders)."""
    for ref, cls, tb, bb in _consumer_classes(ctx):
        for name, m in sorted((cls.get("methods") or {}).items()):
            if m.get("returns_built") and not name.startswith("__"):
                tm = _lookup_method(ctx.target, tb, name)
                if tm is not None:
                    yield ref, cls, name, m, tm, bb
    pkgs = sorted({(m or "").split(".")[0] for m in ctx.consumer.modules} - {"", ctx.target_package})
    seen = set()
    for pkg in pkgs:
        for ref, holder_cls, holder, _path, _calls in ctx.target.query(
                "consumer_builds", pkg, needle=word(pkg), build=_builds, default=[]):
            cls = ctx.consumer.classes.get(ref)
            owner = ctx.target.lookup(holder_cls)
            if cls is None or owner is None or owner.kind != "class":
                continue
            for name, m in sorted((cls.get("methods") or {}).items()):
                if not m.get("returns_built") or name.startswith("__") or (ref, name) in seen:
                    continue
                tm = _lookup_method(ctx.target, [owner], name)
                if tm is None or name not in (tm.as_function.behaviour.forwards.get(holder) or ()):
                    continue
                seen.add((ref, name))
                base = ctx.baseline.lookup(holder_cls) if ctx.baseline is not None else None
                yield ref, cls, name, m, tm, [base] if base is not None and base.kind == "class" else []


def _declared(ctx: CheckContext, tm) -> str | None:
    """The hook's return annotation: its own, else the nearest base declaration's."""
    if tm.as_function.returns:
        return tm.as_function.returns
    owner = tm.owner
    if owner is None:
        return None
    for cls in ctx.target.mro(owner)[1:]:
        m = cls.as_class.methods.get(tm.dotted.rsplit(".", 1)[-1])
        if m is not None and m.returns:
            return m.returns
    return None


@rule("DRIFT135", RuleKind.INTERFACE_METHOD_MISSING, Severity.BREAKING)
def returned_stub_called(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer method whose value the target's callers of a hook get (an override, or a method
    the target's own class forwards the hook to) returns a plain instance of a target class, and a
    target function that calls the hook now calls, on its result, a method that class only has as
    a NotImplementedError stub (the same function of the baseline did not call it there)."""
    if ctx.baseline is None:
        return
    for ref, cls, name, m, tm, bb in _hooks(ctx):
        sites = result_call_sites(ctx.target, name)
        if not sites:
            continue
        # the same function (by name, so a function moved to another class or module is the same)
        before = {(f, c) for _, _, f, c, _ in result_call_sites(ctx.baseline, name)}
        declared = _declared(ctx, tm)
        for path, line in m["returns_built"]:
            if len(path) != 1 or not path[0].startswith("sym:"):
                continue  # a class named by its dotted path, not a call's result
            made = ctx.target.lookup(path[0][4:])
            if made is None or made.kind != "class" or not _declares(ctx, declared, made):
                continue
            for mod_path, owner, fn, called, at in sorted(sites, key=lambda s: (s[0], s[4])):
                if (fn, called) in before:
                    continue
                stub = _lookup_method(ctx.target, [made], called)
                if stub is None or not _stub(stub.as_function):
                    continue
                yield _finding(ctx, ref, cls, name, made, stub, line, (mod_path, owner, fn, at), bb)
                break


def _finding(ctx, ref, cls, name, made, stub, line, site, bb) -> Finding:
    mod_path, owner, fn, at = site
    short = made.dotted.rsplit(".", 1)[-1]
    called = stub.dotted.rsplit(".", 1)[-1]
    caller = f"{owner.rsplit('.', 1)[-1]}.{fn}"
    bm = _lookup_method(ctx.baseline, bb, name) if bb else None
    return Finding(
        rule_id="DRIFT135", kind=RuleKind.INTERFACE_METHOD_MISSING, severity=Severity.BREAKING,
        title=f"`{cls['qual']}.{name}` returns a plain `{short}`; the target's `{caller}` now calls "
              f"`.{called}()` on it, which `{short}` only has as a NotImplementedError stub",
        consumer_site=Location(_module_of(ctx, cls)["path"], line, symbol=f"{ref}.{name}"),
        target_evidence=(Location(mod_path, at, symbol=f"{owner}.{fn}"),
                         Location(stub.path, stub.line, symbol=stub.dotted)),
        baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),) if bm is not None else (),
        predicted_failure=f"NotImplementedError raised from {stub.dotted}",
        details=f"the baseline's `{caller}` made no `.{called}()` call on what `{name}` returns",
        fix=Fix(f"return an instance of a subclass of `{short}` that implements `{called}` "
                f"(and the other stubs the target calls on it)",
                manual_reason="what the method must compute is the consumer's own data"),
        symbol=made.dotted,
    )


RULES = [returned_stub_called]
