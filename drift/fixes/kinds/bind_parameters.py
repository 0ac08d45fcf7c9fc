"""Take parameters the target no longer passes out of an override, and read them where the target
now keeps them.

Why: when vLLM stops passing a method's arguments one by one and hands over the object that holds
them instead (`apply(layer, x, router_logits, top_k, renormalize, ...)` became
`apply(layer, x, router_logits)`, vLLM's own methods reading `layer.top_k`), an override written
for the old call requires arguments nobody passes and raises TypeError. The edit removes those
parameters from the `def` and binds each one the body uses at the top of the body
(`top_k = layer.top_k`), so the rest of the body reads the same names. Parameters the body never
reads are only removed. The rule that offers it sets the tier. `add` ([name, the parameter it
follows]) names the one object the target now passes in their place where the override does not
take it yet (vLLM 0.13's `get_attn_backend_cls(selected_backend, attn_selector_config)`): it goes
in after that neighbour, without a default, as the target declares it; refused where the body
already reads that name from outside (the parameter would shadow it). A bound source need not read
a parameter: a literal the baseline always passed in that slot (`use_v1 = True`) is bound as is.
`unread` names parameters whose value nothing shows the new source gives (the baseline passed
them otherwise): they leave the `def` like the rest, but where the body reads one nothing is
written, so a safe edit never binds a value it has not proven.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import (
    ALREADY,
    APPLIED,
    NOT_FOUND,
    SiteCodemod,
    insert_param,
    parse_expr,
)


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


class _Reads(cst.CSTVisitor):
    """Names read anywhere in a function body (nested functions included: they close over them)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _clean(comma: cst.Comma) -> cst.Comma:
    """The same comma without the comment of the parameter it followed."""
    ws = comma.whitespace_after
    if isinstance(ws, cst.ParenthesizedWhitespace):
        ws = ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return cst.Comma(whitespace_after=ws)


def _separator(params: cst.Parameters) -> cst.Comma:
    """A comma between two parameters in the def's own style (its first one), comments left behind."""
    for p in [*params.posonly_params, *params.params, *params.kwonly_params][:-1]:
        if isinstance(p.comma, cst.Comma):
            return _clean(p.comma)
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _ordered(plist: list[cst.Param]) -> bool:
    """Whether Python takes these positional parameters: none without a default after one with."""
    seen = False
    for p in plist:
        if p.default is not None:
            seen = True
        elif seen:
            return False
    return True


class BindParameters(SiteCodemod):
    DESCRIPTION = "Remove `params` ([name, source]) from `function` and bind the used ones to their source."

    def __init__(self, context: CodemodContext, *, line: int, function: str, params: list,
                 unread: list | None = None, add: list | None = None) -> None:
        super().__init__(context, line=line)
        self.function = function
        self.params = [(str(name), str(source)) for name, source in params]
        self.unread = [str(n) for n in unread or ()]
        self.add = [(str(name), str(after) if after else None) for name, after in add or ()]
        for _name, source in self.params:
            parse_expr(source)  # a bad source is a bad argument, said before anything is touched
        self._target: cst.FunctionDef | None = None

    def visit_Module(self, node: cst.Module) -> None:
        defs = self.defs_here(self.function)
        if not defs:
            return
        fn = defs[0]
        posonly = {p.name.value for p in fn.params.posonly_params}
        if posonly & {name for name, _s in self.params}:
            self.record(NOT_FOUND, f"{self.function}(): a positional-only parameter is not removed")
            return
        have = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}
        if not have & {name for name, _s in self.params}:
            if all(name in have for name, _a in self.add):
                self.record(ALREADY, f"{self.function}() takes none of {', '.join(n for n, _s in self.params)}")
            else:
                self.record(NOT_FOUND, f"{self.function}() takes none of {', '.join(n for n, _s in self.params)} "
                                       f"but not {', '.join(n for n, _a in self.add)} either")
            return
        reads = _Reads()
        fn.body.visit(reads)
        shadowed = [n for n, _a in self.add if n not in have and n in reads.names]
        if shadowed:
            self.record(NOT_FOUND, f"{self.function}() reads `{shadowed[0]}` from outside; a parameter of that "
                                   f"name would shadow it")
            return
        read = [n for n in self.unread if n in have and n in reads.names]
        if read:
            self.record(NOT_FOUND, f"{self.function}() reads {', '.join(read)}, whose value is not shown to be "
                                   f"{' / '.join(s for n, s in self.params if n in read)}: bind it by hand")
            return
        self._target = fn

    @staticmethod
    def _without(plist: tuple[cst.Param, ...], names: set[str]) -> list[cst.Param]:
        """`plist` without `names`; the new last one keeps the old last one's comma (a trailing
        comma, the comma before `*`, or none), so the layout around it is unchanged."""
        kept = [p for p in plist if p.name.value not in names]
        if kept and plist and plist[-1].name.value in names:
            kept[-1] = kept[-1].with_changes(comma=plist[-1].comma)
        return kept

    def _added(self, plist: list[cst.Param], params: cst.Parameters) -> list[cst.Param]:
        """`plist` with each `add` parameter after its neighbour (at the end where that is gone);
        one that ends the list takes the old last one's comma, the one before it a comma in the
        def's own style."""
        was = {p.name.value: p.comma for p in params.params}
        for name, after in self.add:
            names = [p.name.value for p in plist]
            if name in names:
                continue
            new = cst.Param(cst.Name(name))
            at = names.index(after) + 1 if after in names else len(plist)
            # the comma that followed the neighbour keeps the def's line breaks where it stood
            sep = _separator(params)
            if isinstance(was.get(after or ""), cst.Comma) and at < len(params.params):
                sep = _clean(was[after or ""])  # type: ignore[arg-type]
            plist = insert_param(plist, new, after, sep)
        return plist

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if original_node is not self._target:
            return updated_node
        params = updated_node.params
        present = {p.name.value for p in (*params.params, *params.kwonly_params)}
        names = {name for name, _s in self.params if name in present}
        plist = self._without(params.params, names)
        kwonly = self._without(params.kwonly_params, names)
        star = params.star_arg
        if params.kwonly_params and not kwonly and isinstance(star, cst.ParamStar):
            star = cst.MaybeSentinel.DEFAULT  # a bare `*` needs a name after it: it goes too
            if plist:
                plist[-1] = plist[-1].with_changes(comma=params.kwonly_params[-1].comma)
        plist = self._added(plist, params)
        if self.add and not _ordered([*params.posonly_params, *plist]):
            self.record(NOT_FOUND, f"{self.function}(): a parameter without default cannot follow one with a default")
            return updated_node
        new_params = params.with_changes(params=plist, kwonly_params=kwonly, star_arg=star)
        reads = _Reads()
        updated_node.body.visit(reads)
        binds = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], parse_expr(source))])
                 for name, source in self.params if name in names and name in reads.names]
        node = updated_node.with_changes(params=new_params)
        if binds and isinstance(node.body, cst.IndentedBlock):
            body = list(node.body.body)
            at = 1 if body and _is_docstring(body[0]) else 0
            node = node.with_changes(body=node.body.with_changes(body=[*body[:at], *binds, *body[at:]]))
        elif binds:  # `def f(a, b): return b` on one line: give it a block
            stmts = list(node.body.body)
            node = node.with_changes(body=cst.IndentedBlock(body=[*binds, cst.SimpleStatementLine(stmts)]))
        removed = [name for name, _s in self.params if name in names]
        added = [name for name, _a in self.add if name not in present]
        self.record(APPLIED, f"{self.function}() no longer takes {', '.join(removed)}"
                             + (f"; takes {', '.join(added)}" if added else "")
                             + (f"; reads {', '.join(f'{n} = {s}' for n, s in self.params if n in names and n in reads.names)}"
                                if binds else ""))
        return node
