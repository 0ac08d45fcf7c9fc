"""Replace a read of a removed setting (`envs.NAME`) by the expression the baseline's settings
module evaluated for it (`int(os.getenv("NAME", "0"))`), importing `os` where the module lacks it.

Why an expression and not a helper: it is the baseline's own text, one line, and a reviewer sees
exactly what is read from the environment. Every `<anything>.NAME` read at the site line is
rewritten (a line may read it twice); the expression is parenthesised where it is not atomic, so
`envs.NAME * 2` keeps its meaning. The settings module's import goes when that was its last use.
A second run finds no read of `NAME` at the line: nothing to do.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import PositionProvider

from drift.fixes.kinds._site import ALREADY, APPLIED, SiteCodemod

_ATOMIC = (cst.Call, cst.Name, cst.Attribute, cst.Subscript, cst.SimpleString, cst.Integer, cst.Float)


class ReadEnv(SiteCodemod):
    DESCRIPTION = "Replace the read of a removed setting by the baseline's expression reading the environment."

    def __init__(self, context: CodemodContext, *, line: int, attr: str, expr: str) -> None:
        super().__init__(context, line=line)
        self.attr = attr
        parsed = cst.parse_expression(expr)
        self.expr = parsed if isinstance(parsed, _ATOMIC) else cst.parse_expression(f"({expr})")
        self._reads: set[int] = set()

    def visit_Module(self, node: cst.Module) -> None:
        reads = self.nodes_at_line(cst.Attribute, lambda n: n.attr.value == self.attr)
        self._reads = {id(n) for n in reads if self._starts(n) == self.line and self._loaded(n)}
        if not self._reads:
            self.record(ALREADY, f"no read of `{self.attr}` at line {self.line}")

    def _starts(self, node: cst.CSTNode) -> int | None:
        pos = self.get_metadata(PositionProvider, node, None)
        return pos.start.line if pos is not None else None

    def _loaded(self, node: cst.Attribute) -> bool:
        """Not a store (`envs.NAME = ...`, a test setting it) nor a delete."""
        parent = self.parent(node)
        if isinstance(parent, cst.AssignTarget) or isinstance(parent, cst.Del):
            return False
        if isinstance(parent, (cst.AnnAssign, cst.AugAssign)) and parent.target is node:
            return False
        return True

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if id(original_node) not in self._reads:
            return updated_node
        RemoveImportsVisitor.remove_unused_import_by_node(self.context, original_node)
        AddImportsVisitor.add_needed_import(self.context, "os")
        self.record(APPLIED, f"`{self.attr}` read from the environment as the baseline did")
        return self.expr
