"""Read a name that left a module through its new home (`vllm_ctm.CompressedTensorsWNA16MoEMethod`
-> `compressed_tensors_moe_wna16.CompressedTensorsWNA16MoEMethod`, the module imported from
`...compressed_tensors_moe`).

The consumer reached the name as an attribute of the old module object (`import a.b as m`, `from a
import b`, `import a.b` then `a.b.name`); `move_import` cannot help, since no statement imports the
name itself. Every read at the site line whose qualified name (libcst's QualifiedNameProvider:
what the receiver's import binds) is `<module>.<name>` is read through the new module object,
imported once (`from <parent> import <new module>`, libcst's AddImportsVisitor; drift's import
order pass puts it where the consumer's isort/ruff would): the form the consumer chose, and one
that cannot collide with the consumer's own name for a subclass of the class it reads (vLLM-MetaX
names its subclass of `CompressedTensorsWNA16MoEMethod` the same). Where the module's name is
taken in the file, the bare name imported from the new module is read instead; where both are
taken, nothing is written and the reason says so. A second run finds no such read at the line and
the import in place: already applied.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import ParentNodeProvider, PositionProvider, QualifiedNameProvider, ScopeProvider

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


class ImportMovedMember(SiteCodemod):
    DESCRIPTION = "Read `<module>.<name>` at the site line as `<name>` imported from the module it moved to."

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider, ScopeProvider, QualifiedNameProvider)

    def __init__(self, context: CodemodContext, *, line: int, module: str, name: str, new_module: str) -> None:
        super().__init__(context, line=line)
        self.old_module, self.name, self.new_module = module, name, new_module
        self._reads: set[int] = set()
        self._through: tuple[str, str] | None = None  # (parent, module): read as `module.name`

    def _is_old_read(self, node: cst.Attribute) -> bool:
        if node.attr.value != self.name:
            return False
        qualified = self.get_metadata(QualifiedNameProvider, node, set()) or set()
        return any(q.name == f"{self.old_module}.{self.name}" for q in qualified)

    def _free_or(self, node: cst.CSTNode, local: str, module: str, member: str) -> bool:
        """Whether `local`, read where `node` is, is free or already bound by `from module import
        member` (an earlier run, or the consumer, imported it so)."""
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return False
        if local not in scope:
            return True
        for assignment in scope[local]:
            bound = getattr(assignment, "node", None)
            if not (isinstance(bound, cst.ImportFrom) and bound.module is not None and not bound.relative
                    and get_full_name_for_node(bound.module) == module
                    and not isinstance(bound.names, cst.ImportStar)
                    and any(get_full_name_for_node(a.name) == member
                            and (a.asname is None or get_full_name_for_node(a.asname.name) == local)
                            for a in bound.names)):
                return False
        return True

    def visit_Module(self, node: cst.Module) -> None:
        reads = self.nodes_at_line(cst.Attribute, self._is_old_read)
        parent, _, last = self.new_module.rpartition(".")
        if not reads:
            # either form an earlier run wrote: `from <parent> import <module>` or `from <module> import <name>`
            imported = any(isinstance(s, cst.SimpleStatementLine) and any(
                isinstance(small, cst.ImportFrom) and small.module is not None
                and get_full_name_for_node(small.module) in (parent, self.new_module) for small in s.body)
                for s in node.body)
            self.record(ALREADY if imported else NOT_FOUND,
                        f"no read of `{self.name}` through `{self.old_module}` at line {self.line}")
            return
        # through the new module object, as the consumer read it through the old one (the bare
        # name is often the consumer's own: a subclass named as vLLM's class it extends)
        if parent and all(self._free_or(r, last, parent, last) for r in reads):
            self._reads, self._through = {id(r) for r in reads}, (parent, last)
            return
        if all(self._free_or(r, self.name, self.new_module, self.name) for r in reads):
            self._reads = {id(r) for r in reads}
            return
        self.record(NOT_FOUND, f"`{self.name}` and `{last}` already name something else where line {self.line} "
                               f"reads it: import it from `{self.new_module}` under another name by hand")

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if id(original_node) not in self._reads:
            return updated_node
        if self._through is not None:
            return updated_node.with_changes(value=cst.Name(self._through[1]))
        return cst.Name(self.name, lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self._reads:
            if self._through is not None:
                AddImportsVisitor.add_needed_import(self.context, *self._through)
                self.record(APPLIED, f"read `{self._through[1]}.{self.name}`, importing `{self._through[1]}` "
                                     f"from `{self._through[0]}`")
            else:
                AddImportsVisitor.add_needed_import(self.context, self.new_module, self.name)
                self.record(APPLIED, f"read `{self.name}` imported from `{self.new_module}`")
        return updated_node
