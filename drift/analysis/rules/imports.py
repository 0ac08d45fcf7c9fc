"""Imports the consumer makes that no longer resolve in the target."""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.model.facts import FunctionFacts, ModuleFacts
from drift.findings import SAFE, UNSAFE, Finding, Fix, Location, RuleKind, Severity
from drift.analysis.moves import identical_api, moved_to as _moved_to
from drift.analysis.rules.move_tiers import judge_move
from drift.analysis.own_expressions import call_rewrite
from drift.analysis.rules.base import rule
from drift.analysis.rules.enum_successors import enum_successor, successor_field
from drift.analysis.rules.factory_names import FactoryBuild, factory_build
from drift.analysis.rules.own_imports import own_import_moves, own_successor_class, own_successor_imports
from drift.analysis.rules.renames import import_fix, name_rename
from drift.analysis.star_names import GoneStar, star_breaks


@rule("DRIFT001", RuleKind.IMPORT_REMOVED)
def import_removed(ctx: CheckContext) -> Iterator[Finding]:
    """An imported name (private ones too) that the target no longer defines or re-exports.

    Fails at import time, before anything else runs; if the name is defined elsewhere in the
    target, the finding says where it lives now. It is reported at the statement's first line,
    where Python raises (`from X import (a,\n b)`: drift/analysis/surfacing.py), each name's
    own line kept as the site's `use_line`; each name, the names of a module that is gone
    included, stays its own finding with its own fix (a user fixes the statement name by name).

    A module-level value the baseline built with a factory call (`logger = init_logger(__name__)`)
    has no new home: the fix builds the consumer's own with that call (`build_from_factory`,
    `logger = init_logger("vllm.utils")`), safe when the factory returns the logging registry's
    entry for the name (the very object the baseline bound), unsafe otherwise.

    A removed class of constants whose successor the target defines beside it with the same
    member values (`CompilationLevel` -> `CompilationMode`, `enum_successors`) gets the concrete
    edit, member by member, and the field the value moved to (`.level` -> `.mode`), written by
    `rename_constants_class`: safe where the target's own modules made the same switch, unsafe
    on the values alone.

    A name the consumer itself assigns into that module at module level (a plugin's package
    `__init__` doing `vllm.config.current_platform = platform`) is risky, with the assignment
    named: the import finds it wherever that assignment ran first.
    """
    statements: set[tuple] = set()
    for mod, imp in ctx.iter_imports():
        if imp.get("guarded") and not handler_misses(ctx, imp):
            continue  # inside try/except ImportError or `if TYPE_CHECKING:`: never fails at run time
        if imp.get("fallback_for") and all(ctx.target.lookup(t) is not None for t in imp["fallback_for"]):
            continue  # an `except ImportError:` fallback that never runs: the imports it backs up resolve
        target = imp["target"]
        if ctx.target.lookup(target) is not None:
            continue
        base = ctx.baseline.lookup(target) if ctx.baseline else None
        if ctx.baseline and base is None and not ctx.baseline.served_by_getattr(*target.rpartition(".")[::2]):
            if _maybe_compiled(ctx, target):
                continue  # `vllm._C`: a compiled extension neither side's Python source shows
            yield _never_resolved_finding(ctx, mod, imp, target)
            continue  # not drift, but the import fails all the same: a green gate would lie
        # (a name the baseline's module served from its deprecation `__getattr__` imported there: judged as
        # any other the target dropped)
        if imp.get("statement") == "import_module":
            yield _named_module_finding(ctx, mod, imp, target, base)
            continue
        name = target.rsplit(".", 1)[-1]
        module = target.rsplit(".", 1)[0]
        dead = ctx.dead_on_baseline(mod)
        broken = _unreadable(ctx, target)
        if broken is not None:
            key = (mod.get("path"), imp.get("stmt_line") or imp["line"], broken[0])
            if key not in statements:
                statements.add(key)
                yield _unreadable_finding(mod, imp, broken, dead)
            continue
        if imp.get("statement") == "from" and _module_gone(ctx, imp.get("module") or module):
            key = (mod.get("path"), imp["line"], target)
            if key not in statements:  # `from gone import (a, b)`: each name where it is written, as a user fixes it
                statements.add(key)
                yield _module_gone_finding(ctx, mod, imp, dead)
            continue
        shim = _getattr_shim(ctx, module, name)
        moved, different = _moved_to(ctx, target, base)
        if shim:
            yield _shim_finding(ctx, mod, imp, target, shim, moved)
            continue
        # a value the baseline built with a factory call is no move: a same-named value elsewhere is
        # another object (by construction when the call takes the module's `__name__`), unless the
        # target's own code moved its import there
        build = factory_build(ctx.baseline, ctx.target, base) if base is not None and base.kind == "name" else None
        if build is not None and moved and not build.per_module \
                and own_import_moves(ctx.baseline, ctx.target, target, moved):
            build = None
        if build is not None:
            moved, different = None, None
        kind = RuleKind.IMPORT_MOVED if moved else RuleKind.IMPORT_REMOVED
        installed = installed_by_consumer(ctx, module, name, mod, imp)
        evidence = ()
        if moved:
            sym = ctx.target.lookup(moved)
            evidence = (Location(sym.path, sym.line, symbol=moved),) if sym else ()
        yield Finding(
            rule_id="DRIFT002" if moved else "DRIFT001",
            kind=kind,
            severity=Severity.RISKY if dead or installed else Severity.BREAKING,
            title=f"`{name}` is no longer importable from `{module}`" + (f"; it lives in `{moved.rsplit('.', 1)[0]}`" if moved else "")
                  + (f"; the consumer assigns `{module}.{name}` itself at {installed[0]}:{installed[1]}, so the "
                     f"import finds it wherever that has run first" if installed else ""),
            consumer_site=_import_site(mod, imp),
            details=(f"a {different[1]} named `{name}` exists at `{different[0]}` with a different API: not a move"
                     if different else
                     f"the baseline built it there with `{base.facts.get('value')}`, the factory imported from "
                     f"`{build.factory_module}`" if build and base else None),
            target_evidence=evidence,
            baseline_evidence=(ctx.evidence(base),) if base else (),
            predicted_failure=(f"ImportError: cannot import name '{name}' from '{module}'"
                               if ctx.target.lookup(module) is not None and imp.get("statement") != "import"
                               else f"ModuleNotFoundError: No module named '{_missing_module(ctx, target)}'"),
            fix=(_move_fix(ctx, imp, {name: moved}, {name: base}) if moved else
                 _factory_fix(imp, module, build) if build else
                 successor_import_fix(ctx, mod, imp, base, module, name) or
                 Fix(f"stop using `{target}`", manual_reason="nothing of that name is left in the target")),
            symbol=target,
        )
    if ctx.baseline is not None:
        for mod in ctx.usage:
            yield from _star_findings(ctx, mod)


def _star_findings(ctx: CheckContext, mod: dict) -> Iterator[Finding]:
    """`from vllm.x import *`: a name the baseline's star bound and the target's does not, at the
    first line the module evaluates it; a star of a module that is gone, at the star
    (drift/analysis/star_names.py)."""
    dead = ctx.dead_on_baseline(mod)
    severity = Severity.RISKY if dead else Severity.BREAKING
    for b in star_breaks(ctx.baseline, ctx.target, mod):
        if isinstance(b, GoneStar):
            base = ctx.baseline.lookup(b.module)
            shown = ", ".join(f"`{n}`" for n in b.names[:5]) + (", ..." if len(b.names) > 5 else "")
            yield Finding(
                rule_id="DRIFT001", kind=RuleKind.IMPORT_REMOVED, severity=severity,
                title=f"module `{b.module}` no longer exists (its star import gave {shown})",
                consumer_site=Location(mod["path"], b.star_line),
                baseline_evidence=(ctx.evidence(base),) if base else (),
                predicted_failure=f"ModuleNotFoundError: No module named '{_missing_module(ctx, b.module)}'",
                fix=Fix(f"import {shown} from where the target defines them",
                        manual_reason="a star import's names are chosen by hand"),
                symbol=b.module,
            )
            continue
        dotted = f"{b.module}.{b.name}"
        base = ctx.baseline.lookup(dotted)
        moved, _ = _moved_to(ctx, dotted, base)
        sym = ctx.target.lookup(moved) if moved else None
        yield Finding(
            rule_id="DRIFT002" if moved else "DRIFT001",
            kind=RuleKind.IMPORT_MOVED if moved else RuleKind.IMPORT_REMOVED,
            severity=severity,
            title=f"`{b.name}` is no longer bound by `from {b.module} import *` (line {b.star_line})"
                  + (f"; it lives in `{moved.rsplit('.', 1)[0]}`" if moved else ""),
            consumer_site=Location(mod["path"], b.use_line),
            details=f"the baseline's `{b.module}` exported it; the first use of the name in this module is here",
            target_evidence=(Location(sym.path, sym.line, symbol=moved),) if sym else (),
            baseline_evidence=(ctx.evidence(base),) if base else (),
            predicted_failure=f"NameError: name '{b.name}' is not defined",
            fix=Fix(f"import `{b.name}` from `{moved.rsplit('.', 1)[0]}`" if moved else f"stop using `{b.name}`",
                    manual_reason="a name a star import no longer binds is imported by hand"),
            symbol=dotted,
        )


def installed_by_consumer(ctx: CheckContext, module: str, name: str, importer: dict | None = None,
                          imp: dict | None = None) -> tuple[str, int] | None:
    """(path, line) of a module-level, unguarded assignment of the consumer's that puts `name`
    into the target's `module` (`vllm.config.current_platform = platform`), if there is one that
    can run before `importer`'s import `imp` of it.

    Why: a plugin that installs a name the target dropped (or never had) into one of its modules,
    from code that runs as the plugin loads, makes `from module import name` work wherever that
    assignment ran first. drift does not order the consumer's imports in general, so such an
    import is risky with the assignment named, not breaking: the first-contact reviews found it
    working. An assignment that runs after the import stays breaking where that shows: the
    import is above it in the same module, or the value assigned is the importing module's own
    (vllm-mindspore imports `MsCoreEngine` from its core_client, whose `from vllm.v1.utils import
    CoreEngine` fails, then installs it as `vllm.v1.utils.CoreEngine`)."""
    memo = ctx.memo.setdefault("imports.installed", None)
    if memo is None:
        memo = ctx.memo["imports.installed"] = {}
        for mod in ctx.usage:
            if not isinstance(mod, dict):
                continue
            for p in mod.get("patches") or ():
                owner = _dotted_path(p.get("path"))
                if owner is None or p.get("function") != "<module>" or p.get("guards") or not p.get("name"):
                    continue
                memo.setdefault((owner, p["name"]), (mod, p))
    hit = memo.get((module, name))
    if hit is None:
        return None
    patcher, patch = hit
    if importer is not None and _runs_before(patcher, patch, importer, imp):
        return None
    return patcher.get("path"), patch.get("line")


def _runs_before(patcher: dict, patch: dict, importer: dict, imp: dict | None) -> bool:
    """`importer`'s import runs before the assignment `patch` in `patcher`: it is in the patcher
    itself above that line, or the value assigned comes from `importer` (`from plugin.core_client
    import MsCoreEngine` then `vllm.v1.utils.CoreEngine = MsCoreEngine`: that module, and its
    import, ran first)."""
    if importer.get("path") == patcher.get("path"):
        return imp is not None and (imp.get("line") or 0) < (patch.get("line") or 0)
    name = importer.get("module") or ""
    value = (patch.get("value") or {}).get("path") or ()
    head = value[0] if value and isinstance(value[0], str) else ""
    return bool(name) and head.startswith("sym:") and (head[4:] == name or head[4:].startswith(name + "."))


def _dotted_path(path) -> str | None:
    """`vllm.config` for a patch's receiver path `["sym:vllm", ".config"]` (None for anything else)."""
    if not path or not isinstance(path[0], str) or not path[0].startswith("sym:"):
        return None
    steps = list(path[1:])
    if not all(isinstance(s, str) and s.startswith(".") for s in steps):
        return None
    return path[0][4:] + "".join(steps)


def _named_module_finding(ctx: CheckContext, mod: dict, imp: dict, target: str, base) -> Finding:
    """`importlib.import_module("vllm.x")` of a module the baseline had and the target has not:
    it raises where it is called, as `import vllm.x` would. The string is the user's to change."""
    return Finding(
        rule_id="DRIFT001", kind=RuleKind.IMPORT_REMOVED,
        severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=f"module `{target}` no longer exists (imported by name)",
        consumer_site=_import_site(mod, imp),
        target_evidence=(),
        baseline_evidence=(ctx.evidence(base),) if base else (),
        predicted_failure=f"ModuleNotFoundError: No module named '{_missing_module(ctx, target)}'",
        fix=Fix(f"stop importing `{target}` by name, or name the module that holds what is used from it now",
                manual_reason="a module named in a string is changed by hand"),
        symbol=target,
    )


def successor_import_fix(ctx: CheckContext, mod: dict, imp: dict, base, module: str, name: str) -> Fix | None:  # type: ignore[no-untyped-def]
    """The fix of an import of a name the target removed that names its successor: the baseline's
    deprecated alias, a class of constants matched by value, a class the target's own modules
    replaced. Each is written in the import and every use of the file (DRIFT005's uses carry it)."""
    return (_alias_fix(ctx, imp, module, name)
            or (_enum_fix(ctx, mod, imp, base, module, name) if base is not None else None)
            or _own_successor_fix(ctx, imp, base, module, name)
            or _rewritten_call_fix(ctx, imp, module, name))


def _rewritten_call_fix(ctx: CheckContext, imp: dict, module: str, name: str) -> Fix | None:
    """`replace_removed_call` for a removed function whose calls the target's own code rewrote to
    one expression (drift.analysis.own_expressions: vLLM 0.19 wrote `envs.VLLM_BATCH_INVARIANT`
    for each `vllm_is_batch_invariant()`): every call in the file, the import, and the
    expression's module. Safe where three or more of the target's own calls made this very
    rewrite and no other; unsafe on two."""
    if ctx.baseline is None or imp.get("statement") != "from" or (imp.get("local") or name) != name:
        return None
    rewrites = ctx.memo.setdefault("imports.call_rewrite", {})  # one removed function, imported by many files
    key = f"{module}.{name}"
    if key not in rewrites:
        rewrites[key] = call_rewrite(ctx.baseline, ctx.target, key)
    found = rewrites[key]
    if found is None:
        return None
    needs = (f" (with `import {found.module}" + (f" as {found.head}" if found.head != found.module else "") + "`)"
             if found.module else "")
    return Fix(f"replace each `{name}()` in the file with `{found.expression}`{needs} and drop the import: the "
               f"target's own code did so at {found.sites} call sites ({found.evidence.path}:{found.evidence.line})",
               codemod="replace_removed_call", tier=SAFE if found.sites >= 3 else UNSAFE,
               args={"name": name, "expression": found.expression, "head": found.head, "module": found.module})


def _alias_fix(ctx: CheckContext, imp: dict, module: str, name: str) -> Fix | None:
    """`rename_import` when the baseline deprecated `name` as an alias of a class the target's
    `module` still provides (`GuidedDecodingParams` -> `StructuredOutputsParams`)."""
    if ctx.baseline is None or imp.get("statement") != "from":
        return None
    rename = name_rename(ctx.baseline, module, name)
    if rename is None or ctx.target.lookup(f"{module}.{rename.new}") is None:
        return None
    return import_fix(rename, module=module)


def _own_successor_fix(ctx: CheckContext, imp: dict, base, module: str, name: str) -> Fix | None:  # type: ignore[no-untyped-def]
    """`rename_import` for a removed class the target's own modules replaced by one new class
    (`own_successor_class`): the import and every use in the file. Safe when the successor offers
    exactly the old class's API (`identical_api`: a rename in place); unsafe when its API changed;
    manual when the consumer's module does not provide the successor (the codemod renames within
    one import statement)."""
    if ctx.baseline is None or base is None:
        return None
    found = own_successor_class(ctx.baseline, ctx.target, base)
    if found is None:
        return None
    new, modules = found
    new_sym = ctx.target.lookup(new)
    short, home = new.rsplit(".", 1)[-1], new.rsplit(".", 1)[0]
    same = new_sym is not None and identical_api(base, new_sym, (ctx.baseline, ctx.target))
    why = f"the target's own {modules[0]} made the same switch" + (
        "; the two classes have the same API" if same else "; its API changed: check each use")
    there = ctx.target.lookup(f"{module}.{short}")
    if imp.get("statement") != "from" or there is None or there.dotted != new:
        return Fix(f"import `{short}` from `{home}` instead of `{name}` and use it wherever the file uses "
                   f"`{name}` ({why})", manual_reason=f"`{module}` does not provide `{short}`: the import moves too")
    return Fix(f"import `{short}` from `{module}` instead of `{name}` and use it wherever the file uses `{name}` "
               f"({why})", codemod="rename_import", tier=SAFE if same else UNSAFE, args={"old": name, "new": short})


def _enum_fix(ctx: CheckContext, mod: dict, imp: dict, base, module: str, name: str) -> Fix | None:  # type: ignore[no-untyped-def]
    """`rename_constants_class` for a removed class of constants whose successor the target defines
    beside it with the same member values (`enum_successors`): the import, every member, and the
    field each use is compared with or stored in where the target's class now types another field
    with the successor (`compilation_config.level` -> `.mode`, `enum_successors.successor_field`).

    Safe where the target's own modules that used the old class import the successor instead
    (`own_imports.own_successor_imports`: vLLM made this very switch in its own code) and the
    values match member for member (an IntEnum member equals its int, so every comparison keeps its
    answer); unsafe with the values alone. The codemod writes nothing where a use is anything but a
    known member, or sits beside a field whose successor is unknown: the manual edit says it all."""
    succ = enum_successor(ctx.target, base, module)
    if succ is None:
        return None
    new = succ.dotted.rsplit(".", 1)[-1]
    pairs = ", ".join(f"`{name}.{a}` -> `{new}.{b}`" for a, b in succ.members.items())
    fields = _successor_fields(ctx, mod, imp["target"], new, succ.value_types)
    text = (f"import `{new}` from `{succ.importable}` instead and use its member of the same value: {pairs}"
            + ("".join(f"; read and set `.{b}` for `.{a}` (the target's `{cls}.{b}` is typed `{ann}`)"
                       for a, (b, cls, ann) in sorted(fields.items()))
               if fields else f"; a field that held a `{name}` may have a successor too (check what reads the value)"))
    if imp.get("statement") != "from" or imp.get("local", name) != name or succ.importable != module:
        return Fix(text, manual_reason=f"`{new}` is matched to `{name}` by its members' values; only an "
                                       f"unaliased `from {module} import {name}` is rewritten")
    own = own_successor_imports(ctx.baseline, ctx.target, base, succ.dotted)
    why = (f" (the target's own {own[0]} made the same switch)" if own else
           f" (matched by its members' values only: check the code that reads the value)")
    return Fix(text + why, codemod="rename_constants_class", tier=SAFE if own else UNSAFE,
               args={"old": name, "new": new, "members": dict(succ.members),
                     "fields": {a: b for a, (b, _, _) in fields.items()}})


def _successor_fields(ctx: CheckContext, mod: dict, target: str, new: str,
                      value_types: frozenset[str]) -> dict[str, tuple[str, str, str]]:
    """{old field: (new field, class, annotation)} for the fields read or set near a member of
    `target` (within two lines: a comparison split over lines, `x.level\n== Level.FULL`, has them
    on two) that `enum_successors.successor_field` ties to the successor (the field the baseline
    typed with the constants' builtin type, beside one the target types with the successor). Only
    those lines: any other int field of the class would pass that type test too. The codemod moves
    only a field a member is compared with or stored in; a field given two successors is left out."""
    recs = [*(mod.get("calls") or []), *(mod.get("uses") or [])]
    near: set[int] = set()
    for rec in recs:
        path = [str(p) for p in rec.get("path") or ()]
        if rec.get("line") and len(path) >= 2 and path[0] == f"sym:{target}" and path[1].startswith("."):
            near.update(range(rec["line"] - _SPLIT, rec["line"] + _SPLIT + 1))
    paths = {tuple(str(p) for p in rec.get("path") or ()) for rec in recs
             if rec.get("kind") in ("attr", "attr_set") and rec.get("line") in near}
    found: dict[str, set[tuple[str, str, str]]] = {}
    for path in paths:
        if len(path) < 2 or not path[-1].startswith("."):
            continue
        hit = successor_field(ctx, path, new, value_types)
        if hit is not None:
            found.setdefault(hit[0], set()).add(hit[1:])
    return {a: next(iter(b)) for a, b in found.items() if len(b) == 1}


_SPLIT = 2  # lines a comparison or assignment of a member may span around it


def _factory_fix(imp: dict, module: str, build: FactoryBuild) -> Fix:
    """`build_from_factory` for a `from X import name` of a value the baseline built with a factory
    call (`factory_names`): safe when the factory returns a registry's entry for its arguments (the
    consumer gets the baseline's very object), unsafe otherwise (its own object, built the same way)."""
    if imp.get("statement") != "from" or imp.get("level"):
        return Fix(build.edit, manual_reason="only `from module import name` statements are rewritten")
    why = (f" (`{build.factory}` returns the logging registry's entry for that name: the very object "
           f"`{module}` bound)" if build.registry else
           f" (a second call of `{build.factory}` may build another object than the one `{module}` held)")
    return Fix(build.edit + why, codemod="build_from_factory",
               args={"module": module, "name": build.name, "factory_module": build.factory_module,
                     "factory": build.factory, "call": build.call},
               tier=SAFE if build.registry else UNSAFE)


def _maybe_compiled(ctx: CheckContext, target: str) -> bool:
    """Whether the missing piece may be a compiled extension module (`vllm._C`,
    `vllm._moe_C`): a private name directly under a package that exists in the target. The
    facts hold only Python source, so such a module is invisible on both sides."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        parent = ".".join(parts[:cut])
        if parent in ctx.target.modules:
            return parts[cut].startswith("_")
    return False


def _never_resolved_finding(ctx: CheckContext, mod: dict, imp: dict, target: str) -> Finding:
    """An import that resolves in neither the target nor the baseline (a typo, a name the
    consumer only wished for): reported whatever the baseline says, since it fails at import.
    Risky, not breaking: the file already fails to load on the baseline, so the consumer may
    load it only on other releases (lmcache's adapters for older vLLMs); it is never `clean`."""
    name, module = target.rsplit(".", 1)[-1], target.rsplit(".", 1)[0]
    from_stmt = imp.get("statement") != "import" and ctx.target.lookup(module) is not None
    return Finding(
        rule_id="DRIFT001", kind=RuleKind.IMPORT_REMOVED, severity=Severity.RISKY,
        title=f"`{name}` is not importable from `{module}` (in the target nor in the baseline)",
        consumer_site=_import_site(mod, imp),
        details="the name resolves in neither release: not drift, but the import fails all the same",
        predicted_failure=(f"ImportError: cannot import name '{name}' from '{module}'" if from_stmt
                           else f"ModuleNotFoundError: No module named '{_missing_module(ctx, target)}'"),
        fix=Fix(f"stop importing `{target}`", manual_reason="only the author knows what was meant"),
        symbol=target,
    )


def _move_fix(ctx: CheckContext, imp: dict, moves: dict[str, str], bases: dict) -> Fix:
    """`move_import` for a `from X import ...` statement; other statement forms stay manual. Its
    tier is `judge_move`'s (drift/analysis/rules/move_tiers.py)."""
    module = imp.get("module") or imp["target"].rsplit(".", 1)[0]
    homes = {n: d.rsplit(".", 1)[0] for n, d in moves.items()}
    what = "; ".join(f"import `{n}` from `{m}`" for n, m in sorted(homes.items()))
    if imp.get("statement") != "from" or imp.get("level"):
        return Fix(what, manual_reason="only `from module import name` statements are rewritten")
    judged = judge_move(ctx, module, moves, bases)
    if judged.tier is None:
        return Fix(what, manual_reason=judged.manual_reason)
    return Fix(f"{what} ({judged.why})" if judged.why else what, codemod="move_import",
               args={"module": module, "moves": homes}, tier=judged.tier)


def _unreadable(ctx: CheckContext, target: str) -> tuple[str, ModuleFacts] | None:
    """The target module on the import's way that exists but could not be read (a syntax error,
    a bad encoding): the import fails for that reason, not because a name moved."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        mod = ctx.target.modules.get(name)
        if mod is not None:
            facts = ModuleFacts(mod)
            return (name, facts) if facts.error else None
    return None


def _unreadable_finding(mod: dict, imp: dict, broken: tuple[str, ModuleFacts], dead: bool) -> Finding:
    name, facts = broken
    error = facts.error or "unreadable"
    return Finding(
        rule_id="DRIFT001", kind=RuleKind.IMPORT_REMOVED, severity=Severity.RISKY if dead else Severity.BREAKING,
        title=f"module `{name}` does not parse in the target ({error})",
        consumer_site=Location(mod["path"], imp.get("stmt_line") or imp["line"]),
        target_evidence=(Location(facts.path, 1, symbol=name),),
        predicted_failure=error if error.startswith(("SyntaxError", "UnicodeDecodeError", "ValueError")) else None,
        details="the target's file could not be read, so nothing in it can be checked",
        fix=Fix("use a target build whose file parses", manual_reason="the target itself is broken"),
        symbol=name,
    )


def _module_gone(ctx: CheckContext, module: str) -> bool:
    return module not in ctx.target.modules and ctx.target.lookup(module) is None and \
        (ctx.baseline is None or module in ctx.baseline.modules)


def _module_gone_finding(ctx: CheckContext, mod: dict, imp: dict, dead: bool) -> Finding:
    """One name of a `from <gone module> import ...` statement, at the line where the name is
    written, with its own new home and fix; after the rules, the line rule puts it on the
    statement's line (drift/analysis/surfacing.py)."""
    module = imp.get("module") or imp["target"].rsplit(".", 1)[0]
    name = imp["target"].rsplit(".", 1)[-1]
    base = ctx.baseline.lookup(f"{module}.{name}") if ctx.baseline else None
    moved, _ = _moved_to(ctx, f"{module}.{name}", base)
    home = moved.rsplit(".", 1)[0] if moved else None
    sym = ctx.target.lookup(moved) if moved else None
    base_module = ctx.baseline.lookup(module) if ctx.baseline else None
    evidence = base or base_module
    return Finding(
        rule_id="DRIFT002" if moved else "DRIFT001",
        kind=RuleKind.IMPORT_MOVED if moved else RuleKind.IMPORT_REMOVED,
        severity=Severity.RISKY if dead else Severity.BREAKING,
        title=f"module `{module}` no longer exists (imports `{name}`)" + (f"; `{name}` lives in `{home}`" if home else ""),
        consumer_site=_import_site(mod, imp),
        target_evidence=(Location(sym.path, sym.line, symbol=moved),) if sym else (),
        baseline_evidence=(ctx.evidence(evidence),) if evidence else (),
        predicted_failure=f"ModuleNotFoundError: No module named '{_missing_module(ctx, module)}'",
        fix=(_move_fix(ctx, {**imp, "module": module}, {name: moved}, {name: base}) if moved else
             Fix(f"stop importing `{name}` from `{module}`", manual_reason="nothing of that name is left in the target")),
        symbol=imp["target"],
    )


# The ids this rule reports besides its own, each with its page (drift/analysis/ruledocs.py renders them).
VARIANTS = {
    "DRIFT002": (RuleKind.IMPORT_MOVED, Severity.BREAKING,
                 """An imported name (or module) that is gone from where the consumer imports it, and that the
    target defines elsewhere now, with a compatible API (same kind, most methods, the same parameters).

    The finding says where the name lives now. A same-named definition with a different API is not
    a move: it is reported as DRIFT001 with that definition named in the details. The fix imports the
    name from its new home; for a module-level constant it is safe only when the
    target's own code moved its import of the name there, or both releases bind one literal."""),
    "DRIFT003": (RuleKind.IMPORT_MOVED, Severity.RISKY,
                 """An imported name the target module no longer defines, that only its PEP 562 `__getattr__`
    still provides (a deprecation shim): the import works with a warning until the shim goes."""),
}
import_removed.check.variants = VARIANTS


def _import_site(mod: dict, imp: dict) -> Location:
    col = imp.get("col")
    return Location(mod["path"], imp["line"], col=col + 1 if isinstance(col, int) else None)


def _getattr_shim(ctx: CheckContext, module: str, name: str) -> FunctionFacts | None:
    """A PEP 562 `__getattr__` in the target module that still names `name` (a deprecation
    shim): importing works, with a warning, until the shim goes."""
    if not ctx.target.served_by_getattr(module, name):
        return None
    return ModuleFacts(ctx.target.modules[module]).functions.get("__getattr__")


def _shim_finding(ctx: CheckContext, mod: dict, imp: dict, target: str, shim: FunctionFacts,
                  moved: str | None) -> Finding:
    name, module = target.rsplit(".", 1)[-1], target.rsplit(".", 1)[0]
    path = ModuleFacts(ctx.target.modules[module]).path
    return Finding(
        rule_id="DRIFT003", kind=RuleKind.IMPORT_MOVED, severity=Severity.RISKY,
        title=f"`{name}` is only provided by `{module}`'s deprecation `__getattr__`"
              + (f"; it lives in `{moved.rsplit('.', 1)[0]}`" if moved else ""),
        consumer_site=_import_site(mod, imp),
        target_evidence=(Location(path, shim.line, symbol=f"{module}.__getattr__"),),
        predicted_failure=None,
        details="works today with a DeprecationWarning; a later release removes the shim",
        fix=(_move_fix(ctx, imp, {name: moved}, {name: ctx.baseline.lookup(target) if ctx.baseline else None})
             if moved else Fix(f"stop using `{target}`", manual_reason="the shim names no new home")),
        symbol=target,
    )


def handler_misses(ctx: CheckContext, imp: dict) -> bool:
    """Whether the `try` around this import catches only `ModuleNotFoundError` while the target
    fails it with a plain `ImportError`: `from m import Name` with `m` still there and `Name`
    gone raises "cannot import name", the base class, which `except ModuleNotFoundError:` lets
    through. The import is then not guarded at all: it raises at the consumer's import."""
    tried = imp.get("tried") or ()
    if not tried or any(t != "ModuleNotFoundError" for t in tried) or imp.get("statement") != "from":
        return False  # `ImportError`, `Exception`, bare, a tuple (recorded as "several"): caught
    module = imp["target"].rsplit(".", 1)[0]
    return module in ctx.target.modules and imp["target"] not in ctx.target.modules


def _missing_module(ctx: CheckContext, dotted: str) -> str:
    """The first prefix of `dotted` that is not a module in the target (what Python names)."""
    parts = dotted.split(".")
    for cut in range(1, len(parts) + 1):
        name = ".".join(parts[:cut])
        if name not in ctx.target.modules:
            return name
    return dotted
