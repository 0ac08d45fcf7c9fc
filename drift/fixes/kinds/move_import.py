"""Import a name from the module it moved to (`from vllm.utils import cdiv` -> `...math_utils`).

The statement at the site line keeps the names that did not move; each moved name joins an
existing `from <new module> import ...` of the same block when there is one (in the same
statement style, sorted in when the names there are sorted), else a new statement right after
the old one. The local name (`as x`) is kept, so no use elsewhere in the file changes.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.helpers import get_full_name_for_node

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


def _module_name(node: cst.ImportFrom) -> str | None:
    if node.relative or node.module is None:
        return None
    return get_full_name_for_node(node.module)


def _names(node: cst.ImportFrom) -> list[cst.ImportAlias]:
    return [] if isinstance(node.names, cst.ImportStar) else list(node.names)


def _alias_name(alias: cst.ImportAlias) -> str:
    return get_full_name_for_node(alias.name) or ""


def _with_names(node: cst.ImportFrom, names: Sequence[cst.ImportAlias]) -> cst.ImportFrom:
    """`node` with `names`, commas fixed: the last one keeps a trailing comma only if parenthesized."""
    out = []
    for i, alias in enumerate(names):
        last = i == len(names) - 1
        if last and node.rpar is None:
            alias = alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        elif not last and not isinstance(alias.comma, cst.Comma):
            alias = alias.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        out.append(alias)
    return node.with_changes(names=out)


class MoveImport(SiteCodemod):
    DESCRIPTION = "Import each moved name from its new module (`moves`: name -> new module)."

    def __init__(self, context: CodemodContext, *, line: int, module: str, moves: Mapping[str, str]) -> None:
        super().__init__(context, line=line)
        self.old_module = module
        self.moves = dict(moves)
        self._target: cst.ImportFrom | None = None
        self._moving: list[cst.ImportAlias] = []
        self._joins: dict[str, cst.ImportFrom] = {}  # new module -> an existing import of it to join

    def _imports_from(self, module: str) -> list[cst.ImportFrom]:
        return self.nodes_at_line(cst.ImportFrom, lambda n: _module_name(n) == module)

    def visit_Module(self, node: cst.Module) -> None:
        sites = self._imports_from(self.old_module)
        moving = [a for s in sites[:1] for a in _names(s) if _alias_name(a) in self.moves]
        if not sites or not moving:
            if self._already(node):
                self.record(ALREADY, f"{', '.join(sorted(self.moves))} already imported from the new module")
            else:
                self.record(NOT_FOUND, f"no `from {self.old_module} import ...` of {', '.join(sorted(self.moves))} "
                                       f"at line {self.line}")
            return
        self._target, self._moving = sites[0], moving
        block = self.parent(self.parent(sites[0]))
        for stmt in getattr(block, "body", ()) or ():
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom) and small is not sites[0]:
                        mod = _module_name(small)
                        if mod in self.moves.values() and not isinstance(small.names, cst.ImportStar):
                            self._joins.setdefault(mod, small)

    def _already(self, module: cst.Module) -> bool:
        found = set()
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom):
                        mod = _module_name(small)
                        found |= {(mod, _alias_name(a)) for a in _names(small)}
        return all((new, name) in found for name, new in self.moves.items())

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        for new, join in self._joins.items():
            if original_node is join:
                extra = [a for a in self._moving if self.moves[_alias_name(a)] == new]
                have = {(_alias_name(a), a.asname and get_full_name_for_node(a.asname.name)) for a in _names(join)}
                extra = [a for a in extra if (_alias_name(a), a.asname and get_full_name_for_node(a.asname.name))
                         not in have]
                names = list(_names(updated_node))
                if not extra:
                    return updated_node
                keys = [_alias_name(a) for a in names]
                template = names[-2].comma if len(names) > 1 else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                for alias in extra:
                    alias = alias.with_changes(comma=template)
                    if keys == sorted(keys):
                        at = next((i for i, k in enumerate(keys) if k > _alias_name(alias)), len(keys))
                    else:
                        at = len(keys)
                    if at == len(names) and names:
                        names[-1] = names[-1].with_changes(comma=template)
                    names.insert(at, alias)
                    keys.insert(at, _alias_name(alias))
                trailing = _names(updated_node)[-1].comma if _names(updated_node) else cst.MaybeSentinel.DEFAULT
                names[-1] = names[-1].with_changes(comma=trailing)
                return _with_names(updated_node, names)
        return updated_node

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if self._target is None or self._target not in original_node.body:
            return updated_node
        idx = original_node.body.index(self._target)
        old = updated_node.body[idx]
        assert isinstance(old, cst.ImportFrom)
        stay = [a for a in _names(old) if _alias_name(a) not in self.moves]
        added: list[cst.SimpleStatementLine] = []
        by_module: dict[str, list[cst.ImportAlias]] = {}
        for alias in self._moving:
            new = self.moves[_alias_name(alias)]
            if new not in self._joins:
                by_module.setdefault(new, []).append(alias)
        self.record(APPLIED, "; ".join(f"import `{n}` from `{m}`" for n, m in sorted(self.moves.items())))
        if not stay and len(by_module) == 1 and not self._joins:
            # the whole statement moves: only its module changes
            (new, _), = by_module.items()
            body = list(updated_node.body)
            body[idx] = old.with_changes(module=cst.parse_expression(new))
            return updated_node.with_changes(body=body)
        for new, aliases in by_module.items():
            clean = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in aliases]
            stmt = cst.ImportFrom(module=cst.parse_expression(new),  # type: ignore[arg-type]
                                  names=[a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                                         for a in clean[:-1]] + clean[-1:])
            added.append(cst.SimpleStatementLine(body=[stmt]))
        body = list(updated_node.body)
        if stay:
            body[idx] = _with_names(old, stay)
        else:
            body.pop(idx)
        if not body:
            if added:  # the comments above the old statement stay above its replacement
                added[0] = added[0].with_changes(leading_lines=updated_node.leading_lines)
                return cst.FlattenSentinel(added)
            return cst.RemovalSentinel.REMOVE  # type: ignore[return-value]
        return cst.FlattenSentinel([updated_node.with_changes(body=body), *added])
