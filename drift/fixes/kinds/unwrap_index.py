"""Drop a `[0]` the consumer applied to a value that the target now returns unwrapped."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node).strip()


class UnwrapIndex(SiteCodemod):
    DESCRIPTION = "Replace `<name>[index]` at the site line with `<name>`."

    def __init__(self, context: CodemodContext, *, line: int, index: str = "0", name: str | None = None) -> None:
        super().__init__(context, line=line)
        self.index = str(index).strip()
        self.name = name
        self._target: cst.Subscript | None = None

    def _matches(self, sub: cst.Subscript) -> bool:
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return False
        if _code(sub.slice[0].slice.value) != self.index:
            return False
        return self.name is None or _code(sub.value) == self.name

    def _bare(self, node: cst.Name) -> bool:
        """`name` used as is, not subscripted: what the rewrite leaves behind."""
        parent = self.parent(node)
        return node.value == self.name and not (isinstance(parent, cst.Subscript) and parent.value is node)

    def visit_Module(self, node: cst.Module) -> None:
        subs = self.nodes_at_line(cst.Subscript, self._matches)
        if subs:
            self._target = subs[0]
            return
        what = f"{self.name or '<value>'}[{self.index}]"
        if self.name is not None and self.nodes_at_line(cst.Name, self._bare):
            self.record(ALREADY, f"{self.name} is used without [{self.index}] at line {self.line}")
        else:
            self.record(NOT_FOUND, f"no {what} at line {self.line}")

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if original_node is not self._target:
            return updated_node
        self.record(APPLIED, f"dropped [{self.index}]")
        value = updated_node.value
        if updated_node.lpar:
            value = value.with_changes(
                lpar=[*updated_node.lpar, *value.lpar], rpar=[*value.rpar, *updated_node.rpar]
            )
        return value
