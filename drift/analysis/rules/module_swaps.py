"""A target module the consumer answers with its own module, which must define what the target imports.

A plugin can take a whole vLLM module's place: an `__import__` hook or a `sys.modules[...]`
entry maps `"vllm.compilation.wrapper"` to `"plugin.compilation.wrapper"`, and every later
`from vllm.compilation.wrapper import X` in vLLM's own code reads the plugin's module. The
replacement was written for the baseline; when the target's modules import a name from the
replaced module that the baseline's did not, and the replacement does not define it, those
modules fail to import (ImportError) with nothing in the plugin's code naming the name.

The mapping comes from the solved model (`module_swaps`: string pairs in a module that puts
modules into the import system, probes/ir.py `modmap`); what the replacement defines, from its
IR (top-level functions, classes and assignments) and its recorded imports; what the target
imports from the module, from the target's module-level import facts.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.consumer.infer import top_level_line, top_level_names
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, word


def _importers(index: PackageIndex, modules: Iterable[str]) -> dict[str, dict[str, list[Any]]]:
    """module -> {name: [importing module, path, line]}: the names target modules import from
    each module by name (`from m import name`; the module's own imports are not counted)."""
    out: dict[str, dict[str, list[Any]]] = {}
    for mod_name in modules:
        mod = ModuleFacts(index.modules[mod_name])
        for _local, imp in mod.imports.items():
            if imp.type_checking or "." not in imp.target:
                continue
            home, _, name = imp.target.rpartition(".")
            if home == mod_name or home in index.modules and name in index.modules:
                continue  # a module's own name, or a submodule imported as a name
            out.setdefault(home, {}).setdefault(name, [mod_name, mod.path, imp.line or 1])
    return out


def _imported_from(index: PackageIndex, module: str) -> dict[str, list[Any]]:
    return index.query("imported_from", module, needle=word(module.rsplit(".", 1)[-1]), build=_importers,
                       default={})


def fails_to_load(ctx: CheckContext, record: dict | None) -> bool:
    """Whether the replacement module itself imports, at its top (before its first definition), a
    target name the baseline has and the target does not: it cannot load on the target, so the hook
    that installs it fails before any importer reads it (and one guarded by `try` keeps the target's
    own module). Used for any consumer module whose own import is the first thing to fail."""
    if not record:
        return False
    first = top_level_line(record)
    for imp in record.get("imports") or []:
        line, target = imp.get("line"), imp.get("target")
        if not isinstance(target, str) or not isinstance(line, int) or (first is not None and line > first):
            continue
        if ctx.target.lookup(target) is None and ctx.baseline.lookup(target) is not None:
            return True
    return False


@rule("DRIFT084", RuleKind.IMPORT_REMOVED)
def replacement_module_incomplete(ctx: CheckContext) -> Iterator[Finding]:
    """A target module the consumer replaces with its own module (an import hook or a
    `sys.modules` entry maps one name to the other) lacks a name the target's modules now import
    from it, and the baseline's did not: those modules raise ImportError while the hook is on."""
    if ctx.baseline is None:
        return
    swaps = ctx.consumer.inferred.module_swaps
    seen: set[tuple[str, str]] = set()
    for swap in swaps:
        module, mine = swap["target"], swap["consumer"]
        if (module, mine) in seen:
            continue
        seen.add((module, mine))
        record = ctx.consumer.modules.get(mine)
        have = top_level_names(record)
        if have is None:
            continue  # a star import or a module `__getattr__`: any name may be there
        if fails_to_load(ctx, record):
            continue  # the replacement's own import fails first (DRIFT001 there); a guarded hook falls back
        now = _imported_from(ctx.target, module)
        before = _imported_from(ctx.baseline, module)
        missing = sorted(n for n in now if n not in have and n not in before)
        if not missing:
            continue
        importer, path, line = now[missing[0]]
        listed = ", ".join(f"`{n}`" for n in missing)
        yield Finding(
            rule_id="DRIFT084", kind=RuleKind.IMPORT_REMOVED, severity=Severity.BREAKING,
            title=f"`{mine}` replaces `{module}` and does not define {listed}, which the target's "
                  f"`{importer}` now imports from it",
            consumer_site=Location(swap["path"], swap["line"], symbol=module, col=swap["col"] + 1),
            target_evidence=tuple(Location(now[n][1], now[n][2], symbol=f"{module}.{n}") for n in missing[:5]),
            predicted_failure=f"ImportError: cannot import name '{missing[0]}' from '{mine}'",  # the module's own name
            fix=Fix(f"define {listed} in `{mine}` (or stop replacing `{module}` on this release)",
                    manual_reason="what the target's new names must be is the target's module"),
            symbol=f"{module}.{missing[0]}",
            details=f"imported in {importer} ({path}:{line})",
        )


RULES = [replacement_module_incomplete]
