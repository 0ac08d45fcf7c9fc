"""Pass a keyword the target now requires, optionally with the imports and a helper it needs.

The new argument goes before any `**kwargs` and copies the call's own comma style, so a call
laid out one argument per line with a trailing comma stays that way.

With `init_attr`, a value that is built once per object (vLLM's EngineCore builds its request
block hasher once, in `__init__`) is built where the project would build it: when the call sits
in a method of a class whose `__init__` sets every `self.x` the value reads, `__init__` ends with
`self.<init_attr> = <value>` and the call passes `self.<init_attr>`; `init_helper_src` is then
the helper (no cache of its own needed). Elsewhere the value is passed as given, with `helper_src`.
"""

from __future__ import annotations

from typing import Sequence, Union

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from drift.fixes.kinds._site import (
    ALREADY,
    APPLIED,
    SiteCodemod,
    clean_comma,
    has_keyword,
    parse_expr,
    relayout_comma,
    separator_comma,
)


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def helper_insert_index(body: Sequence[cst.BaseStatement]) -> int:
    """Index just after the leading import block (the same block libcst adds imports to)."""
    start = 1 if body and _is_docstring(body[0]) else 0
    index = start
    for i, stmt in enumerate(body[start:], start):
        if not _is_import(stmt):
            break
        index = i + 1
    return index


Stmt = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]


def _with_blank_lines(stmt: Stmt, count: int) -> Stmt:
    lines = list(stmt.leading_lines)
    blanks = 0
    for line in lines:
        if line.comment is not None:
            break
        blanks += 1
    if blanks < count:
        lines = [cst.EmptyLine()] * (count - blanks) + lines
    return stmt.with_changes(leading_lines=lines)


def _dotted(node: cst.BaseExpression | None) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _self_attrs(node: cst.CSTNode) -> set[str]:
    """`x` for every `self.x` read in `node`."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Attribute) and isinstance(cur.value, cst.Name) and cur.value.value == "self":
            found.add(cur.attr.value)
        stack.extend(cur.children)
    return found


def _free_names(node: cst.CSTNode) -> set[str]:
    """The bare names `node` reads (attribute names after a dot are not names)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Name):
            found.add(cur.value)
        elif isinstance(cur, cst.Attribute):
            stack.append(cur.value)
            continue
        elif isinstance(cur, cst.Arg):
            stack.append(cur.value)
            continue
        stack.extend(cur.children)
    return found


def _assigned_self_attrs(fn: cst.FunctionDef) -> set[str]:
    """`x` for every `self.x = ...` at the top level of `fn`'s body."""
    found: set[str] = set()
    for stmt in getattr(fn.body, "body", ()):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                [small.target] if isinstance(small, cst.AnnAssign) else []
            for t in targets:
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                    found.add(t.attr.value)
    return found


def merge_into_parenthesized_import(module: cst.Module, *, source: str, name: str) -> cst.Module:
    """Append `name` to an existing multi-line `from source import (...)`, in its own style.

    AddImportsVisitor would merge it too, but squeezed onto the first line of the block; doing
    it here first keeps the one-name-per-line layout, and AddImportsVisitor then sees it done.
    """
    body = list(module.body)
    for i, stmt in enumerate(body):
        if not (_is_import(stmt) and isinstance(stmt, cst.SimpleStatementLine)):
            continue
        imp = stmt.body[0]
        if not (isinstance(imp, cst.ImportFrom) and not imp.relative and _dotted(imp.module) == source):
            continue
        if isinstance(imp.names, cst.ImportStar) or imp.lpar is None:
            continue
        names = list(imp.names)
        if any(_dotted(a.name) == name for a in names):
            return module
        if not isinstance(imp.lpar.whitespace_after, cst.ParenthesizedWhitespace):
            continue
        sep = next((a.comma for a in names[:-1] if isinstance(a.comma, cst.Comma)), None)
        sep = clean_comma(sep) if sep else cst.Comma(whitespace_after=imp.lpar.whitespace_after)
        last = names[-1].comma
        new = cst.ImportAlias(name=cst.Name(name), comma=clean_comma(last) if isinstance(last, cst.Comma) else last)
        names[-1] = names[-1].with_changes(comma=relayout_comma(last, sep))
        names.append(new)
        body[i] = stmt.with_changes(body=[imp.with_changes(names=names)])
        return module.with_changes(body=body)
    return module


def add_helper(module: cst.Module, *, name: str, source: str) -> cst.Module:
    """Insert a module-level helper after the imports, once (idempotent by name)."""
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and stmt.name.value == name:
            return module
    new = list(cst.parse_module(source.strip() + "\n").body)
    if not new:
        return module
    body = list(module.body)
    at = helper_insert_index(body)
    new[0] = new[0].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()] if at else [])
    if at < len(body):
        body[at] = _with_blank_lines(body[at], 2)
    body[at:at] = new
    return module.with_changes(body=body)


class AddKeyword(SiteCodemod):
    DESCRIPTION = "Add `keyword=value` to the call to `callee` at the site line."

    def __init__(
        self,
        context: CodemodContext,
        *,
        line: int,
        callee: str,
        keyword: str,
        value: str,
        imports: Sequence[Sequence[str]] = (),
        helper_name: str | None = None,
        helper_src: str | None = None,
        init_attr: str | None = None,
        init_helper_src: str | None = None,
    ) -> None:
        super().__init__(context, line=line)
        self.callee = callee
        self.keyword = keyword
        self.value = parse_expr(value)  # fail early, before touching anything
        self.imports = [tuple(item) for item in imports]
        self.helper_name = helper_name
        self.helper_src = helper_src
        if (helper_name is None) != (helper_src is None):
            raise ValueError("helper_name and helper_src go together")
        self.init_attr = init_attr
        self.init_helper_src = init_helper_src
        self._target: cst.Call | None = None
        self._init: cst.FunctionDef | None = None  # the __init__ that builds the value once

    def visit_Module(self, node: cst.Module) -> None:
        calls = self.calls_here(self.callee)
        if not calls:
            return
        if has_keyword(calls[0], self.keyword):
            self.record(ALREADY, f"{self.callee}() at line {self.line} already passes {self.keyword}=")
            return
        self._target = calls[0]
        if self.init_attr:
            self._init = self._owning_init(calls[0])

    def _owning_init(self, call: cst.Call) -> cst.FunctionDef | None:
        """The `__init__` of the class whose method holds `call`, if it sets what the value reads."""
        node: cst.CSTNode | None = call
        method = None
        while node is not None:
            node = self.parent(node)
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                method = node
                break
        if not isinstance(method, cst.FunctionDef) or method.name.value == "__init__":
            return None
        block = self.parent(method)
        cls = self.parent(block) if block is not None else None
        if not isinstance(cls, cst.ClassDef):
            return None
        params = method.params.params
        if not params or params[0].name.value != "self":
            return None
        init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
                    None)
        if init is None or not init.params.params or init.params.params[0].name.value != "self":
            return None
        needed = _self_attrs(self.value)
        allowed = {"self", self.helper_name} | {item[2] if len(item) > 2 else item[1] for item in self.imports
                                                if len(item) > 1}
        if not needed or not _free_names(self.value) <= allowed:
            return None
        if not needed <= _assigned_self_attrs(init):
            return None
        return init

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if original_node is not self._init or self._target is None or self.init_attr is None:
            return updated_node
        if self.init_attr in _assigned_self_attrs(original_node):
            return updated_node
        body = list(updated_node.body.body)  # type: ignore[union-attr]
        assign = cst.parse_statement(f"self.{self.init_attr} = {cst.Module([]).code_for_node(self.value)}\n")
        at = len(body) - 1 if body and isinstance(body[-1], cst.SimpleStatementLine) and any(
            isinstance(s, cst.Return) for s in body[-1].body) else len(body)
        body.insert(at, assign)
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node is not self._target:
            return updated_node
        args = list(updated_node.args)
        value = self.value
        if self._init is not None and self.init_attr:
            value = cst.Attribute(value=cst.Name("self"), attr=cst.Name(self.init_attr))
        new_arg = cst.Arg(
            keyword=cst.Name(self.keyword),
            value=value,
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
            ),
        )
        at = next((i for i, a in enumerate(args) if a.star == "**"), len(args))
        if at == len(args):
            if args:
                # The new argument ends the call and inherits the old last comma (trailing or none).
                last, sep = args[-1], separator_comma(updated_node)
                ws = last.whitespace_after_arg
                if isinstance(last.comma, cst.Comma):
                    new_arg = new_arg.with_changes(comma=clean_comma(last.comma))
                    args[-1] = last.with_changes(comma=relayout_comma(last.comma, sep))
                elif isinstance(ws, cst.ParenthesizedWhitespace):
                    # `a  # note\n)`: the break before `)` belongs to the last argument; hand
                    # it to the new one and keep the note after the new comma.
                    new_arg = new_arg.with_changes(
                        whitespace_after_arg=ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
                    )
                    args[-1] = last.with_changes(
                        whitespace_after_arg=cst.SimpleWhitespace(""),
                        comma=relayout_comma(cst.Comma(whitespace_after=ws), sep),
                    )
                else:
                    args[-1] = last.with_changes(comma=sep)
        else:
            comma = args[at - 1].comma if at > 0 else cst.MaybeSentinel.DEFAULT
            new_arg = new_arg.with_changes(
                comma=comma if isinstance(comma, cst.Comma) else separator_comma(updated_node)
            )
        args.insert(at, new_arg)
        self.record(APPLIED, f"passed {self.keyword}= to {self.callee}()")
        return updated_node.with_changes(args=args)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self.outcome.status != APPLIED:
            return updated_node
        for item in self.imports:
            module, name = item[0], (item[1] if len(item) > 1 else None)
            asname = item[2] if len(item) > 2 else None
            if name is not None and asname is None:
                updated_node = merge_into_parenthesized_import(updated_node, source=module, name=name)
            AddImportsVisitor.add_needed_import(self.context, module, name, asname)
        helper = self.init_helper_src if self._init is not None and self.init_helper_src else self.helper_src
        if self.helper_name and helper:
            updated_node = add_helper(updated_node, name=self.helper_name, source=helper)
        return updated_node
