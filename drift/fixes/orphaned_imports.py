"""Remove the imports a patch orphaned: names the file used before the fixes and no longer uses.

Why: a fix that rewrites what a line reads (a signature that takes the target's parameters, a
call moved to another helper) can take away the last use of a name the file imported for it
(`from typing import Any` once the parameters annotated `Any` are gone). The import then stays
as dead code that ruff (F401) and a reviewer flag. Only an import the patch orphaned goes: one
that had a use beside its import before the fixes and has none after. An import that was unused
already is the consumer's business and stays, as does a name any string in the file spells
(`__all__`, a string annotation libcst's scope analysis may not resolve), and so does an import of
the consumer's own package (`first_party`): importing one of its modules may be what installs a
patch, and that must not go with the name. A statement left with no name is removed, its leading
blank line and comments kept for the statement after it (so two isort sections stay apart); one
that keeps a name is thinned by libcst's `RemoveImportsVisitor`.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import RemoveImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, ScopeProvider

# (module, imported name or None for `import module`, local alias or None)
ImportKey = tuple[str, str | None, str | None]


def _imports(source: str) -> dict[ImportKey, bool] | None:
    """Each absolute import of the module's top level, and whether anything reads its binding."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError:
        return None
    scopes = wrapper.resolve(ScopeProvider)
    used: dict[ImportKey, bool] = {}
    for stmt in wrapper.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            for key, local in _bindings(small):
                scope = scopes.get(small)
                if scope is None:
                    continue
                used[key] = used.get(key, False) or any(
                    a.references for a in scope.assignments[local] if getattr(a, "node", None) is small)
    return used


def _statements(source: str) -> dict[ImportKey, tuple[ImportKey, ...]]:
    """Each top-level import's key -> the keys of every name its statement imports."""
    out: dict[ImportKey, tuple[ImportKey, ...]] = {}
    for stmt in cst.parse_module(source).body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                keys = tuple(key for key, _local in _bindings(small))
                out.update((key, keys) for key in keys)
    return out


def _asname(alias: cst.ImportAlias) -> str | None:
    return alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None


def _bindings(small: cst.BaseSmallStatement) -> list[tuple[ImportKey, str]]:
    """(import key, the local name it binds) for each name an import statement binds."""
    out: list[tuple[ImportKey, str]] = []
    if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None \
            and not isinstance(small.names, cst.ImportStar):
        module = get_full_name_for_node(small.module) or ""
        for alias in small.names:
            name = get_full_name_for_node(alias.name) or ""
            out.append(((module, name, _asname(alias)), _asname(alias) or name))
    elif isinstance(small, cst.Import):
        for alias in small.names:
            module = get_full_name_for_node(alias.name) or ""
            asname = _asname(alias)
            # libcst names the binding of `import a.b` by the dotted name, and finds its reads by it
            out.append(((module, None, asname), asname or module))
    return out


def _spelled_in_a_string(source: str, name: str) -> bool:
    return re.search(rf"""["'][^"'\n]*\b{re.escape(name)}\b""", source) is not None


def drop_orphaned_imports(before: str, after: str, *, first_party: tuple[str, ...] = ()) -> str:
    """`after` without the top-level imports it no longer uses that `before` used; else `after`.
    Imports from a package named in `first_party` stay whatever their use."""
    old, new = _imports(before), _imports(after)
    if old is None or new is None:
        return after
    orphaned = [key for key, in_use in new.items() if not in_use and old.get(key)
                and key[0].split(".")[0] not in first_party
                and not _spelled_in_a_string(after, key[2] or key[1] or key[0].split(".")[0])]
    # a statement every name of which goes is removed here, its leading blank lines and comments
    # handed to the statement after it (libcst's remover would drop them, joining two isort
    # sections: ruff I001); a statement that keeps a name is thinned by libcst
    statements = _statements(after)
    whole = {key for key in orphaned if all(k in orphaned for k in statements.get(key, (key,)))}
    module = _without_statements(cst.parse_module(after), whole) if whole else cst.parse_module(after)
    thinned = [key for key in orphaned if key not in whole]
    if not thinned:
        return module.code
    context = CodemodContext()
    for mod, name, asname in thinned:
        RemoveImportsVisitor.remove_unused_import(context, mod, name, asname)
    return RemoveImportsVisitor(context).transform_module(module).code


def _without_statements(module: cst.Module, keys: set[ImportKey]) -> cst.Module:
    """`module` without its top-level import statements whose every binding is in `keys`; the
    lines above each removed one (a blank line between sections, a comment) stay above what
    follows it."""
    body: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []
    for stmt in module.body:
        smalls = list(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else []
        binds = [key for small in smalls for key, _local in _bindings(small)]
        if binds and all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in smalls) \
                and all(key in keys for key in binds):
            carried = carried or list(stmt.leading_lines)
            continue
        if carried:
            own = list(stmt.leading_lines)
            blank = any(line.comment is None for line in carried) and not any(line.comment is None for line in own)
            stmt = stmt.with_changes(leading_lines=[line for line in carried if line.comment is not None or blank]
                                     + own)
            carried = []
        body.append(stmt)
    return module.with_changes(body=body)
