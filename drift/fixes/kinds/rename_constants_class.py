"""Import the class of constants that replaced a removed one, and write every use in its terms
(`from vllm.config import CompilationLevel` -> `... import CompilationMode`; each
`CompilationLevel.PIECEWISE` -> `CompilationMode.VLLM_COMPILE`, member by member; and the field
that held the value moved with it: `compilation_config.level` -> `compilation_config.mode`).

Why a kind of its own and not `rename_import`: the members change names too, so the old local name
cannot be kept as an alias (`New as Old` would still read `Old.PIECEWISE`), and a rename of the class
alone would leave the consumer setting and comparing the old field, which the target reads only at
construction. So every reference of the import (libcst's `ScopeProvider`) must be `Old.MEMBER` with
a known member, or nothing is written. The field: wherever a use is compared with or assigned to
`<expr>.<old field>`, that expression is where the value lives; every `<expr>.<old field>` read or
set with the same expression text, in the scope that binds the import, becomes `<expr>.<new field>`
(a log line printing the level included, as the maintainers wrote it).
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.helpers import get_full_name_for_node
from libcst.metadata import ParentNodeProvider, PositionProvider, ScopeProvider

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod

_CONTAINERS = (cst.List, cst.Tuple, cst.Set, cst.Element, cst.ComparisonTarget, cst.ParenthesizedWhitespace)


def _aliases(node: cst.ImportFrom) -> list[cst.ImportAlias]:
    return [] if isinstance(node.names, cst.ImportStar) else list(node.names)


class RenameConstantsClass(SiteCodemod):
    DESCRIPTION = "Import the successor class of constants at the site line; rename its uses, members and field."

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider, ScopeProvider)

    def __init__(self, context: CodemodContext, *, line: int, old: str, new: str,
                 members: dict[str, str], fields: dict[str, str] | None = None) -> None:
        super().__init__(context, line=line)
        self.old, self.new = old, new
        self.members = dict(members)
        self.fields = dict(fields or {})
        self._alias: cst.ImportAlias | None = None
        self._names: set[int] = set()  # ids of the `Old` Name nodes of `Old.MEMBER`
        self._attrs: dict[int, str] = {}  # id of the member Name node -> its new member
        self._field_attrs: dict[int, str] = {}  # id of a field Name node (`.level`) -> the new field
        self._unknown_field: str | None = None

    def _imports(self, name: str) -> list[cst.ImportFrom]:
        return self.nodes_at_line(cst.ImportFrom, lambda n: any(
            get_full_name_for_node(a.name) == name and a.asname is None for a in _aliases(n)))

    def visit_Module(self, node: cst.Module) -> None:
        sites = self._imports(self.old)
        if not sites:
            if self._imports(self.new):
                self.record(ALREADY, f"{self.new} already imported at line {self.line}")
            else:
                self.record(NOT_FOUND, f"no unaliased import of {self.old} at line {self.line}")
            return
        stmt = sites[0]
        scope = self.get_metadata(ScopeProvider, stmt, None)
        if scope is None:
            self.record(NOT_FOUND, "the import's scope is unknown")
            return
        assignments = {id(a): a for a in scope.assignments[self.old]}.values()
        mine = [a for a in assignments if a.node is stmt]
        if len(mine) != 1 or len(assignments) != 1 or self.new in scope:
            self.record(NOT_FOUND, f"{self.old} is bound elsewhere too, or {self.new} is taken: left as is")
            return
        receivers: set[tuple[str, str]] = set()
        for ref in mine[0].references:
            n = ref.node
            parent = self.parent(n)
            if not (isinstance(n, cst.Name) and isinstance(parent, cst.Attribute) and parent.value is n
                    and parent.attr.value in self.members):
                self.record(NOT_FOUND, f"a use of {self.old} that is not one of its known members: left as is")
                return
            self._names.add(id(n))
            self._attrs[id(parent.attr)] = self.members[parent.attr.value]
            receivers |= self._field_receivers(parent, node)
        if self._unknown_field is not None:
            self._names.clear()
            self.record(NOT_FOUND, f"a use of {self.old} is compared with or stored in `.{self._unknown_field}`, "
                                   f"whose successor is unknown: left as is")
            return
        if not self._names:
            self.record(NOT_FOUND, f"{self.old} is imported but never used: nothing to follow")
            return
        self._alias = next(a for a in _aliases(stmt) if get_full_name_for_node(a.name) == self.old)
        if receivers:
            self._mark_fields(self._scope_node(stmt, node), receivers, node)

    # -- the field the value lives in ------------------------------------------------------------
    def _field_receivers(self, use: cst.Attribute, module: cst.Module) -> set[tuple[str, str]]:
        """(text of `<expr>`, old field) where `use` (`Old.MEMBER`) is compared with or assigned to
        `<expr>.<old field>` (through a list or tuple of members: `x.level not in [A.X, A.Y]`)."""
        node: cst.CSTNode = use
        parent = self.parent(node)
        while isinstance(parent, _CONTAINERS):
            node, parent = parent, self.parent(parent)
        sides: list[cst.BaseExpression] = []
        if isinstance(parent, cst.Comparison):
            sides = [parent.left, *(t.comparator for t in parent.comparisons)]
        elif isinstance(parent, cst.Assign):
            sides = [t.target for t in parent.targets]
        elif isinstance(parent, cst.AnnAssign):
            sides = [parent.target]
        fields = [s for s in sides if isinstance(s, cst.Attribute) and not self._is_use(s)]
        if any(s.attr.value not in self.fields for s in fields):
            # compared with or stored in a field whose successor nobody named: renaming the class
            # alone could leave the value in a field the target no longer reads
            self._unknown_field = next(s.attr.value for s in fields if s.attr.value not in self.fields)
        return {(module.code_for_node(s.value), s.attr.value) for s in fields if s.attr.value in self.fields}

    def _is_use(self, node: cst.Attribute) -> bool:
        return isinstance(node.value, cst.Name) and node.value.value == self.old

    def _scope_node(self, stmt: cst.CSTNode, module: cst.Module) -> cst.CSTNode:
        """The function that binds the import (an import inside a method), else the module."""
        node: cst.CSTNode | None = stmt
        while node is not None and not isinstance(node, cst.FunctionDef):
            node = self.parent(node)
        return node if node is not None else module

    def _mark_fields(self, where: cst.CSTNode, receivers: set[tuple[str, str]], module: cst.Module) -> None:
        """Every `<receiver>.<old field>` inside `where`, for the (receiver, field) pairs a member
        was compared with or stored in: another field of the same object stays as it is."""
        positions = self.metadata[PositionProvider]
        span = positions[where] if where is not module else None
        for node, pos in positions.items():
            if not (isinstance(node, cst.Attribute) and node.attr.value in self.fields):
                continue
            if span is not None and not (span.start.line <= pos.start.line and pos.end.line <= span.end.line):
                continue
            if (module.code_for_node(node.value), node.attr.value) in receivers:
                self._field_attrs[id(node.attr)] = self.fields[node.attr.value]

    # -- the rewrite -------------------------------------------------------------------------------
    def leave_ImportAlias(self, original_node: cst.ImportAlias, updated_node: cst.ImportAlias) -> cst.ImportAlias:
        if original_node is not self._alias:
            return updated_node
        self.record(APPLIED, f"imported {self.new} instead of {self.old}, renamed {len(self._names)} member use(s)"
                    + (f" and {len(self._field_attrs)} field access(es)" if self._field_attrs else ""))
        return updated_node.with_changes(name=cst.Name(self.new))

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if id(original_node) in self._names:
            return updated_node.with_changes(value=self.new)
        new = self._attrs.get(id(original_node)) or self._field_attrs.get(id(original_node))
        return updated_node.with_changes(value=new) if new else updated_node
