"""Call the sibling method when a method became two-phase (returns None, result via sibling).

vLLM's `execute_model()` now returns None and hands its result to `sample_tokens()`: a caller
that only calls `execute_model()` leaves the executor waiting for the second phase.
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod, iter_calls, parse_expr


def _method_call(expr: cst.BaseExpression | None, method: str) -> cst.Call | None:
    if isinstance(expr, cst.Await):
        expr = expr.expression
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == method:
        return expr
    return None


def _calls_method(node: cst.CSTNode, method: str) -> bool:
    return any(_method_call(c, method) is not None for c in iter_calls(node))


class AddSecondPhase(SiteCodemod):
    DESCRIPTION = "After `<recv>.method(...)` returns None, call `<recv>.sibling(...)` for the result."

    def __init__(
        self,
        context: CodemodContext,
        *,
        line: int,
        method: str = "execute_model",
        sibling: str = "sample_tokens",
        sibling_args: Sequence[str] = ("None",),
    ) -> None:
        super().__init__(context, line=line)
        self.method = method
        self.sibling = sibling
        self.sibling_args = [parse_expr(a) for a in sibling_args]
        self._target: cst.SimpleStatementLine | None = None

    def _stmt_call(self, stmt: cst.SimpleStatementLine) -> cst.Call | None:
        if len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        if isinstance(small, cst.Expr):
            return _method_call(small.value, self.method)
        if isinstance(small, (cst.Assign, cst.AnnAssign)):
            return _method_call(small.value, self.method)
        return None

    def _already(self) -> bool:
        # Expression form, rewritten: `if <recv>.method(...) is None:` with the sibling in the body.
        for node in self.nodes_at_line(cst.If, lambda n: _calls_method(n.test, self.method)):
            if _calls_method(node.body, self.sibling):
                return True
        # Assignment form, rewritten: the next statement calls the sibling.
        for stmt in self.nodes_at_line(cst.SimpleStatementLine, lambda s: self._stmt_call(s) is not None):
            parent = self.parent(stmt)
            body = getattr(parent, "body", None)
            if isinstance(body, (list, tuple)) and stmt in body:
                i = body.index(stmt)
                if i + 1 < len(body) and _calls_method(body[i + 1], self.sibling):
                    return True
        return False

    def _enclosing_def(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        cur = self.parent(node)
        while cur is not None and not isinstance(cur, cst.FunctionDef):
            cur = self.parent(cur)
        return cur

    def visit_Module(self, node: cst.Module) -> None:
        if self._already():
            self.record(ALREADY, f".{self.sibling}() already follows .{self.method}() at line {self.line}")
            return
        stmts = self.nodes_at_line(cst.SimpleStatementLine, lambda s: self._stmt_call(s) is not None)
        if not stmts:
            self.record(NOT_FOUND, f"no statement calling .{self.method}() at line {self.line}")
            return
        owner = self._enclosing_def(stmts[0])
        if owner is not None and owner.name.value == self.method:
            # the engine calls this override and then .sibling() itself with the real arguments
            self.record(NOT_FOUND, f"line {self.line} is inside the consumer's own {self.method}() override: "
                                   f"calling .{self.sibling}() there would pre-empt the engine's call")
            return
        small = stmts[0].body[0]
        if isinstance(small, cst.Assign) and len(small.targets) != 1:
            self.record(NOT_FOUND, f"chained assignment at line {self.line}: rewrite by hand")
            return
        self._target = stmts[0]

    def _sibling_call(self, call: cst.Call, *, awaited: bool) -> cst.BaseExpression:
        recv = call.func.value  # type: ignore[attr-defined]
        args = [cst.Arg(value=a) for a in self.sibling_args]
        out: cst.BaseExpression = cst.Call(func=cst.Attribute(value=recv.deep_clone(), attr=cst.Name(self.sibling)), args=args)
        return cst.Await(expression=out) if awaited else out

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if original_node is not self._target:
            return updated_node
        small = updated_node.body[0]
        assert isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign))  # chosen in visit_Module
        value = small.value
        assert value is not None
        call = _method_call(value, self.method)
        assert call is not None  # guaranteed by visit_Module's choice of target
        sibling = self._sibling_call(call, awaited=isinstance(value, cst.Await))
        is_none = lambda expr: cst.Comparison(  # noqa: E731
            left=expr, comparisons=[cst.ComparisonTarget(operator=cst.Is(), comparator=cst.Name("None"))]
        )
        self.record(APPLIED, f"added .{self.sibling}() after .{self.method}()")
        if isinstance(small, cst.Expr):
            return cst.If(
                test=is_none(value),
                body=cst.IndentedBlock(
                    body=[cst.SimpleStatementLine(body=[cst.Expr(sibling)])],
                    header=updated_node.trailing_whitespace,
                ),
                leading_lines=updated_node.leading_lines,
            )
        target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
        follow = cst.If(
            test=is_none(target.deep_clone()),
            body=cst.IndentedBlock(
                body=[
                    cst.SimpleStatementLine(
                        body=[cst.Assign(targets=[cst.AssignTarget(target=target.deep_clone())], value=sibling)]
                    )
                ]
            ),
        )
        return cst.FlattenSentinel([updated_node, follow])
