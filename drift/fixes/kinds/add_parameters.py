"""Give a consumer's override the parameters the target now passes it, and hand them on.

Why: when vLLM adds a parameter to a method and its own callers pass it, a subclass override
(or a function patched over the method) written for the old signature raises TypeError. The edit
adds each new parameter with the target's default, where the target declares it (after the same
neighbour, so positional callers bind as before), with the target's annotation where the def
already writes that annotation on another parameter (`IS_KDA: tl.constexpr` in a triton
kernel), and, when the override forwards to the base (`super().m(...)`, `Base.m(self, ...)`, a
saved original), forwards it by keyword so the base sees the value vLLM passed. Never removes a parameter. The rule that offers it sets the tier.
Without a forward the override takes the value and ignores it; where its body reads a name the new
parameter would shadow (a module global, a closure variable), the edit is refused: it would change
what that read sees.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import (
    ALREADY,
    APPLIED,
    NOT_FOUND,
    SiteCodemod,
    callee_name,
    insert_param,
    iter_calls,
    separator_comma,
)


class _Reads(cst.CSTVisitor):
    """The bare names a function body reads (`x`, not `.x` of an attribute or `x=` of a keyword)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False


def _reads(fn: cst.FunctionDef) -> set[str]:
    v = _Reads()
    fn.body.visit(v)
    return v.names


def _names(params: cst.Parameters) -> set[str]:
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            every.append(star)
    return {p.name.value for p in every}


class AddParameters(SiteCodemod):
    DESCRIPTION = "Add `params` ([name, default source or None, the parameter it follows]) to `function`."

    def __init__(self, context: CodemodContext, *, line: int, function: str, params: list,
                 forward: str | None = None, mid_signature: bool = False) -> None:
        # mid_signature: the rule's note that a new parameter goes before existing positional
        # ones, so the baseline's positional callers would bind one slot off; the plan then
        # always puts the edit in a vLLM-version branch for a range consumer (plan._never_on_baseline)
        super().__init__(context, line=line)
        self.function = function
        self.params = [(str(p[0]), p[1], p[2]) for p in params]
        # the target's annotation of each new parameter, written only where another parameter of
        # the same def is annotated with that very text (a triton kernel's `tl.constexpr`): then
        # it resolves in the consumer's module as it does in the target's
        self.annotations = {str(p[0]): p[3] for p in params if len(p) > 3 and p[3]}
        self.forward = forward
        self._target: cst.FunctionDef | None = None

    def visit_Module(self, node: cst.Module) -> None:
        defs = self.defs_here(self.function)
        if not defs:
            return
        fn = defs[0]
        have = _names(fn.params)
        if all(name in have for name, _d, _a in self.params):
            self.record(ALREADY, f"{self.function}() already takes {', '.join(n for n, _d, _a in self.params)}")
            return
        if isinstance(fn.params.star_kwarg, cst.Param):
            self.record(ALREADY, f"{self.function}() takes **{fn.params.star_kwarg.name.value}")
            return
        if self.forward and not self._forwards(fn):
            self.record(NOT_FOUND, f"{self.function}() at line {self.line} has no call to {self.forward}()")
            return
        shadowed = sorted({n for n, _d, _a in self.params if n not in have} & _reads(fn)) if not self.forward else []
        if shadowed:
            self.record(NOT_FOUND, f"{self.function}() reads `{shadowed[0]}` from outside; a parameter of that name would shadow it")
            return
        self._target = fn

    def _forwards(self, fn: cst.FunctionDef) -> list[cst.Call]:
        return [c for c in iter_calls(fn.body) if callee_name(c.func) == self.forward]

    def _placed(self, fn: cst.FunctionDef) -> cst.Parameters | None:
        """`fn`'s parameters with each new one after its target neighbour, or None where Python
        would reject the result (a parameter without default after one with a default). The
        layout is the function's own: a list written one per line gets one more line, and a
        trailing comma stays the last parameter's."""
        params = fn.params
        plist = list(params.params)
        have = _names(params)
        sep = self._separator(fn)
        more = bool(params.kwonly_params) or isinstance(params.star_arg, (cst.Param, cst.ParamStar)) \
            or params.star_kwarg is not None
        for name, default, after in self.params:
            if name in have:
                continue
            ann = self.annotations.get(name)
            new = cst.Param(cst.Name(name), default=cst.parse_expression(default) if default is not None else None,
                            annotation=cst.Annotation(cst.parse_expression(ann))
                            if ann is not None and ann in self._annotation_texts(fn) else None,
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace(""))
                            if default is not None else cst.MaybeSentinel.DEFAULT)
            plist = insert_param(plist, new, after, sep)
            have.add(name)
        if more and plist and not isinstance(plist[-1].comma, cst.Comma):
            plist[-1] = plist[-1].with_changes(comma=sep)
        seen_default = False
        for p in [*params.posonly_params, *plist]:
            if p.default is not None:
                seen_default = True
            elif seen_default:
                return None
        return params.with_changes(params=plist)

    @staticmethod
    def _annotation_texts(fn: cst.FunctionDef) -> set[str]:
        every = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
        return {cst.Module([]).code_for_node(p.annotation.annotation) for p in every if p.annotation is not None}

    @staticmethod
    def _separator(fn: cst.FunctionDef) -> cst.Comma:
        """A comma between two parameters in the function's style, its comments left behind."""
        every = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
        for p in every[:-1]:
            if isinstance(p.comma, cst.Comma):
                ws = p.comma.whitespace_after
                if isinstance(ws, cst.ParenthesizedWhitespace):
                    ws = ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
                return cst.Comma(whitespace_after=ws)
        if isinstance(fn.whitespace_before_params, cst.ParenthesizedWhitespace):
            return cst.Comma(whitespace_after=fn.whitespace_before_params.with_changes(
                first_line=cst.TrailingWhitespace(), empty_lines=[]))
        return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if original_node is not self._target:
            return updated_node
        params = self._placed(updated_node)
        if params is None:
            self.record(NOT_FOUND, f"{self.function}(): a parameter without default cannot follow one with a default")
            return updated_node
        added = [n for n, _d, _a in self.params if n not in _names(updated_node.params)]
        node = updated_node.with_changes(params=params)
        if self.forward:
            node = node.with_changes(body=node.body.visit(_Forward(self.forward, added)))
        self.record(APPLIED, f"{self.function}() takes {', '.join(added)}"
                             + (f" and hands {'them' if len(added) > 1 else 'it'} to {self.forward}()" if self.forward else ""))
        return node


class _Forward(cst.CSTTransformer):
    """Adds `name=name` to every call of `forward` that does not pass `name` yet."""

    def __init__(self, forward: str, names: list[str]) -> None:
        super().__init__()
        self.forward, self.names = forward, names

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if callee_name(updated_node.func) != self.forward:
            return updated_node
        args = list(updated_node.args)
        given = {a.keyword.value for a in args if a.keyword is not None}
        if any(a.star == "**" for a in args):
            return updated_node  # a **kwargs forward hands on whatever the caller passed
        for name in self.names:
            if name in given:
                continue
            new = cst.Arg(cst.Name(name), keyword=cst.Name(name),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))
            if args:
                last = args[-1]
                trailing = last.comma
                args[-1] = last.with_changes(comma=separator_comma(updated_node))
                new = new.with_changes(comma=trailing if isinstance(trailing, cst.Comma) else cst.MaybeSentinel.DEFAULT)
            args.append(new)
        return updated_node.with_changes(args=args)
