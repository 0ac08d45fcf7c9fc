"""Add `*_` to an unpacking whose source now yields more values after the ones it already had.

Why: when vLLM grows a returned tuple at its end (`find_longest_cache_hit` returning `(blocks,
hit_length)` and then `(blocks, hit_length, num_uncached)`; each finished job of a thread pool
going from `(job_id, success)` to `(job_id, success, time)`), `a, b = f()` raises ValueError on
the target. `a, b, *_ = f()` takes the same two values on the baseline (the star binds an empty
list) and on the target (it binds the rest), so the edit keeps the consumer working on both
releases and changes nothing else it does. The rule offers it only when the baseline's values are
the target's first ones, type by type; anything else (a value inserted in front, a reordering) is
the consumer's to read. A target that already has a starred name is left as it is (a second run).
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod, callee_name, iter_calls


def _source(node: cst.CSTNode) -> cst.CSTNode | None:
    """The value an unpacking target takes its values from: an assignment's value, a loop's or a
    comprehension's iterable."""
    if isinstance(node, cst.Assign):
        return node.value
    if isinstance(node, (cst.For, cst.CompFor)):
        return node.iter
    return None


def _targets(node: cst.CSTNode) -> list[cst.BaseExpression]:
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    if isinstance(node, (cst.For, cst.CompFor)):
        return [node.target]
    return []


class UnpackRest(SiteCodemod):
    DESCRIPTION = "Append `*_` to the tuple that unpacks `names` values from the call to `callee` at the site line."

    def __init__(self, context: CodemodContext, *, line: int, callee: str, names: int) -> None:
        super().__init__(context, line=line)
        self.callee = callee
        self.names = int(names)
        self._target: cst.Tuple | cst.List | None = None

    def _calls_callee(self, node: cst.CSTNode) -> bool:
        source = _source(node)
        return source is not None and any(callee_name(c.func) == self.callee for c in iter_calls(source))

    def visit_Module(self, node: cst.Module) -> None:
        holders = [n for kind in (cst.Assign, cst.For, cst.CompFor)
                   for n in self.nodes_at_line(kind, self._calls_callee)]
        seqs = [t for h in holders for t in _targets(h) if isinstance(t, (cst.Tuple, cst.List))]
        if not seqs:
            self.record(NOT_FOUND, f"no unpacking of {self.callee}() at line {self.line}")
            return
        if any(isinstance(e, cst.StarredElement) for s in seqs for e in s.elements):
            self.record(ALREADY, f"the unpacking of {self.callee}() at line {self.line} has a starred name already")
            return
        exact = [s for s in seqs if len(s.elements) == self.names]
        if not exact:
            self.record(NOT_FOUND, f"the unpacking of {self.callee}() at line {self.line} does not take {self.names} names")
            return
        self._target = exact[0]

    def _grown(self, node: cst.Tuple | cst.List) -> cst.Tuple | cst.List:
        elements = list(node.elements)
        last = elements[-1]
        trailing = last.comma
        sep = next((e.comma for e in elements[:-1] if isinstance(e.comma, cst.Comma)), None) \
            or cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        elements[-1] = last.with_changes(comma=sep)
        elements.append(cst.StarredElement(cst.Name("_"), comma=trailing))
        return node.with_changes(elements=elements)

    def leave_Tuple(self, original_node: cst.Tuple, updated_node: cst.Tuple) -> cst.BaseExpression:
        if original_node is not self._target:
            return updated_node
        self.record(APPLIED, f"unpacks the rest of {self.callee}()'s values into *_")
        return self._grown(updated_node)

    def leave_List(self, original_node: cst.List, updated_node: cst.List) -> cst.BaseExpression:
        if original_node is not self._target:
            return updated_node
        self.record(APPLIED, f"unpacks the rest of {self.callee}()'s values into *_")
        return self._grown(updated_node)
