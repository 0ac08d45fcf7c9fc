"""Rename a method call whose method vanished from the whole class family (`.old(` -> `.new(`)."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


class RenameMethod(SiteCodemod):
    DESCRIPTION = "Rename `.old(...)` to `.new(...)` on the attribute call at the site line."

    def __init__(self, context: CodemodContext, *, line: int, old: str, new: str) -> None:
        super().__init__(context, line=line)
        self.old = old
        self.new = new
        self._target: cst.Attribute | None = None

    def _attr_calls(self, name: str) -> list[cst.Call]:
        return self.nodes_at_line(
            cst.Call, lambda c: isinstance(c.func, cst.Attribute) and c.func.attr.value == name
        )

    def visit_Module(self, node: cst.Module) -> None:
        calls = self._attr_calls(self.old)
        if calls:
            self._target = calls[0].func  # type: ignore[assignment]
            return
        if self._attr_calls(self.new):
            self.record(ALREADY, f".{self.new}() already called at line {self.line}")
        else:
            self.record(NOT_FOUND, f"no .{self.old}() call at line {self.line}")

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if original_node is not self._target:
            return updated_node
        self.record(APPLIED, f"renamed .{self.old}() to .{self.new}()")
        return updated_node.with_changes(attr=updated_node.attr.with_changes(value=self.new))
