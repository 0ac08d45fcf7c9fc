"""Normalise annotation source text so style migrations (`Optional[X]` -> `X | None`,
`List` -> `list`, quoting) are not reported as changes."""

from __future__ import annotations

import ast
from functools import lru_cache

_BUILTIN_ALIASES = {
    "List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set",
    "FrozenSet": "frozenset", "Type": "type", "Text": "str",
}


class _Normaliser(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str):
            try:
                inner = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return node
            return self.visit(inner)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id in ("typing", "typing_extensions", "t"):
            return self.visit_Name(ast.Name(id=node.attr, ctx=ast.Load()))
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(id=_BUILTIN_ALIASES.get(node.id, node.id), ctx=ast.Load())

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        head = node.value.id if isinstance(node.value, ast.Name) else None
        if head == "Optional":
            return _union([node.slice, ast.Constant(value=None)])
        if head == "Union":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return _union(list(items))
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.BitOr):
            return _union(_flatten(node))
        return node


def _flatten(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flatten(node.left) + _flatten(node.right)
    return [node]


def _union(items: list[ast.AST]) -> ast.AST:
    flat: list[ast.AST] = []
    for item in items:
        flat.extend(_flatten(item))
    unique = sorted({ast.unparse(i): i for i in flat}.items())
    result = unique[0][1]
    for _, item in unique[1:]:
        result = ast.BinOp(left=result, op=ast.BitOr(), right=item)
    return result


@lru_cache(maxsize=8192)
def normalise(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return " ".join(text.replace("'", '"').split())
    return ast.unparse(_Normaliser().visit(tree.body))


_FIELD_CALLS = frozenset({"Field", "field", "PrivateAttr", "dataclasses.field", "pydantic.Field"})


@lru_cache(maxsize=8192)
def field_default(text: str | None) -> str | None:
    """The effective default of a field's right-hand side: `Field(default=4, ge=0)` and
    `field(default=4)` both mean `4`; `field(default_factory=list)` means `list()`."""
    if text is None:
        return None
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return " ".join(text.split())
    if isinstance(node, ast.Call) and ast.unparse(node.func) in _FIELD_CALLS:
        for kw in node.keywords:
            if kw.arg == "default":
                return ast.unparse(kw.value)
            if kw.arg == "default_factory":
                return ast.unparse(kw.value) + "()"
        if node.args and not (isinstance(node.args[0], ast.Constant) and node.args[0].value is Ellipsis):
            return ast.unparse(node.args[0])
    return ast.unparse(node)
