"""Shared machinery for codemods that rewrite one consumer site (a call or statement at a line).

A finding names a file and a line; the codemod must find *the* node there, or report plainly
that it could not. Each codemod records an `Outcome` instead of raising, so `apply_fixes` can
tell "applied", "already applied" (idempotence) and "site not found" apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, TypeVar, cast

import libcst as cst
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.metadata import CodeRange, ParentNodeProvider, PositionProvider

N = TypeVar("N", bound=cst.CSTNode)

APPLIED = "applied"
ALREADY = "already"
NOT_FOUND = "not_found"


@dataclass(frozen=True)
class Outcome:
    status: str  # APPLIED | ALREADY | NOT_FOUND
    reason: str = ""


def callee_name(func: cst.BaseExpression) -> str | None:
    """Last dotted name of a callee as written: `a.b.c(` -> "c", `f(` -> "f"."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def parse_expr(source: str) -> cst.BaseExpression:
    return cst.parse_expression(source)


class SiteCodemod(VisitorBasedCodemodCommand):
    """Base: holds the site line, picks the target node in a pre-pass, records an Outcome."""

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider)

    def __init__(self, context: CodemodContext, *, line: int) -> None:
        super().__init__(context)
        self.line = int(line)
        self.outcome = Outcome(NOT_FOUND, f"nothing to rewrite at line {self.line}")

    # -- helpers for subclasses -------------------------------------------------------------
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.get_metadata(ParentNodeProvider, node, None)

    def nodes_at_line(self, kind: type[N], accept: Callable[[N], bool]) -> list[N]:
        """Nodes of `kind` whose span covers the site line and that `accept`, best first.

        Best = starts on the line, leftmost first (the call a rule records by its line); then
        nodes that merely span the line, innermost first.
        """
        found: list[tuple[tuple[int, int, int], N]] = []
        for node, pos in self.metadata[PositionProvider].items():
            if not isinstance(node, kind):
                continue
            rng = cast(CodeRange, pos)
            if not (rng.start.line <= self.line <= rng.end.line):
                continue
            if not accept(node):
                continue
            if rng.start.line == self.line:
                found.append(((0, rng.start.column, 0), node))
            else:
                found.append(((1, rng.end.line - rng.start.line, rng.end.column - rng.start.column), node))
        found.sort(key=lambda pair: pair[0])
        return [node for _, node in found]

    def calls_at_line(self, callee: str) -> list[cst.Call]:
        return self.nodes_at_line(cst.Call, lambda c: callee_name(c.func) == callee)

    def calls_here(self, callee: str) -> list[cst.Call]:
        """`calls_at_line`, recording NOT_FOUND when there is none: the caller just stops. A call
        through a local name the function binds more than once (`attn_cls = Mine` in one branch,
        `= Attention` in the other) or takes as a parameter is refused: drift's evidence is about
        one callable, and the edit would reach every other one the name may hold."""
        calls = self.calls_at_line(callee)
        shared = [c for c in calls if self._rebound(c)]
        calls = [c for c in calls if c not in shared]
        if shared and not calls:
            self.record(NOT_FOUND, f"`{callee}` at line {self.line} is a local the function binds more than once "
                                   "or takes as a parameter: the edit would change the call of every callable it may name")
        elif not calls:
            self.record(NOT_FOUND, f"no call to {callee}() at line {self.line}")
        return calls

    def _rebound(self, call: cst.Call) -> bool:
        """Whether `call`'s callee is a bare name its enclosing function binds twice or more, or
        receives as a parameter (module-level names, an import fallback among them, are not asked)."""
        if not isinstance(call.func, cst.Name):
            return False
        name = call.func.value
        fn = self.parent(call)
        while fn is not None and not isinstance(fn, cst.FunctionDef):
            fn = self.parent(fn)
        if fn is None:
            return False
        params = fn.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params,
                 *(p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param))]
        if any(p.name.value == name for p in every):
            return True
        counter = _Bindings(name)
        fn.body.visit(counter)
        return counter.count > 1

    def defs_here(self, function: str) -> list[cst.FunctionDef]:
        """The `def function` spanning the site line, best first; NOT_FOUND recorded when none."""
        defs = self.nodes_at_line(cst.FunctionDef, lambda d: d.name.value == function)
        if not defs:
            self.record(NOT_FOUND, f"no def {function}() at line {self.line}")
        return defs

    def record(self, status: str, reason: str = "") -> None:
        self.outcome = Outcome(status, reason)


def has_keyword(call: cst.Call, keyword: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == keyword for a in call.args)


def clean_comma(comma: cst.Comma) -> cst.Comma:
    """The same comma without the comments that belong to the argument it followed."""
    ws = comma.whitespace_after
    if isinstance(ws, cst.ParenthesizedWhitespace):
        ws = ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
        return comma.with_changes(whitespace_after=ws)
    return comma


def relayout_comma(own, layout):  # type: ignore[no-untyped-def]
    """Keep `own`'s comments but take `layout`'s line break and indentation (what follows)."""
    if not isinstance(layout, cst.Comma):
        return layout
    if not isinstance(own, cst.Comma):
        return clean_comma(layout)
    own_ws, lay_ws = own.whitespace_after, layout.whitespace_after
    if isinstance(own_ws, cst.ParenthesizedWhitespace) and isinstance(lay_ws, cst.ParenthesizedWhitespace):
        return own.with_changes(whitespace_after=own_ws.with_changes(indent=lay_ws.indent, last_line=lay_ws.last_line))
    return clean_comma(layout)


def separator_comma(call: cst.Call) -> cst.Comma:
    """A comma in the call's own style, to put between two arguments."""
    args = call.args
    for arg in args[:-1]:
        if isinstance(arg.comma, cst.Comma):
            return clean_comma(arg.comma)
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return cst.Comma(whitespace_after=call.whitespace_before_args)
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def insert_param(plist: list[cst.Param], new: cst.Param, after: str | None, sep: cst.Comma) -> list[cst.Param]:
    """`plist` with `new` after the parameter named `after` (at the end where there is none). A
    new last parameter takes the old last one's comma (trailing or none) and the old last one gets
    `sep`; one placed inside the list gets `sep`. One place for it, so every kind that grows a
    signature keeps the def's layout the same way."""
    names = [p.name.value for p in plist]
    at = names.index(after) + 1 if after in names else len(plist)
    out = list(plist)
    if at == len(out) and out:
        last = out[-1]
        new = new.with_changes(comma=last.comma, whitespace_after_param=last.whitespace_after_param)
        out[-1] = last.with_changes(comma=sep, whitespace_after_param=cst.SimpleWhitespace(""))
    else:
        new = new.with_changes(comma=sep)
    out.insert(at, new)
    return out


def iter_calls(node: cst.CSTNode) -> Iterable[cst.Call]:
    """Every Call inside `node` (including itself), without metadata."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Call):
            yield cur
        stack.extend(cur.children)


class _Bindings(cst.CSTVisitor):
    """How many times a function body binds `name` (assignments, `for`/`with` targets, imports),
    nested functions and classes left out: they bind their own."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.count = name, 0

    def _target(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name) and node.value == self.name:
            self.count += 1
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self._target(el.value)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None and isinstance(node.name, cst.Name) and node.name.value == self.name:
            self.count += 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node.name.value == self.name:
            self.count += 1
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if node.name.value == self.name:
            self.count += 1
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False
