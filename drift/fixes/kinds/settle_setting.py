"""Replace the read of a removed setting by the value the baseline pinned it to, and simplify what
that decides (`if not envs.VLLM_USE_V1: raise ...` goes; `if envs.VLLM_USE_V1: <body>` becomes
`<body>`; `assert envs.VLLM_USE_V1, ...` goes).

Why a statement edit and not `True` in place: `if not True:` is no code a reviewer keeps. The
statement at the site line whose test is the bare read (or its `not`) is settled: the arm that
runs stays, re-indented by libcst, the other goes (an `elif` arm left becomes the `if`); a block
left empty gets `pass`. Any other read at the line becomes the literal (`x = envs.NAME` ->
`x = True`). A second run finds no read of the setting: nothing to do.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import RemoveImportsVisitor

from drift.fixes.kinds._site import ALREADY, APPLIED, SiteCodemod


def _reads(node: cst.BaseExpression, attr: str) -> bool:
    return (isinstance(node, cst.Attribute) and node.attr.value == attr) or (
        isinstance(node, cst.Name) and node.value == attr)


def _truth(test: cst.BaseExpression, attr: str, value: bool) -> bool | None:
    """What `test` is when the setting is `value`: only a bare read or its `not`."""
    if _reads(test, attr):
        return value
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and _reads(test.expression, attr):
        return not value
    return None


def _body(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    return [cst.SimpleStatementLine(body=list(block.body))] if isinstance(block, cst.SimpleStatementSuite) else []


class SettleSetting(SiteCodemod):
    DESCRIPTION = "Replace the read of a removed setting by its pinned value and keep only the arm it selects."

    def __init__(self, context: CodemodContext, *, line: int, attr: str, value: bool) -> None:
        super().__init__(context, line=line)
        self.attr, self.value = attr, bool(value)
        self._stmt: cst.CSTNode | None = None
        self._reads: set[int] = set()

    def visit_Module(self, node: cst.Module) -> None:
        ifs = self.nodes_at_line(cst.If, lambda n: _truth(n.test, self.attr, self.value) is not None)
        ifs = [n for n in ifs if self.get_metadata_position(n.test) == self.line
               and isinstance(self.parent(n), (cst.IndentedBlock, cst.Module))]
        asserts = self.nodes_at_line(cst.Assert, lambda n: _truth(n.test, self.attr, self.value) is True)
        if ifs:
            self._stmt = ifs[0]
        elif asserts:
            self._stmt = self.parent(asserts[0])  # the line holding the assert
        else:
            reads = self.nodes_at_line(cst.Attribute, lambda n: _reads(n, self.attr))
            self._reads = {id(n) for n in reads if self.get_metadata_position(n) == self.line}
        if self._stmt is None and not self._reads:
            self.record(ALREADY, f"no read of `{self.attr}` at line {self.line}")

    def get_metadata_position(self, node: cst.CSTNode) -> int | None:
        from libcst.metadata import PositionProvider
        pos = self.get_metadata(PositionProvider, node, None)
        return pos.start.line if pos is not None else None

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if id(original_node) in self._reads:
            self._forget(original_node)
            self.record(APPLIED, f"`{self.attr}` read as `{self.value}`")
            return cst.Name("True" if self.value else "False")
        return updated_node

    def _settled(self, node: cst.If) -> list[cst.BaseStatement]:
        if _truth(node.test, self.attr, self.value):
            return _body(node.body)
        rest = node.orelse
        if isinstance(rest, cst.If):
            return [rest.with_changes(leading_lines=node.leading_lines)]
        if isinstance(rest, cst.Else):
            return _body(rest.body)
        return []

    def _replace(self, original: cst.CSTNode, kept: list[cst.BaseStatement],
                 leading: object) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        block = self.parent(original)
        alone = len(getattr(block, "body", ()) or ()) == 1
        if kept:
            kept[0] = kept[0].with_changes(leading_lines=leading)  # comments above the statement stay
            return cst.FlattenSentinel(kept)
        if alone:  # the block would be empty
            return cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=leading)  # type: ignore[arg-type]
        return cst.RemovalSentinel.REMOVE

    def transform_module(self, tree: cst.Module) -> cst.Module:
        """As libcst runs it, then: an import removed from the top of the file leaves no blank
        lines where the file began."""
        out = super().transform_module(tree)
        if out.body and tree.body and out.body[0] is not tree.body[0] and not tree.body[0].leading_lines:
            first = out.body[0]
            lines = list(first.leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            out = out.with_changes(body=[first.with_changes(leading_lines=lines), *out.body[1:]])
        return out

    def _forget(self, test: cst.BaseExpression) -> None:
        """The settings module's import goes too when the settled read was its last use."""
        RemoveImportsVisitor.remove_unused_import_by_node(self.context, test)

    def leave_If(self, original_node: cst.If, updated_node: cst.If):  # type: ignore[no-untyped-def]
        if original_node is not self._stmt:
            return updated_node
        self._forget(original_node.test)
        self.record(APPLIED, f"`{self.attr}` is always {self.value}: kept only the arm that runs")
        return self._replace(original_node, self._settled(updated_node), updated_node.leading_lines)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine):  # type: ignore[no-untyped-def]
        if original_node is not self._stmt:
            return updated_node
        body = [s for s in updated_node.body if not (isinstance(s, cst.Assert)
                                                     and _truth(s.test, self.attr, self.value) is True)]
        for s in updated_node.body:
            if isinstance(s, cst.Assert) and _truth(s.test, self.attr, self.value) is True:
                self._forget(s.test)
        self.record(APPLIED, f"`{self.attr}` is always {self.value}: the assert holds")
        if body:
            return updated_node.with_changes(body=body)
        return self._replace(original_node, [], updated_node.leading_lines)
