"""Remove a keyword argument the target no longer accepts (TypeError: unexpected keyword).

With `add` (keyword -> source), the keywords the target's own rewrite of the same call passes in
its place are written where the dropped one stood, unless the call passes them already
(drift/analysis/rules/own_rewrites.py); `migration` names that rewrite and `unread_in` the
baseline's callable that took the keyword and never read it (fix_tiers.noop_in_baseline); neither
changes anything here: both tell the plan the judgement holds on the baseline only, so a range
consumer gets the drop in a vLLM-version branch (drift.fixes.plan._never_on_baseline)."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, SiteCodemod, has_keyword, parse_expr, relayout_comma


class DropKeyword(SiteCodemod):
    DESCRIPTION = "Remove `keyword=` from the call to `callee` at the site line."

    def __init__(self, context: CodemodContext, *, line: int, callee: str, keyword: str,
                 add: dict[str, str] | None = None, migration: str | None = None,
                 unread_in: str | None = None) -> None:
        super().__init__(context, line=line)
        self.callee = callee
        self.keyword = keyword
        self.add = dict(add or {})
        self._target: cst.Call | None = None

    def visit_Module(self, node: cst.Module) -> None:
        calls = self.calls_here(self.callee)
        if not calls:
            return
        with_kw = [c for c in calls if has_keyword(c, self.keyword)]
        if not with_kw:
            self.record(ALREADY, f"{self.callee}() at line {self.line} no longer passes {self.keyword}=")
            return
        self._target = with_kw[0]

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node is not self._target:
            return updated_node
        args = list(updated_node.args)
        idx = next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == self.keyword)
        missing = [k for k in self.add if not has_keyword(updated_node, k)]
        if missing:  # the target's own rewrite: its keyword takes the dropped one's place
            first = args[idx]
            comma = first.comma if isinstance(first.comma, cst.Comma) else cst.Comma(
                whitespace_after=cst.SimpleWhitespace(" "))
            args[idx:idx + 1] = [first.with_changes(keyword=cst.Name(k), value=parse_expr(self.add[k]),
                                                    **({} if i == len(missing) - 1 else {"comma": comma}))
                                 for i, k in enumerate(missing)]
            self.record(APPLIED, f"replaced {self.keyword}= by {', '.join(k + '=' for k in missing)} in {self.callee}()")
            return updated_node.with_changes(args=args)
        removed = args.pop(idx)
        if idx == len(args) and idx > 0:
            # The removed argument was last: its comma (trailing or none) now ends the call.
            # Keep the previous argument's own comment, lose the removed one's.
            prev = args[idx - 1]
            if isinstance(removed.comma, cst.Comma):
                args[idx - 1] = prev.with_changes(comma=relayout_comma(prev.comma, removed.comma))
            else:
                args[idx - 1] = prev.with_changes(
                    comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=removed.whitespace_after_arg
                )
        self.record(APPLIED, f"removed {self.keyword}= from {self.callee}()")
        if not args:
            return updated_node.with_changes(args=(), whitespace_before_args=cst.SimpleWhitespace(""))
        return updated_node.with_changes(args=args)
