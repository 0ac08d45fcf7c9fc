"""Wrap the lines a fix made longer than the consumer's line length, as ruff format would.

Only lines the fix wrote are touched (a line already too long in the original is the
consumer's own). Two layouts, both stable under `ruff format` and black:
- a `def` whose parameters sit on one line gets one parameter per line, the same way;
- a dict, list or set literal on one line gets one element per line, the same way;
- a call on one line is split one argument per line with a trailing comma (the outermost call
  that starts on the line first, so the magic trailing comma keeps it that way);
- an argument that is a chain of `*`, `+`, `and` ... inside an already-split call breaks
  before each operator, at the argument's own indentation;
- a `from x import a, b` gets its names in parentheses, one per line with a trailing comma;
- a `class C(Base):` header gets its bases on their own indented line (one base per line with a
  trailing comma when they are several).
Anything else stays long rather than being guessed at.
"""

from __future__ import annotations

from typing import cast

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider


def _newline(indent: int) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True,
        last_line=cst.SimpleWhitespace(" " * indent),
    )


def _split_call(call: cst.Call, extra: int) -> cst.Call:
    """One argument per line at `extra + 4` columns past the statement, `)` at `extra`."""
    args = list(call.args)
    out = []
    for arg in args:
        out.append(arg.with_changes(
            comma=cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=_newline(extra + 4)),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        ))
    out[-1] = out[-1].with_changes(comma=cst.Comma(whitespace_before=cst.SimpleWhitespace(""),
                                                   whitespace_after=_newline(extra)))
    return call.with_changes(args=out, whitespace_before_args=_newline(extra + 4))


def _split_collection(node: cst.Dict | cst.List | cst.Set, extra: int) -> cst.BaseExpression:
    """`{a: 1, b: 2}` / `[a, b]` -> one element per line with a trailing comma, as ruff format does."""
    elements = list(node.elements)
    out = []
    for n, element in enumerate(elements):
        last = n == len(elements) - 1
        out.append(element.with_changes(comma=cst.Comma(whitespace_before=cst.SimpleWhitespace(""),
                                                        whitespace_after=_newline(extra if last else extra + 4))))
    if isinstance(node, cst.List):
        opening = node.lbracket.with_changes(whitespace_after=_newline(extra + 4))
        return node.with_changes(elements=out, lbracket=opening,
                                 rbracket=node.rbracket.with_changes(whitespace_before=cst.SimpleWhitespace("")))
    opening = node.lbrace.with_changes(whitespace_after=_newline(extra + 4))
    return node.with_changes(elements=out, lbrace=opening,
                             rbrace=node.rbrace.with_changes(whitespace_before=cst.SimpleWhitespace("")))


def _split_operators(expr: cst.BaseExpression, extra: int) -> cst.BaseExpression:
    """`a * b * c` -> `a\\n* b\\n* c`, each operator starting a line at `extra` columns."""
    if isinstance(expr, cst.BinaryOperation):
        op = expr.operator.with_changes(whitespace_before=_newline(extra),
                                        whitespace_after=cst.SimpleWhitespace(" "))
        return expr.with_changes(left=_split_operators(expr.left, extra), operator=op)
    if isinstance(expr, cst.BooleanOperation):
        op = expr.operator.with_changes(whitespace_before=_newline(extra),
                                        whitespace_after=cst.SimpleWhitespace(" "))
        return expr.with_changes(left=_split_operators(expr.left, extra), operator=op)
    return expr


def _split_params(fn: cst.FunctionDef, extra: int) -> cst.FunctionDef:
    """`def f(a, b) -> T:` -> one parameter per line with a trailing comma, `)` at `extra`."""
    p = fn.params
    slots = ["posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"]
    items: list[tuple[str, int | None, cst.CSTNode]] = []
    for slot in slots:
        value = getattr(p, slot)
        if isinstance(value, (list, tuple)):
            items.extend((slot, i, node) for i, node in enumerate(value))
        elif isinstance(value, (cst.Param, cst.ParamStar, cst.ParamSlash)):
            items.append((slot, None, value))
    if not items:
        return fn
    changes: dict[str, object] = {slot: list(getattr(p, slot)) if isinstance(getattr(p, slot), (list, tuple))
                                  else getattr(p, slot) for slot in slots}
    for n, (slot, i, node) in enumerate(items):
        last = n == len(items) - 1
        comma = cst.Comma(whitespace_before=cst.SimpleWhitespace(""),
                          whitespace_after=_newline(extra if last else extra + 4))
        new = node.with_changes(comma=comma)
        if isinstance(new, cst.Param):
            new = new.with_changes(whitespace_after_param=cst.SimpleWhitespace(""))
        if i is None:
            changes[slot] = new
        else:
            changes[slot][i] = new  # type: ignore[index]
    return fn.with_changes(params=p.with_changes(**changes), whitespace_before_params=_newline(extra + 4))


def _split_import(node: cst.ImportFrom, extra: int) -> cst.ImportFrom:
    """`from x import a, b` -> `from x import (` / one name per line with a trailing comma / `)`."""
    names = list(node.names)  # type: ignore[arg-type]
    out = [alias.with_changes(comma=cst.Comma(whitespace_after=_newline(extra if n == len(names) - 1 else extra + 4)))
           for n, alias in enumerate(names)]
    return node.with_changes(names=out, lpar=cst.LeftParen(whitespace_after=_newline(extra + 4)),
                             rpar=cst.RightParen())


def _split_bases(cls: cst.ClassDef, extra: int) -> cst.ClassDef:
    """`class C(A):` -> `class C(` / `    A` / `):`; several bases one per line with a trailing comma."""
    bases = list(cls.bases)
    if len(bases) == 1:
        out = [bases[0].with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_newline(extra))]
    else:
        out = [base.with_changes(comma=cst.Comma(whitespace_after=_newline(extra if n == len(bases) - 1 else extra + 4)))
               for n, base in enumerate(bases)]
    return cls.with_changes(bases=out, lpar=cst.LeftParen(whitespace_after=_newline(extra + 4)))


class _Wrapper(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, line: int, line_indent: int) -> None:
        super().__init__()
        self.line = line
        self.line_indent = line_indent
        self.target: cst.CSTNode | None = None
        self.how = ""
        self.stmt_indent = 0

    def _pos(self, node: cst.CSTNode) -> CodeRange:
        return cast(CodeRange, self.get_metadata(PositionProvider, node))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and self.target is None:
            pos = self._pos(node)
            if pos.start.line <= self.line <= pos.end.line:
                self.stmt_indent = pos.start.column  # the innermost statement's indentation wins
        return super().on_visit(node)

    def visit_Call(self, node: cst.Call) -> None:
        if self.target is not None or not node.args:
            return
        pos = self._pos(node)
        if pos.start.line == pos.end.line == self.line:
            self.target, self.how = node, "call"

    def _collection(self, node: cst.Dict | cst.List | cst.Set) -> None:
        if self.target is not None or not node.elements:
            return
        pos = self._pos(node)
        if pos.start.line == pos.end.line == self.line:
            self.target, self.how = node, "collection"

    def visit_Dict(self, node: cst.Dict) -> None:
        self._collection(node)

    def visit_List(self, node: cst.List) -> None:
        self._collection(node)

    def visit_Set(self, node: cst.Set) -> None:
        self._collection(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[no-untyped-def]
        if original_node is self.target and self.how == "collection":
            return _split_collection(updated_node, self.line_indent - self.stmt_indent)  # type: ignore[arg-type]
        return super().on_leave(original_node, updated_node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.target is not None:
            return
        pos = self._pos(node.params)
        header = self._pos(node.name)
        if header.start.line == pos.start.line == pos.end.line == self.line:
            self.target, self.how = node, "params"

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if original_node is self.target:
            return _split_params(updated_node, self.line_indent - self.stmt_indent)
        return updated_node

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if self.target is not None or isinstance(node.names, cst.ImportStar) or node.lpar is not None:
            return
        pos = self._pos(node)
        if pos.start.line == pos.end.line == self.line:
            self.target, self.how = node, "import"

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        if original_node is self.target:
            return _split_import(updated_node, self.line_indent - self.stmt_indent)
        return updated_node

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self.target is not None or not node.bases or node.keywords or node.lpar is cst.MaybeSentinel.DEFAULT:
            return
        header, last = self._pos(node.name), self._pos(node.bases[-1])
        if header.start.line == last.end.line == self.line:
            self.target, self.how = node, "bases"

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        if original_node is self.target:
            return _split_bases(updated_node, self.line_indent - self.stmt_indent)
        return updated_node

    def visit_Arg(self, node: cst.Arg) -> None:
        if self.target is not None:
            return
        pos = self._pos(node)
        if pos.start.line == pos.end.line == self.line and isinstance(
                node.value, (cst.BinaryOperation, cst.BooleanOperation)):
            self.target, self.how = node, "operators"

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node is self.target:
            return _split_call(updated_node, self.line_indent - self.stmt_indent)
        return updated_node

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        if original_node is self.target:
            return updated_node.with_changes(
                value=_split_operators(updated_node.value, self.line_indent - self.stmt_indent))
        return updated_node


def wrap_long_lines(before: str, after: str, *, line_length: int) -> str:
    """`after` with each line longer than `line_length` that `before` did not have wrapped."""
    own = {line for line in before.splitlines() if len(line) > line_length}
    tried: set[str] = set()
    for _ in range(50):  # each round wraps one line; the bound only guards against a loop
        lines = after.splitlines()
        long = next((n for n, text in enumerate(lines, 1)
                     if len(text) > line_length and text not in own and text not in tried), None)
        if long is None:
            return after
        text = lines[long - 1]
        tried.add(text)
        try:
            wrapper = MetadataWrapper(cst.parse_module(after))
        except cst.ParserSyntaxError:
            return after
        visitor = _Wrapper(long, len(text) - len(text.lstrip(" ")))
        new = wrapper.visit(visitor)
        if visitor.target is not None:
            after = new.code
    return after
