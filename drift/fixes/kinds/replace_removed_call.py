"""Replace every call of a removed function imported at the site line by the expression the target
wrote in place of its own calls (`vllm_is_batch_invariant()` -> `envs.VLLM_BATCH_INVARIANT`, with
`import vllm.envs as envs`), and drop the import (drift.analysis.own_expressions finds the rewrite).

Uses are found by libcst's scope analysis: only the references that resolve to this import. The
edit is all or nothing: a reference that is anything but a call with no arguments (the function
handed on as a value, called with an argument), or a leading name the file already binds to
something else, leaves the file as it is, with the reason. A second run finds no import of the
name at the line: nothing to do.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import ParentNodeProvider, PositionProvider, ScopeProvider

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod

_ATOMIC = (cst.Call, cst.Name, cst.Attribute, cst.Subscript, cst.SimpleString, cst.Integer, cst.Float)


class ReplaceRemovedCall(SiteCodemod):
    DESCRIPTION = "Replace each call of the removed function imported at the site line by the target's expression."

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider, ScopeProvider)

    def __init__(self, context: CodemodContext, *, line: int, name: str, expression: str, head: str = "",
                 module: str = "") -> None:
        super().__init__(context, line=line)
        self.name, self.expression, self.head, self.home = name, expression, head, module
        parsed = cst.parse_expression(expression)
        self.expr = parsed if isinstance(parsed, _ATOMIC) else cst.parse_expression(f"({expression})")
        self._calls: set[int] = set()
        self._from: str | None = None
        self._bound = False

    def visit_Module(self, node: cst.Module) -> None:
        sites = self.nodes_at_line(cst.ImportFrom, lambda n: not isinstance(n.names, cst.ImportStar) and any(
            get_full_name_for_node(a.name) == self.name and a.asname is None for a in n.names))
        if not sites:
            self.record(ALREADY if self.expression in node.code else NOT_FOUND,
                        f"no import of {self.name} at line {self.line}")
            return
        stmt = sites[0]
        scope = self.get_metadata(ScopeProvider, stmt, None)
        if scope is None:
            self.record(NOT_FOUND, f"the import of {self.name} at line {self.line} is in no scope drift reads")
            return
        if self.head and self.head in scope:
            if not self._binds_module(scope):
                self.record(NOT_FOUND, f"`{self.head}` already names something else in the file")
                return
            self._bound = True  # the module is imported under that name already
        bindings = [a for a in scope.assignments[self.name]]
        mine = [a for a in bindings if a.node is stmt]
        if len(mine) != 1 or len(bindings) != 1:
            self.record(NOT_FOUND, f"`{self.name}` is bound elsewhere in the file too")
            return
        calls = set()
        for ref in mine[0].references:
            parent = self.get_metadata(ParentNodeProvider, ref.node, None)
            if not (isinstance(parent, cst.Call) and parent.func is ref.node and not parent.args):
                self.record(NOT_FOUND, f"`{self.name}` is used other than called with no arguments")
                return
            calls.add(id(parent))
        self._calls = calls
        self._from = get_full_name_for_node(stmt.module) if stmt.module is not None and not stmt.relative else None
        if self._from is None:
            self.record(NOT_FOUND, f"a relative import of {self.name}")
            self._calls = set()

    def _binds_module(self, scope) -> bool:  # type: ignore[no-untyped-def]
        """Whether the file's `head` is an import of the expression's module already (`import vllm.envs
        as envs`, `from vllm import envs`)."""
        for a in scope.assignments[self.head]:
            node = a.node
            if isinstance(node, cst.Import) and any(
                    get_full_name_for_node(al.name) == self.home
                    and (al.asname is None and self.home == self.head
                         or al.asname is not None and get_full_name_for_node(al.asname.name) == self.head)
                    for al in node.names):
                continue
            if isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative \
                    and not isinstance(node.names, cst.ImportStar) and any(
                    f"{get_full_name_for_node(node.module)}.{get_full_name_for_node(al.name)}" == self.home
                    and get_full_name_for_node(al.asname.name if al.asname else al.name) == self.head
                    for al in node.names):
                continue
            return False
        return True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) not in self._calls:
            return updated_node
        return self.expr

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self._calls and self._from is not None:
            RemoveImportsVisitor.remove_unused_import(self.context, self._from, self.name)
            if self.home and not self._bound:
                AddImportsVisitor.add_needed_import(
                    self.context, self.home, asname=None if self.home == self.head else self.head)
            self.record(APPLIED, f"{len(self._calls)} call(s) of {self.name}() now read `{self.expression}`")
        return updated_node
