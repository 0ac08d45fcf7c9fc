"""Import a deprecated alias's successor instead of the alias, and use it everywhere in the file
(`from vllm.sampling_params import GuidedDecodingParams` -> `... import StructuredOutputsParams`,
every `GuidedDecodingParams(...)` after it too).

Uses are found by libcst's scope analysis (`ScopeProvider`): only the references that resolve to
this import are renamed, so a local of the same name in some function is left alone. When a use
cannot be renamed by itself (a string annotation holding more than the name) or the file binds the
old name elsewhere too, the import becomes `import New as Old`: the same object under the old
local name, nothing else touched. An import already aliased (`as G`) only changes the imported name.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.helpers import get_full_name_for_node
from libcst.metadata import ParentNodeProvider, PositionProvider, ScopeProvider

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


def _aliases(node: cst.ImportFrom) -> list[cst.ImportAlias]:
    return [] if isinstance(node.names, cst.ImportStar) else list(node.names)


class RenameImport(SiteCodemod):
    DESCRIPTION = "Import `new` instead of the deprecated alias `old` at the site line, and rename its uses."

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider, ScopeProvider)

    def __init__(self, context: CodemodContext, *, line: int, old: str, new: str) -> None:
        super().__init__(context, line=line)
        self.old, self.new = old, new
        self._alias: cst.ImportAlias | None = None
        self._keep_local = False  # rename only the imported name, as `new as old`
        self._uses: set[int] = set()  # ids of Name / SimpleString nodes to rename

    def _imports(self, name: str) -> list[cst.ImportFrom]:
        return self.nodes_at_line(cst.ImportFrom, lambda n: any(
            get_full_name_for_node(a.name) == name for a in _aliases(n)))

    def visit_Module(self, node: cst.Module) -> None:
        sites = self._imports(self.old)
        if not sites:
            if self._imports(self.new):
                self.record(ALREADY, f"{self.new} already imported at line {self.line}")
            else:
                self.record(NOT_FOUND, f"no import of {self.old} at line {self.line}")
            return
        stmt = sites[0]
        self._alias = next(a for a in _aliases(stmt) if get_full_name_for_node(a.name) == self.old)
        if self._alias.asname is not None:
            return
        scope = self.get_metadata(ScopeProvider, stmt, None)
        if scope is None:
            self._keep_local = True
            return
        assignments = {id(a): a for a in scope.assignments[self.old]}.values()
        mine = [a for a in assignments if a.node is stmt]
        if len(mine) != 1 or len(assignments) != 1 or self.new in scope:
            self._keep_local = True  # bound elsewhere too, or the new name is taken: keep the local name
            return
        for ref in mine[0].references:
            n = ref.node
            if (isinstance(n, cst.Name) and n.value == self.old) or (
                    isinstance(n, cst.SimpleString) and n.evaluated_value == self.old):
                self._uses.add(id(n))
            else:
                self._keep_local = True
                self._uses.clear()
                return

    def leave_ImportAlias(self, original_node: cst.ImportAlias, updated_node: cst.ImportAlias) -> cst.ImportAlias:
        if original_node is not self._alias:
            return updated_node
        self.record(APPLIED, f"imported {self.new} instead of {self.old}"
                    + (f" (as {self.old})" if self._keep_local else f" and renamed {len(self._uses)} use(s)"))
        if self._keep_local:
            return updated_node.with_changes(name=cst.Name(self.new), asname=cst.AsName(name=cst.Name(self.old)))
        return updated_node.with_changes(name=cst.Name(self.new))

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if id(original_node) in self._uses:
            return updated_node.with_changes(value=self.new)
        return updated_node

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.SimpleString:
        if id(original_node) in self._uses:
            return updated_node.with_changes(value=f"{updated_node.prefix}{updated_node.quote}{self.new}{updated_node.quote}")
        return updated_node
