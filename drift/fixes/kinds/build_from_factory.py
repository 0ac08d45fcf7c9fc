"""Build a module-level value the consumer imported from the factory that made it
(`from vllm.utils import logger` -> `from vllm.logger import init_logger` and
`logger = init_logger("vllm.utils")`).

Why: a module-level object a library built for itself (`logger = init_logger(__name__)` in
vllm/utils) is not a definition that moves; when the module stops binding it, the consumer can
build its own with the same call, the factory imported from where it lives. The rule hands the
call's text with the baseline module's `__name__` already spelled out, so the consumer's call is
the very call the baseline made.

The name leaves the import statement at the site line (the statement goes when nothing is left);
the factory is imported beside it (joining an existing `from <factory module> import ...` of the
same block), unless the block already imports it; the assignment goes after the run of import
statements that holds the site, so no import follows code (ruff's E402). A local alias (`as x`)
is kept as the assigned name. When the factory's name is already bound to something else in the
file the codemod does nothing and says why.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.helpers import get_full_name_for_node

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


def _module_name(node: cst.ImportFrom) -> str | None:
    if node.relative or node.module is None:
        return None
    return get_full_name_for_node(node.module)


def _aliases(node: cst.ImportFrom) -> list[cst.ImportAlias]:
    return [] if isinstance(node.names, cst.ImportStar) else list(node.names)


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return get_full_name_for_node(alias.name) or ""


def _only_imports(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _comma() -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


class BuildFromFactory(SiteCodemod):
    DESCRIPTION = "Build the imported module-level value with the factory call that made it (`name = call`)."

    def __init__(self, context: CodemodContext, *, line: int, module: str, name: str, factory_module: str,
                 factory: str, call: str) -> None:
        super().__init__(context, line=line)
        self.old_module, self.name = module, name
        self.factory_module, self.factory = factory_module, factory
        self.call = cst.parse_expression(call)
        self._site: cst.ImportFrom | None = None
        self._stmt: cst.SimpleStatementLine | None = None
        self._local = name
        self._join: cst.ImportFrom | None = None  # an import of the factory's module to add the factory to
        self._have_factory = False
        self._after: cst.BaseStatement | None = None  # the last import statement of the site's run
        self._top = True  # the site is a module-level import: a blank line sets the assignment off

    def visit_Module(self, node: cst.Module) -> None:
        sites = self.nodes_at_line(cst.ImportFrom, lambda n: _module_name(n) == self.old_module and any(
            get_full_name_for_node(a.name) == self.name for a in _aliases(n)))
        if not sites:
            if self._built(node):
                self.record(ALREADY, f"`{self.name}` is already built with `{self.factory}`")
            else:
                self.record(NOT_FOUND, f"no `from {self.old_module} import {self.name}` at line {self.line}")
            return
        site = sites[0]
        stmt = self.parent(site)
        block = self.parent(stmt) if stmt is not None else None
        body = list(getattr(block, "body", ()) or ())
        if not isinstance(stmt, cst.SimpleStatementLine) or stmt not in body:
            self.record(NOT_FOUND, f"the import at line {self.line} is not a statement of its own block")
            return
        alias = next(a for a in _aliases(site) if get_full_name_for_node(a.name) == self.name)
        self._local = _local(alias)
        # what the block already binds to the factory's name: the factory itself, or something else
        for other in body:
            if not isinstance(other, cst.SimpleStatementLine):
                continue
            for small in other.body:
                if isinstance(small, cst.ImportFrom):
                    for a in _aliases(small):
                        if _local(a) != self.factory:
                            continue
                        if _module_name(small) == self.factory_module and get_full_name_for_node(a.name) == self.factory:
                            self._have_factory = True
                        else:
                            self.record(NOT_FOUND, f"`{self.factory}` is bound to another import in this file")
                            return
                    if (_module_name(small) == self.factory_module and not isinstance(small.names, cst.ImportStar)
                            and self._join is None and small is not site):
                        self._join = small
        idx = body.index(stmt)
        end = idx
        while end + 1 < len(body) and _only_imports(body[end + 1]):
            end += 1
        self._site, self._stmt, self._after = site, stmt, body[end]
        self._top = isinstance(block, cst.Module)

    def _built(self, module: cst.Module) -> bool:
        """`name = <factory>(...)` anywhere in the file, with the factory imported: a run before."""
        want = cst.ensure_type(self.call, cst.Call)
        found = False
        for node in _walk(module):
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) and any(
                    isinstance(t.target, cst.Name) and t.target.value == self.name for t in node.targets):
                found = found or get_full_name_for_node(node.value.func) == get_full_name_for_node(want.func)
        return found

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        if self._join is None or original_node is not self._join or self._have_factory:
            return updated_node
        names = list(_aliases(updated_node))
        keys = [get_full_name_for_node(a.name) or "" for a in names]
        template = names[-2].comma if len(names) > 1 else _comma()
        new = cst.ImportAlias(name=cst.Name(self.factory), comma=template)
        at = next((i for i, k in enumerate(keys) if k > self.factory), len(keys)) if keys == sorted(keys) else len(keys)
        trailing = names[-1].comma
        if at == len(names):
            names[-1] = names[-1].with_changes(comma=template)
        names.insert(at, new)
        names[-1] = names[-1].with_changes(comma=trailing if updated_node.rpar is not None else cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(names=names)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if self._site is None:
            return updated_node
        out: list[cst.BaseStatement] = []
        if original_node is self._stmt:
            idx = original_node.body.index(self._site)
            old = updated_node.body[idx]
            assert isinstance(old, cst.ImportFrom)
            stay = [a for a in _aliases(old) if get_full_name_for_node(a.name) != self.name]
            body = list(updated_node.body)
            if stay:
                last = stay[-1].with_changes(comma=stay[-1].comma if old.rpar is not None and len(stay) > 1
                                             else cst.MaybeSentinel.DEFAULT)
                body[idx] = old.with_changes(names=[*stay[:-1], last])
            else:
                body.pop(idx)
            if body:
                out.append(updated_node.with_changes(body=body))
            if not self._have_factory and self._join is None:
                factory = cst.SimpleStatementLine(body=[cst.ImportFrom(
                    module=cst.parse_expression(self.factory_module),  # type: ignore[arg-type]
                    names=[cst.ImportAlias(name=cst.Name(self.factory))])])
                if not body:  # the comments above the old statement stay above what replaces it
                    factory = factory.with_changes(leading_lines=updated_node.leading_lines)
                out.append(factory)
        else:
            out.append(updated_node)
        if original_node is self._after:
            out.append(cst.SimpleStatementLine(
                body=[cst.Assign(targets=[cst.AssignTarget(target=cst.Name(self._local))], value=self.call)],
                leading_lines=[cst.EmptyLine(indent=False)] if self._top else []))
            self.record(APPLIED, f"`{self._local} = {cst.Module([]).code_for_node(self.call)}`, "
                                 f"`{self.factory}` imported from `{self.factory_module}`")
        if len(out) == 1 and out[0] is updated_node:
            return updated_node
        if not out:
            return cst.RemovalSentinel.REMOVE
        return cst.FlattenSentinel(out)


def _walk(node: cst.CSTNode):  # type: ignore[no-untyped-def]
    stack: list[cst.CSTNode] = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(cur.children)
