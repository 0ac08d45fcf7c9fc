"""Walk two snapshots of one package once and yield every change, old module by old module.

Names are resolved by drift/model/index.py's PackageIndex, the resolver `drift check` uses, so both
commands agree on re-exports, star imports, submodules and inheritance. Cost is linear in the
number of modules/symbols: every old definition is looked up by dict in the new snapshot, and
the whole-package indexes (definitions by name for moved symbols, subclass counts) are built
only when the first change needs them."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from drift.analysis.moves import same_object
from drift.analysis.diff.classes import compare_class, compare_function
from drift.analysis.diff.kinds import ChangeKind
from drift.analysis.diff.model import Change, DiffResult, Side
from drift.analysis.diff.site import Site, is_private_name
from drift.analysis.diff.surface import module_surface
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, Symbol


def qualname(sym: Symbol) -> str:
    """The name inside its module ("" for a module)."""
    return sym.dotted[len(sym.module) + 1:] if sym.dotted != sym.module else ""


def diff_modules(
    old_modules: dict[str, dict], new_modules: dict[str, dict], *, top: str, store: Any = None,
    old_digest: str | None = None, new_digest: str | None = None,
) -> Iterator[Change]:
    """Every change from `old_modules` to `new_modules` (facts `modules` maps)."""
    old_index = PackageIndex.of_package(top, {"modules": old_modules, "digest": old_digest}, store=store)
    new_index = PackageIndex.of_package(top, {"modules": new_modules, "digest": new_digest}, store=store)
    for modname in sorted(old_modules):
        old_mod = ModuleFacts(old_modules[modname])
        new_raw = new_modules.get(modname)
        new_mod = ModuleFacts(new_raw) if new_raw is not None else None
        site = Site(modname, "", old_mod.path, new_mod.path if new_mod is not None else "")
        if new_mod is None:
            yield from _module_removed(modname, old_mod, site=site, old_index=old_index, new_index=new_index)
            continue
        if old_mod.error or new_mod.error:
            continue
        yield from _diff_module(
            modname, old_mod, site=site, old_index=old_index, new_index=new_index, top=top
        )
    for modname in sorted(set(new_modules) - set(old_modules)):
        path = ModuleFacts(new_modules[modname]).path
        site = Site(modname, "", "", path)
        yield site.change(ChangeKind.MODULE_ADDED, path, new=site.new(1))


def _module_removed(modname: str, old_mod: ModuleFacts, *, site: Site, old_index: PackageIndex,
                    new_index: PackageIndex) -> Iterator[Change]:
    yield site.change(ChangeKind.MODULE_REMOVED, old_mod.path, old=site.old(1))
    for table, kind in ((old_mod.classes, "class"), (old_mod.functions, "function")):
        for name, node in table.items():
            target = _moved_to(modname, name, kind, new_index)
            if target is not None:
                child = site.child(name, new_path=target.path)
                yield _moved(child, node.line, kind, target)
                old_def = Symbol(f"{modname}.{name}", kind, modname, site.old_path, node.line, node.raw)
                yield from _compare_moved(old_def, target, site=child, old_index=old_index, new_index=new_index)


def _compare_moved(old: Symbol, new: Symbol, *, site: Site, old_index: PackageIndex,
                   new_index: PackageIndex) -> Iterator[Change]:
    """A class or function that moved is compared with its new definition, so what changed
    with the move (a dropped method, a renamed ClassVar, a new required parameter) is reported
    at the name users imported, with the new file as evidence. Only for the same object
    (drift.analysis.moves.same_object), and not one that was already
    defined there in the old snapshot (vLLM 0.16 dropped its copies of
    `apply_rotary_emb_torch`; the vendored flash-attn one it keeps is another function). A
    same-named object with another API is a different thing, not a changed one."""
    if not same_object(old, new) or old_index.defined_in(new.module, qualname(new)) is not None:
        return  # another object: a different API, or it existed beside this one
    if old.kind == "class":
        yield from compare_class(old, new, site=site, old_index=old_index, new_index=new_index)
    elif old.kind == "function":
        yield from compare_function(old.as_function, new.as_function, site=site)


def _moved_to(modname: str, name: str, kind: str, new_index: PackageIndex) -> Symbol | None:
    """Where a vanished symbol is defined now: same kind first, then the nearest module."""
    candidates = new_index.definitions_of(name)
    if not candidates:
        return None
    parts = modname.split(".")

    def rank(d: Symbol) -> tuple[int, int, str]:
        other = d.module.split(".")
        shared = 0
        for a, b in zip(parts, other):
            if a != b:
                break
            shared += 1
        return (0 if d.kind == kind else 1, -shared, d.module)

    return min(candidates, key=rank)


def _moved(site: Site, line: int, kind: str, target: Symbol, *, reexport: bool = False) -> Change:
    where = "is no longer re-exported here; it is defined in" if reexport else "is now defined in"
    return site.change(
        ChangeKind.SYMBOL_MOVED,
        f"{kind} {site.symbol} {where} {target.module}"
        + ("" if target.kind == kind else f" (as a {target.kind})"),
        old=site.old(line),
        new=(site.new(target.line, target.dotted)),
    )


def _diff_module(
    modname: str,
    old_mod: ModuleFacts,
    *,
    site: Site,
    old_index: PackageIndex,
    new_index: PackageIndex,
    top: str,
) -> Iterator[Change]:
    surface = module_surface(modname, old_mod, top, index=old_index)
    old_classes, old_functions = old_mod.classes, old_mod.functions
    for name, (kind, line) in sorted(surface.items()):
        child = site.child(name)
        new_def = new_index.defined_in(modname, name)
        if new_def is None and new_index.binds(modname, name):
            new_def = new_index.lookup(f"{modname}.{name}")
            if new_def is None:
                continue  # still importable from here (external re-export): nothing to compare
        if new_def is None:
            node = old_classes.get(name) or old_functions.get(name)  # None for a name or an import
            target = None
            reexport = kind == "import"
            if reexport:  # a re-export: what did it name, is it still defined there?
                origin = old_index.lookup(f"{modname}.{name}")
                kind = origin.kind if origin is not None and origin.kind != "module" else kind
                if origin is not None and origin.module != modname and qualname(origin):
                    target = new_index.defined_in(origin.module, qualname(origin))
            if target is None and kind in ("class", "function"):
                target = _moved_to(modname, name, kind, new_index)
            if target is not None:
                moved = site.child(name, new_path=target.path)
                yield _moved(moved, node.line if node is not None else line, kind, target, reexport=reexport)
                if not reexport and node is not None:  # a re-export is compared where it is defined
                    old_def = Symbol(f"{modname}.{name}", kind, modname, site.old_path, node.line, node.raw)
                    yield from _compare_moved(old_def, target, site=moved, old_index=old_index,
                                              new_index=new_index)
            else:
                yield child.change(
                    ChangeKind.SYMBOL_REMOVED,
                    f"{kind} {name}",
                    old=child.old(line),
                    new=child.new(1, "module still exists"),
                )
            continue
        if kind == "import":
            continue  # compared where it is defined
        child = site.child(name, new_path=new_def.path)
        if kind == "class" and new_def.kind == "class":
            old_def = Symbol(f"{modname}.{name}", "class", modname, site.old_path, line, old_classes.raw[name])
            yield from compare_class(old_def, new_def, site=child, old_index=old_index, new_index=new_index)
        elif kind == "function" and new_def.kind == "function":
            yield from compare_function(old_functions[name], new_def.as_function, site=child)
        elif kind == "class" and new_def.kind == "function":  # a class turned into a factory
            yield child.change(
                ChangeKind.CLASS_BECAME_FUNCTION,
                f"class {name} -> function {name}()",
                old=child.old(line), new=child.new(new_def.line),
            )


def select_package(facts: dict, package: str | None) -> tuple[str | None, str | None]:
    """(name, error): the package to diff, given `--package` or the only one present."""
    packages = (facts or {}).get("packages") or {}
    if package:
        return (package, None) if package in packages else (None, f"package {package!r} not in snapshot")
    usable = [n for n, p in packages.items() if p.get("modules")]
    if len(usable) == 1:
        return usable[0], None
    if not usable:
        return None, "snapshot holds no package with modules"
    return None, f"snapshot holds several packages ({', '.join(sorted(usable))}); pick one with --package"


def filter_changes(
    changes: Iterable[Change],
    *,
    public_only: bool = False,
    module_prefix: str | None = None,
    kinds: Iterable[ChangeKind] | None = None,
) -> list[Change]:
    wanted = set(kinds) if kinds else None
    out = []
    for change in changes:
        if public_only and change.private:
            continue
        if module_prefix and not (
            change.module == module_prefix or change.module.startswith(module_prefix + ".")
        ):
            continue
        if wanted is not None and change.kind not in wanted:
            continue
        out.append(change)
    return out


def diff_facts(
    old: dict,
    new: dict,
    *,
    package: str | None = None,
    old_label: str = "old",
    new_label: str = "new",
    public_only: bool = False,
    module_prefix: str | None = None,
    kinds: Iterable[ChangeKind] | None = None,
    store: Any = None,
) -> tuple[DiffResult | None, str | None]:
    """Diff two facts documents for one package. Returns (result, error) — never raises on
    input the probe can produce. `store` (drift.model.store.FactsStore) caches the whole-package
    indexes per digest, as `drift check` does."""
    name, error = select_package(old, package)
    if error:
        return None, f"{old_label}: {error}"
    if name not in ((new or {}).get("packages") or {}):
        return None, f"{new_label}: package {name!r} not in snapshot"
    old_pkg, new_pkg = old["packages"][name], new["packages"][name]
    notes = []
    for label, pkg in ((old_label, old_pkg), (new_label, new_pkg)):
        if pkg.get("errors"):
            notes.append(f"{label}: {len(pkg['errors'])} module(s) could not be parsed")
    changes = diff_modules(
        old_pkg.get("modules") or {}, new_pkg.get("modules") or {}, top=name, store=store,
        old_digest=old_pkg.get("digest"), new_digest=new_pkg.get("digest"),
    )
    kept = filter_changes(changes, public_only=public_only, module_prefix=module_prefix, kinds=kinds)
    result = DiffResult(
        old=_side(old_label, name, old_pkg),
        new=_side(new_label, name, new_pkg),
        changes=tuple(kept),
        notes=tuple(notes),
    )
    return result, None


def _side(label: str, name: str, pkg: dict) -> Side:
    return Side(
        label=label,
        package=name,
        version=pkg.get("version"),
        digest=pkg.get("digest"),
        modules=len(pkg.get("modules") or {}),
    )


__all__ = ["diff_facts", "diff_modules", "filter_changes", "select_package", "is_private_name"]
