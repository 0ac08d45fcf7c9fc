"""vLLM knowledge: a worker class vLLM builds by name answers what vLLM dispatches to it by name.

A platform plugin names its worker class in a string (`parallel_config.worker_cls =
"plugin.worker.NPUWorker"`); vLLM imports it and reaches it through its executors'
`collective_rpc("method", args=(...), kwargs={...})`, which runs `method` on every worker. No
call in either source names the plugin's class, so an override check that follows calls never
sees these: a method vLLM newly dispatches that the plugin's class (and its bases) lacks fails
with AttributeError on every worker, and a method whose parameters no longer take what the
dispatch passes fails with TypeError. The probe records each dispatch by name
(`by_name_calls`, facts +bn); the solved consumer model says which consumer classes reach a
class-naming key (`worker_cls`, drift/consumer/infer.py `_named`).
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import plural, rule
from drift.analysis.rules.reach import _module_of, _site_failure
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, word

# vLLM's dispatchers that run a method, named by a string, on every worker it built by name.
DISPATCHERS = ("collective_rpc",)
# Keys whose value names the class those dispatches reach.
BUILT_BY_NAME = ("worker_cls",)


def _build_dispatches(index: PackageIndex, modules=None) -> dict[str, dict[str, list]]:
    """dispatcher -> method -> [[path, line, positional count or None, keywords or None]]."""
    out: dict[str, dict[str, list]] = {}

    def add(fn, path: str) -> None:
        for disp, rows in fn.behaviour.by_name_calls.items():
            if disp in DISPATCHERS:
                for line, method, npos, kws in rows:
                    out.setdefault(disp, {}).setdefault(method, []).append([path, line, npos, kws])

    for mod_name in index.modules if modules is None else modules:
        mod = ModuleFacts(index.modules[mod_name])
        for fn in mod.every_function():
            add(fn, mod.path)
    return out


def _dispatched(index: PackageIndex | None) -> dict[str, list]:
    """method -> the target's dispatches of it by name, over every dispatcher."""
    out: dict[str, list] = {}
    for disp in DISPATCHERS if index is not None else ():
        for method, sites in (index.query("by_name_calls.v1", disp, needle=word(disp), build=_build_dispatches)
                              or {}).items():
            out.setdefault(method, []).extend(sites)
    return out


def _consumer_classes_chain(ctx: CheckContext, ref: str) -> list[dict]:
    """The consumer class `ref` and its consumer bases, nearest first."""
    out, todo, seen = [], [ref], set()
    while todo:
        r = todo.pop(0)
        cls = ctx.consumer.classes.get(r)
        if r in seen or cls is None:
            continue
        seen.add(r)
        out.append(cls)
        todo += [b[0][4:] for b in cls.get("bases") or [] if b and len(b) == 1 and b[0].startswith("sym:")]
    return out


def _defined(ctx: CheckContext, ref: str, name: str, index: PackageIndex, bases) -> bool:
    """The consumer class, a consumer base or a target base on `index`'s side defines `name` (or
    answers any name through `__getattr__`)."""
    for cls in _consumer_classes_chain(ctx, ref):
        if name in (cls.get("methods") or {}) or name in (cls.get("class_attrs") or {}) \
                or "__getattr__" in (cls.get("methods") or {}):
            return True
    for b in bases:
        for owner in index.mro(b):
            node = owner.as_class
            if name in node.methods or name in node.attrs or "__getattr__" in node.methods:
                return True
    return False


def _own_method(ctx: CheckContext, ref: str, name: str) -> tuple[dict, dict] | None:
    """(class record, method record) of the first consumer class along `ref`'s chain defining `name`."""
    for cls in _consumer_classes_chain(ctx, ref):
        m = (cls.get("methods") or {}).get(name)
        if m is not None:
            return cls, m
    return None


@rule("VLLM003", RuleKind.INTERFACE_METHOD_MISSING, pack="vllm")
def dispatched_by_name(ctx: CheckContext) -> Iterator[Finding]:
    """A worker class the consumer names to vLLM (`worker_cls`) lacks a method vLLM now runs on
    every worker by name (`collective_rpc("m")`; risky: the dispatch sits on a path vLLM
    chooses), or its method no longer takes what the dispatch passes (breaking)."""
    if ctx.baseline is None:
        return
    refs = sorted({r for key in BUILT_BY_NAME for r in ctx.consumer.inferred.named.get(key) or []})
    if not refs:
        return
    now, before = _dispatched(ctx.target), _dispatched(ctx.baseline)
    if not now:
        return
    for ref in refs:
        cls = ctx.consumer.classes.get(ref)
        if cls is None:
            continue
        tb = ctx.target_paths.target_bases(ref)
        bb = ctx.baseline_paths.target_bases(ref) if ctx.baseline_paths else []
        mod = _module_of(ctx, cls)
        missing = [m for m in sorted(now) if not _defined(ctx, ref, m, ctx.target, tb)
                   and (m not in before or _defined(ctx, ref, m, ctx.baseline, bb))]
        if missing:
            yield _missing_finding(cls, mod, ref, missing, now)
        for name in sorted(now):
            found = _own_method(ctx, ref, name)
            if found is not None:
                yield from _signature_findings(ctx, found, name, now[name], before.get(name) or [])


def _missing_finding(cls: dict, mod: dict, ref: str, missing: list[str], now: dict[str, list]) -> Finding:
    names = ", ".join(f"`{m}`" for m in missing)
    return Finding(
        rule_id="VLLM003", kind=RuleKind.INTERFACE_METHOD_MISSING, severity=Severity.RISKY,
        title=f"`{cls.get('qual') or ref}` (a worker vLLM builds by name) has no {names}, which vLLM now "
              f"runs on every worker by name",
        consumer_site=Location(mod["path"], cls.get("line") or 1, symbol=ref, col=(cls.get("col") or 0) + 1),
        target_evidence=tuple(Location(now[m][0][0], now[m][0][1], symbol=f"collective_rpc({m!r})") for m in missing),
        predicted_failure=f"AttributeError: '{ref.rsplit('.', 1)[-1]}' object has no attribute '{missing[0]}' "
                          f"(raised on each worker when vLLM dispatches it)",
        fix=Fix(f"implement {names} on `{ref.rsplit('.', 1)[-1]}`",
                manual_reason="what the method does on this platform is the plugin's decision"),
        symbol=f"{ref}.{missing[0]}",
    )


def _signature_findings(ctx: CheckContext, found: tuple[dict, dict], name: str, sites: list,
                        old_sites: list) -> Iterator[Finding]:
    cls, m = found
    label = f"{cls.get('qual')}.{name}"
    sig = m.get("params") or []
    old = {_site_failure(label, sig, _as_site(s)) for s in old_sites if _known(s)}
    seen: set[str] = set()
    for s in sites:
        if not _known(s):
            continue
        failure = _site_failure(label, sig, _as_site(s))
        if failure is None or failure in old or failure in seen:
            continue
        seen.add(failure)
        mod = _module_of(ctx, cls)
        yield Finding(
            rule_id="VLLM003", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
            title=f"`{label}` does not match how vLLM now runs it on every worker by name "
                  f"(`collective_rpc({name!r})` with {plural(s[2], 'positional argument')}"
                  f"{', ' + ', '.join(k + '=' for k in s[3]) if s[3] else ''})",
            consumer_site=Location(mod["path"], m["line"], symbol=f"{cls['module']}.{cls.get('qual')}.{name}",
                                   col=(m.get("col") or 0) + 1),
            target_evidence=(Location(s[0], s[1], symbol=f"collective_rpc({name!r})"),),
            predicted_failure=failure,
            fix=Fix(f"accept what vLLM now passes in `{label}`",
                    manual_reason="the method must decide what to do with the new arguments"),
            symbol=f"{cls['module']}.{cls.get('qual')}.{name}",
        )


def _known(site: list) -> bool:
    return site[2] is not None and site[3] is not None


def _as_site(site: list) -> list[Any]:
    """A dispatch as a call-site row `_site_failure` reads: [path, line, positional, keywords, star]."""
    return [site[0], site[1], site[2], list(site[3]), False]
