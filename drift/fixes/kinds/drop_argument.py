"""Remove a positional argument whose parameter the target's callable no longer has.

Why: when vLLM deletes a parameter from the middle of a signature (`init_app_state(engine_client,
vllm_config, state, args)` became `init_app_state(engine_client, state, args)`, the function now
reads the config from the client), a call written for the old signature passes one positional
argument too many, and the ones after it bind to the wrong parameters. Dropping the argument at
the removed parameter's position lines the rest up with the target's names again. The call must
still pass `count` positional arguments, as the finding saw it: a call that already passes fewer
was edited (or fixed) already, so a second run changes nothing. The rule sets the tier.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod, relayout_comma


def _positional(call: cst.Call) -> list[int]:
    """Indexes (in `call.args`) of the plain positional arguments, in order."""
    return [i for i, a in enumerate(call.args) if a.keyword is None and not a.star]


class DropArgument(SiteCodemod):
    DESCRIPTION = "Remove the positional arguments at `positions` from the call to `callee` that passes `count`."

    def __init__(self, context: CodemodContext, *, line: int, callee: str, positions: list, count: int) -> None:
        super().__init__(context, line=line)
        self.callee = callee
        self.positions = sorted({int(p) for p in positions})
        self.count = int(count)
        self._target: cst.Call | None = None

    def visit_Module(self, node: cst.Module) -> None:
        calls = self.calls_here(self.callee)
        if not calls:
            return
        exact = [c for c in calls if len(_positional(c)) == self.count and not any(a.star for a in c.args)]
        if exact:
            self._target = exact[0]
            return
        if any(len(_positional(c)) == self.count - len(self.positions) for c in calls):
            self.record(ALREADY, f"{self.callee}() at line {self.line} passes {self.count - len(self.positions)} "
                                 f"positional arguments already")
        else:
            self.record(NOT_FOUND, f"{self.callee}() at line {self.line} does not pass {self.count} positional arguments")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node is not self._target:
            return updated_node
        args = list(updated_node.args)
        drop = [_positional(updated_node)[p] for p in self.positions]
        for idx in sorted(drop, reverse=True):
            removed = args.pop(idx)
            if idx == len(args) and idx > 0:  # it was last: its comma (trailing or none) now ends the call
                prev = args[idx - 1]
                args[idx - 1] = prev.with_changes(comma=relayout_comma(prev.comma, removed.comma)) \
                    if isinstance(removed.comma, cst.Comma) else \
                    prev.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=removed.whitespace_after_arg)
        self.record(APPLIED, f"removed positional argument(s) {', '.join(str(p + 1) for p in self.positions)} "
                             f"from {self.callee}()")
        if not args:
            return updated_node.with_changes(args=(), whitespace_before_args=cst.SimpleWhitespace(""))
        return updated_node.with_changes(args=args)
