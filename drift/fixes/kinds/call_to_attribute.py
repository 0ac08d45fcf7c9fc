"""Read an attribute where the consumer called a removed zero-argument method (`.m()` -> `.attr`).

Why: vLLM sometimes replaces a method that built a value on every call with an attribute built
once (`KVCacheManager.create_empty_block_list()` became `KVCacheManager.empty_kv_cache_blocks`)
and rewrites its own calls to read the attribute. The consumer's call of the removed method gets
the same rewrite. The rule that offers it sets the tier (the object read may now be shared).
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod


class CallToAttribute(SiteCodemod):
    DESCRIPTION = "Replace the call `.method()` at the site line with a read of `.attr`."

    def __init__(self, context: CodemodContext, *, line: int, method: str, attr: str) -> None:
        super().__init__(context, line=line)
        self.method, self.attr = method, attr
        self._target: cst.Call | None = None

    def visit_Module(self, node: cst.Module) -> None:
        calls = self.nodes_at_line(cst.Call, lambda c: isinstance(c.func, cst.Attribute)
                                   and c.func.attr.value == self.method)
        bare = [c for c in calls if not c.args]
        if bare:
            self._target = bare[0]
            return
        if calls:
            self.record(NOT_FOUND, f".{self.method}() at line {self.line} passes arguments")
        elif self.nodes_at_line(cst.Attribute, lambda a: a.attr.value == self.attr):
            self.record(ALREADY, f".{self.attr} already read at line {self.line}")
        else:
            self.record(NOT_FOUND, f"no .{self.method}() call at line {self.line}")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node is not self._target:
            return updated_node
        func = updated_node.func
        assert isinstance(func, cst.Attribute)
        self.record(APPLIED, f"reads .{self.attr} instead of calling .{self.method}()")
        return func.with_changes(attr=func.attr.with_changes(value=self.attr),
                                 lpar=updated_node.lpar, rpar=updated_node.rpar)
