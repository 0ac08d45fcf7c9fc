"""Import moves learned from the target's own migration (`from vllm.utils import GiB_bytes` ->
`from vllm.utils.mem_constants import GiB_bytes` in vLLM's own gpu_worker).

Why: a module-level value (a constant table, a number) that leaves one module for another is
only believably "the same value" when something says so: a same-named definition elsewhere may
be another object. The target's maintainers say so when they rewrite their own imports of it
between the two releases: a module of the target that imported `old.N` in the baseline and
imports `new.N` under the same local name in the target kept working with the new home as the
very value it used before. The evidence is read from facts only (each module's import
bindings), never from source, and a module's answer is parsed only where its text names `N`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, Symbol, word


def _build_importers(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[list[str]]]:
    """imported name's last segment -> [[module, local name, dotted target]] of every module-level
    import binding (plain lists: the answer is stored)."""
    out: dict[str, list[list[str]]] = {}
    for mod_name in index.modules if modules is None else modules:
        for local, imp in ModuleFacts(index.modules[mod_name]).imports.items():
            target = imp.target
            if "." in target:
                out.setdefault(target.rsplit(".", 1)[1], []).append([mod_name, local, target])
    return out


def _importers(index: PackageIndex, name: str) -> list[list[str]]:
    return index.query("own_importers", name, needle=word(name), build=_build_importers, default=[])


def own_import_moves(baseline: PackageIndex | None, target: PackageIndex, old: str, new: str) -> list[str]:
    """The target's modules that imported `old` in the baseline and import `new` in its place (same
    local name) in the target: the target's own rewrite of that import; empty when there is none."""
    if baseline is None or old == new:
        return []
    name = old.rsplit(".", 1)[-1]
    before = {(m, local) for m, local, dotted in _importers(baseline, name) if dotted == old}
    if not before:
        return []
    return sorted({m for m, local, dotted in _importers(target, name)
                   if dotted == new and (m, local) in before})


def own_sole_home(baseline: PackageIndex | None, target: PackageIndex, old: str, new: str) -> list[str]:
    """The target's modules that import the name of `old` when every one of them takes it from
    `new`'s definition, and the baseline's own code imported `old`: wherever vLLM itself uses the
    name after the move, it uses the new home (vLLM 0.16's `ChatCompletionRequest`, imported by
    modules that moved in the same refactor, so `own_import_moves` finds no module switching in
    place). Empty when the baseline never imported it, or a target module takes the name from
    anywhere else."""
    if baseline is None or old == new:
        return []
    name = old.rsplit(".", 1)[-1]
    was = baseline.lookup(old)
    home = target.lookup(new)
    if was is None or home is None:
        return []
    if not any((sym := baseline.lookup(dotted)) is not None and sym.dotted == was.dotted
               for _, _, dotted in _importers(baseline, name)):
        return []
    users = [(m, target.lookup(dotted)) for m, _, dotted in _importers(target, name)]
    if not users or any(sym is None or sym.dotted != home.dotted for _, sym in users):
        return []
    return sorted({m for m, _ in users})


def same_literal_value(old: Symbol | None, new: Symbol | None) -> bool:
    """Whether two module-level names are bound to the same literal expression (`1 << 30` in
    both): a value built from constants alone is the same value wherever it is written. The
    probe keeps a name's value text only when it is short; a longer one proves nothing."""
    if old is None or new is None or old.kind != "name" or new.kind != "name":
        return False
    before, after = old.facts.get("value"), new.facts.get("value")
    if not isinstance(before, str) or before != after:
        return False
    try:
        tree = ast.parse(before, mode="eval")
    except SyntaxError:
        return False
    allowed = (ast.Expression, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop,
               ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Load)
    return all(isinstance(node, allowed) for node in ast.walk(tree))


def own_successor_imports(baseline: PackageIndex | None, target: PackageIndex, old: Symbol, new: str) -> list[str]:
    """The target's modules that imported the removed class `old` in the baseline and import its
    successor `new` (the definition's dotted name) in the target, no longer `old`: the target's own
    switch from one class to the other (vLLM 0.13's own modules that used `CompilationLevel` now
    import `CompilationMode`); empty when there is none."""
    if baseline is None:
        return []
    short, new_short = old.dotted.rsplit(".", 1)[-1], new.rsplit(".", 1)[-1]

    def resolves(index: PackageIndex, dotted: str, to: str) -> bool:
        sym = index.lookup(dotted)
        return sym is not None and sym.dotted == to

    before = {m for m, _, dotted in _importers(baseline, short) if resolves(baseline, dotted, old.dotted)}
    if not before:
        return []
    still = {m for m, _, dotted in _importers(target, short) if dotted.rsplit(".", 1)[-1] == short}
    return sorted({m for m, _, dotted in _importers(target, new_short)
                   if m in before and m not in still and resolves(target, dotted, new)})


def own_successor_class(baseline: PackageIndex | None, target: PackageIndex, old: Symbol) -> tuple[str, list[str]] | None:
    """The class the target's own modules import in place of the removed class `old`, and those
    modules: each module that imported `old` in the baseline and no longer imports its name in the
    target, read for the classes it imports now that the baseline did not define; the one class
    every such module (that imports any) switched to. None when no module switched, or they
    disagree, or one switched to two new classes at once.

    Why: a class renamed in place (vLLM 0.29's `JobMetadata` -> `TransferJob` in
    kv_offload/tiering/base.py) leaves no same-named definition to call a move, and no deprecation
    shim; the target's maintainers say what replaced it when they rewrite their own imports."""
    if baseline is None or old.kind != "class":
        return None
    short = old.dotted.rsplit(".", 1)[-1]
    before = {m for m, _, dotted in _importers(baseline, short)
              if (sym := baseline.lookup(dotted)) is not None and sym.dotted == old.dotted}
    still = {m for m, _, dotted in _importers(target, short) if dotted.rsplit(".", 1)[-1] == short}
    new_by_module: dict[str, set[str]] = {}
    for m in sorted(before - still):
        if m not in target.modules or m not in baseline.modules:
            continue
        was = {imp.target for imp in ModuleFacts(baseline.modules[m]).imports.values()}
        now: set[str] = set()
        for imp in ModuleFacts(target.modules[m]).imports.values():
            sym = target.lookup(imp.target) if imp.target not in was else None
            if sym is not None and sym.kind == "class" and baseline.lookup(sym.dotted) is None:
                now.add(sym.dotted)
        if now:  # a module that stopped using it and took nothing new says nothing about a successor
            new_by_module[m] = now
    return _successor_by_vote(new_by_module)


def _successor_by_vote(new_by_module: dict[str, set[str]]) -> tuple[str, list[str]] | None:
    """The one class the switching modules agree on: the one new class every one of them took;
    else, among three or more, a clear majority (the class at least two thirds of them took, ahead
    of every other): in a refactor that replaced a layer class across eighty modules, a few
    modules also took or instead took other new classes (a LoRA mixin beside the layer), which
    must not hide the class the rest switched to. None when they disagree."""
    if not new_by_module:
        return None
    common = set.intersection(*new_by_module.values())
    if len(common) == 1:
        return next(iter(common)), sorted(new_by_module)
    n = len(new_by_module)
    if n <= 2:
        return None
    votes: dict[str, list[str]] = {}
    for m, now in new_by_module.items():
        for cls in now:
            votes.setdefault(cls, []).append(m)
    ranked = sorted(votes.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    best, modules = ranked[0]
    runner_up = len(ranked[1][1]) if len(ranked) > 1 else 0
    if 3 * len(modules) < 2 * n or runner_up >= len(modules):
        return None
    return best, sorted(modules)
