"""Delete a check the target deleted from its own identical code (`if lora.extra_vocab_size >
self.lora_config.lora_extra_vocab_size: raise ValueError(...)`, gone from vLLM 0.12's
`WorkerLoRAManager._load_adapter` with the extra-vocabulary feature it guarded).

Why a codemod: the check reads attributes the target removed, so it raises AttributeError where it
used to guard; the maintainers of the library removed the very same statement from their own
function. The codemod deletes only an `if` whose test is that guard (the same expression, spacing
and parentheses aside), whose body only raises and which has no `else`/`elif`: anything more is
the consumer's own logic and stays. A body left empty gets `pass` (libcst writes it).
"""

from __future__ import annotations

import ast

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import APPLIED, NOT_FOUND, SiteCodemod


def _same(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a.strip(), mode="eval")) == ast.dump(ast.parse(b.strip(), mode="eval"))
    except (SyntaxError, ValueError):
        return a.strip() == b.strip()


def _raises_only(body: cst.BaseSuite) -> bool:
    stmts = body.body if isinstance(body, cst.IndentedBlock) else [body]
    return bool(stmts) and all(isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Raise) for x in s.body)
                               or isinstance(s, cst.SimpleStatementSuite) and all(isinstance(x, cst.Raise) for x in s.body)
                               for s in stmts)


class DropCheck(SiteCodemod):
    DESCRIPTION = "Delete the `if <guard>: raise ...` check at the site line, as the target deleted its own."

    def __init__(self, context: CodemodContext, *, line: int, guard: str) -> None:
        super().__init__(context, line=line)
        self.guard = guard
        self._site: cst.If | None = None

    def visit_Module(self, node: cst.Module) -> None:
        found = self.nodes_at_line(cst.If, lambda n: n.orelse is None and not isinstance(self.parent(n), cst.If)
                                   and _same(node.code_for_node(n.test), self.guard) and _raises_only(n.body))
        if found:
            self._site = found[0]
        else:
            self.record(NOT_FOUND, f"no `if {self.guard}: raise ...` at line {self.line}")

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If | cst.RemovalSentinel:
        if original_node is not self._site:
            return updated_node
        self.record(APPLIED, f"deleted the check `if {self.guard}: raise ...`")
        return cst.RemoveFromParent()
