"""Rename an attribute read to the successor the baseline's deprecation code named
(`pass_config.enable_sequence_parallelism` -> `pass_config.enable_sp`), converting the value as the
deprecated property did (`args.disable_log_requests` -> `not args.enable_log_requests`)."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod
from drift.fixes.kinds.rename_keyword import converted

# where `not x` needs no parentheses around it
_LOOSE = (cst.Arg, cst.Assign, cst.AnnAssign, cst.Return, cst.If, cst.While, cst.Expr, cst.DictElement)


class RenameAttribute(SiteCodemod):
    DESCRIPTION = "Rename the attribute `.old` read at the site line to `.new` (converted as the shim did)."

    def __init__(self, context: CodemodContext, *, line: int, old: str, new: str, convert: str | None = None) -> None:
        super().__init__(context, line=line)
        self.old, self.new, self.convert = old, new, convert
        self._target: cst.Attribute | None = None

    def visit_Module(self, node: cst.Module) -> None:
        found = self.nodes_at_line(cst.Attribute, lambda a: a.attr.value == self.old)
        if found:
            if self.convert and self._stored(found[0]):
                self.record(NOT_FOUND, f".{self.old} is assigned at line {self.line}: a converted rename cannot be")
                return
            self._target = found[0]
            return
        if self.nodes_at_line(cst.Attribute, lambda a: a.attr.value == self.new):
            self.record(ALREADY, f".{self.new} already read at line {self.line}")
        else:
            self.record(NOT_FOUND, f"no .{self.old} at line {self.line}")

    def _stored(self, node: cst.Attribute) -> bool:
        parent = self.parent(node)
        return isinstance(parent, (cst.AssignTarget, cst.AugAssign)) or (
            isinstance(parent, cst.AnnAssign) and parent.target is node)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if original_node is not self._target:
            return updated_node
        self.record(APPLIED, f"renamed .{self.old} to .{self.new}")
        renamed = updated_node.with_changes(attr=updated_node.attr.with_changes(value=self.new))
        if not self.convert:
            return renamed
        new = converted(renamed.with_changes(lpar=(), rpar=()), self.convert)
        if isinstance(self.parent(original_node), _LOOSE):
            return new
        return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
