"""Pass the positional arguments from one slot on by keyword, under the baseline's names.

Why: when the target inserts a parameter, `f(a, b, c)` written for `f(a, b, c)` hands `c` to the
new parameter. Naming the arguments the consumer meant (`f(a, b, c=c)`) binds them exactly as
the baseline did and lands each on the same parameter in the target, so one edit is right on
both releases. The rule that offers it checks that every name exists in both signatures.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


def _positional(call: cst.Call) -> list[int]:
    """Indexes (in call.args) of the plain positional arguments."""
    return [i for i, a in enumerate(call.args) if a.keyword is None and not a.star]


class KeywordizeArguments(SiteCodemod):
    DESCRIPTION = "Pass the positional arguments of the call to `callee` from slot `start` on as `name=value`."

    def __init__(self, context: CodemodContext, *, line: int, callee: str, start: int, names: list[str]) -> None:
        super().__init__(context, line=line)
        self.callee = callee
        self.start = int(start)
        self.names = [str(n) for n in names]
        self._target: cst.Call | None = None

    def visit_Module(self, node: cst.Module) -> None:
        calls = self.calls_here(self.callee)
        if not calls:
            return
        call = calls[0]
        if any(a.star == "*" for a in call.args):
            self.record(NOT_FOUND, f"{self.callee}() at line {self.line} unpacks *args: the slots are unknown")
            return
        pos = _positional(call)
        if len(pos) <= self.start:
            self.record(ALREADY, f"{self.callee}() at line {self.line} passes nothing positionally from slot "
                                 f"{self.start + 1} on")
            return
        extra = len(pos) - self.start
        if extra > len(self.names):
            self.record(NOT_FOUND, f"{self.callee}() at line {self.line} passes {len(pos)} positional arguments; "
                                   f"only {self.start + len(self.names)} have a name in both releases")
            return
        given = {a.keyword.value for a in call.args if a.keyword is not None}
        clash = [n for n in self.names[:extra] if n in given]
        if clash:
            self.record(NOT_FOUND, f"{self.callee}() at line {self.line} already passes {clash[0]}= by keyword")
            return
        self._target = call

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node is not self._target:
            return updated_node
        args = list(updated_node.args)
        pos = _positional(updated_node)[self.start:]
        # keywords must follow every positional argument, so the named ones move to the end of
        # the positional run: they already are there (no positional argument may follow a keyword)
        for k, i in enumerate(pos):
            args[i] = args[i].with_changes(
                keyword=cst.Name(self.names[k]),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")))
        self.record(APPLIED, f"{self.callee}() passes {', '.join(self.names[:len(pos)])} by keyword")
        return updated_node.with_changes(args=args)
