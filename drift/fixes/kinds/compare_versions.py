"""Compare a version as a version, not as text (`vllm.__version__ >= "0.9.0"` ->
`Version(vllm.__version__) >= Version("0.9.0")`, with `from packaging.version import Version`).

The import is added by libcst's own `AddImportsVisitor` (merged into the module's imports, not
repeated when the file has it). A file that binds `Version` to something else is left alone.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import (
    GlobalScope,
    ParentNodeProvider,
    PositionProvider,
    ScopeProvider,
)

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod

_OPS = {cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">",
        cst.GreaterThanEqual: ">="}


def _is_version_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "Version"


class CompareVersions(SiteCodemod):
    DESCRIPTION = "Wrap both sides of the text comparison with `version` at the site line in packaging's Version."

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider, ScopeProvider)

    def __init__(self, context: CodemodContext, *, line: int, op: str, version: str) -> None:
        super().__init__(context, line=line)
        self.op, self.version = op, version
        self._target: cst.Comparison | None = None

    def _matches(self, c: cst.Comparison, *, wrapped: bool) -> bool:
        if len(c.comparisons) != 1 or _OPS.get(type(c.comparisons[0].operator)) != self.op:
            return False
        right = c.comparisons[0].comparator
        if wrapped:
            return _is_version_call(c.left) and _is_version_call(right)
        return isinstance(right, cst.SimpleString) and right.evaluated_value == self.version

    def visit_Module(self, node: cst.Module) -> None:
        found = self.nodes_at_line(cst.Comparison, lambda c: self._matches(c, wrapped=False))
        if not found:
            if self.nodes_at_line(cst.Comparison, lambda c: self._matches(c, wrapped=True)):
                self.record(ALREADY, f"the comparison at line {self.line} already compares versions")
            else:
                self.record(NOT_FOUND, f"no `... {self.op} {self.version!r}` at line {self.line}")
            return
        scope = self.get_metadata(ScopeProvider, found[0], None)
        for assignment in (scope.assignments["Version"] if scope is not None and "Version" in scope else ()):
            node_ = assignment.node
            if not (isinstance(node_, cst.ImportFrom) and node_.module is not None
                    and cst.Module([]).code_for_node(node_.module) == "packaging.version"):
                self.record(NOT_FOUND, f"`Version` is bound to something else in this file (line {self.line})")
                return
            if (not isinstance(scope, GlobalScope)
                    and self.get_metadata(PositionProvider, node_).start.line > self.line):
                # a function's own later `from packaging.version import Version` makes the name
                # local to it: used above that import it would raise UnboundLocalError
                self.record(NOT_FOUND, f"`Version` is imported below line {self.line} in the same function")
                return
        self._target = found[0]

    def leave_Comparison(self, original_node: cst.Comparison, updated_node: cst.Comparison) -> cst.Comparison:
        if original_node is not self._target:
            return updated_node
        AddImportsVisitor.add_needed_import(self.context, "packaging.version", "Version")
        target = updated_node.comparisons[0]
        self.record(APPLIED, f"compared Version(...) {self.op} Version({self.version!r})")
        left = updated_node.left.with_changes(lpar=(), rpar=())
        return updated_node.with_changes(
            left=cst.Call(func=cst.Name("Version"), args=[cst.Arg(left)]),
            comparisons=[target.with_changes(comparator=cst.Call(func=cst.Name("Version"),
                                                                 args=[cst.Arg(target.comparator)]))])
