"""Read an attribute through the object that holds it now (`x.scheduler_config.max_model_len` ->
`x.model_config.max_model_len`).

Only the owner step of a read `<...>.old.attr` at the site line changes; what comes before it
(`self.vllm_config`, `vllm_config`) is kept, since both owners hang off the same parent in the
migration this fix follows (see drift/analysis/rules/owner_moves.py). Every such read on the
line is rewritten (an expression that reads it twice reads one value).
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


def _reads(node: cst.Attribute, owner: str, attr: str) -> bool:
    return node.attr.value == attr and isinstance(node.value, cst.Attribute) and node.value.attr.value == owner


class RenameAttributeOwner(SiteCodemod):
    DESCRIPTION = "Rewrite `<x>.old.attr` to `<x>.new.attr` at the site line."

    def __init__(self, context: CodemodContext, *, line: int, attr: str, old: str, new: str) -> None:
        super().__init__(context, line=line)
        self.attr, self.old, self.new = attr, old, new
        self._targets: set[int] = set()

    def visit_Module(self, node: cst.Module) -> None:
        found = self.nodes_at_line(cst.Attribute, lambda a: _reads(a, self.old, self.attr))
        on_line = [a for a in found if self._starts_or_ends_here(a)] or found[:1]
        if on_line:
            self._targets = {id(a.value) for a in on_line}
            return
        if self.nodes_at_line(cst.Attribute, lambda a: _reads(a, self.new, self.attr)):
            self.record(ALREADY, f"`{self.new}.{self.attr}` already read at line {self.line}")
        else:
            self.record(NOT_FOUND, f"no read of `{self.old}.{self.attr}` at line {self.line}")

    def _starts_or_ends_here(self, node: cst.Attribute) -> bool:
        from libcst.metadata import PositionProvider

        rng = self.get_metadata(PositionProvider, node)
        return self.line in (rng.start.line, rng.end.line)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if id(original_node) not in self._targets:
            return updated_node
        self.record(APPLIED, f"read `{self.new}.{self.attr}` instead of `{self.old}.{self.attr}`")
        return updated_node.with_changes(attr=updated_node.attr.with_changes(value=self.new))
