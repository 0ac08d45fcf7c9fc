"""DRIFT095: a patch of a module's name that the target's own callers no longer see.

`setattr(mod, "f", patched)` (or `mod.f = patched`) replaces the module attribute. Code that
calls `mod.f(...)`, or `f(...)` inside `mod` itself, looks the attribute up at call time and runs
the patch. Code in another module that did `from mod import f` holds its own binding, taken when
it was imported, and keeps calling the original. A release that moves a caller of `f` out of
`mod` into a module that imports `f` by name (vLLM 0.26 moved `TritonExperts` out of
`fused_moe.py` into `experts/triton_moe.py`, which does `from ...fused_moe import
invoke_fused_moe_triton_kernel`) silently takes those calls away from the patch: nothing raises,
the patched behaviour just stops applying.

What drift reads: the consumer's patches (a module attribute replaced by assignment or
`setattr`, also over a loop of literal names), and, in the target's and the baseline's
module-level import facts, every module that binds the patched object by name. Where the baseline
had no such module (every caller looked the name up on the module, so the patch reached them all)
and the target has one that calls it (its source has a call of the bound
name; without sources every binder counts) and is not a package's `__init__` (a re-export) is a
caller the patch no longer reaches. Only patches made at run time (inside a function or method)
are judged: a module-level patch runs when the consumer's module is imported, which for a plugin
is before vLLM loads the modules that bind the name, so their bindings take the patch. Risky: a
run-time patch can still run before a binder is first imported; drift cannot see import order.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _patch_values, _patches
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, call_of, word


def _name_bindings(index: PackageIndex, modules: Iterable[str]) -> dict[str, list[list[Any]]]:
    """name -> [[module, path, line, import target, local name]] of every module-level
    `from m import name` (any `as`), outside `if TYPE_CHECKING:`; package `__init__`s (re-exports)
    are left out."""
    out: dict[str, list[list[Any]]] = {}
    for mod_name in modules:
        mod = ModuleFacts(index.modules[mod_name])
        if mod.is_package:
            continue
        for local, imp in mod.imports.items():
            if imp.type_checking or "." not in imp.target:
                continue
            out.setdefault(imp.target.rsplit(".", 1)[-1], []).append(
                [mod_name, mod.path, imp.line or 1, imp.target, local])
    return out


def binders(index: PackageIndex, module: str, name: str) -> list[list[Any]]:
    """The modules other than `module` that bind `module.name` by a from-import (directly or
    through a re-export that resolves to the same object), and call it where sources are at hand."""
    want = index.lookup(f"{module}.{name}")
    if want is None:
        return []
    rows = index.query("name_bindings.v1", name, needle=word(name), build=_name_bindings, default=[]) or []
    out = []
    for row in rows:
        importer, _path, _line, target, local = row
        if importer == module or (target != want.dotted and target != f"{module}.{name}"
                                  and getattr(index.lookup(target), "dotted", None) != want.dotted):
            continue
        if index.has_sources and importer not in set(index.modules_mentioning(call_of(local))):
            continue  # bound but never called there (a type in an annotation, a re-export)
        out.append(row)
    return out


def _patched_elsewhere(ctx: CheckContext, name: str) -> set[str]:
    """Target modules the consumer patches `name` in (the patch then reaches those callers too)."""
    out = set()
    for _mod, patch in _patches(ctx):
        if patch.get("name") != name:
            continue
        owner = ctx.target_paths.value(tuple(patch.get("path") or ()))
        if owner.kind == "module" and owner.sym is not None:
            out.add(owner.sym.dotted)
    return out


@rule("DRIFT095", RuleKind.PATCH_BYPASSED, Severity.RISKY)
def patch_bypassed(ctx: CheckContext) -> Iterator[Finding]:
    """A patch of a target module's function or class (`mod.f = mine`, `setattr(mod, "f", mine)`)
    that reached every caller in the baseline (no module bound `f` by name there), where a target
    module now takes its own reference with `from mod import f` and calls it: those calls run the
    original, the patch silently misses them. Named with the module and its import line; risky
    (import order decides). Only patches made inside a function are judged."""
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod, patch in _patches(ctx):
        name, path = patch.get("name"), tuple(patch.get("path") or ())
        if not name or not path:
            continue
        owner = ctx.target_paths.value(path)
        if owner.kind != "module" or owner.sym is None:
            continue
        if (patch.get("function") or "<module>") == "<module>":
            continue  # patched when the consumer's module is imported: a plugin's, before vLLM's modules bind it
        t, b = _patch_values(ctx, patch)
        if t is None or b is None or t.kind not in ("function", "class") or b.kind not in ("function", "class"):
            continue
        module = owner.sym.dotted
        line, col = patch.get("at") or (patch.get("line"), patch.get("col"))
        key = (mod.get("path"), patch.get("function"), module, name)  # a function's patch, not its restore
        if key in seen:
            continue
        seen.add(key)
        covered = _patched_elsewhere(ctx, name)
        if any(row[0] not in covered for row in binders(ctx.baseline, module, name)):
            continue  # the baseline's callers already held their own binding: the patch coped with that
        new = [row for row in binders(ctx.target, module, name) if row[0] not in covered]
        if not new:
            continue
        first = new[0]
        others = f" (and {len(new) - 1} more: {', '.join(r[0] for r in new[1:4])})" if len(new) > 1 else ""
        yield Finding(
            rule_id="DRIFT095", kind=RuleKind.PATCH_BYPASSED, severity=Severity.RISKY,
            title=f"patch of `{module.rsplit('.', 1)[-1]}.{name}` no longer reaches `{first[0]}`, which now binds "
                  f"its own `{name}` (`from {module} import {name}`) and calls it{others}",
            consumer_site=Location(mod["path"], line or 1, col=(col or 0) + 1, symbol=f"{module}.{name}"),
            target_evidence=tuple(Location(r[1], r[2], symbol=f"{r[0]}.{r[4]}") for r in new[:4]),
            baseline_evidence=(Location(b.sym.path, b.sym.line, symbol=b.sym.dotted),) if b.sym else (),
            predicted_failure=None,
            details="no error is raised: calls from that module run the original; the baseline had no such "
                    "binding there. Only a patch applied before the module is first imported reaches it",
            fix=Fix(f"also patch `{first[0]}.{first[4]}` (every module that binds `{name}` by name)",
                    manual_reason="which modules to patch, and when, is the consumer's design"),
            symbol=f"{module}.{name}",
        )


RULES = [patch_bypassed]
