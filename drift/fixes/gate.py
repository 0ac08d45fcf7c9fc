"""Version-gated edits: a fix that keeps the consumer working on the vLLM it supported before.

Why: a consumer that supports a range of vLLM releases (verl, vllm-spyre) cannot simply take the
edit the new release needs: a keyword dropped, an import moved or an argument added raises on
the older release it still supports. Its maintainers guard such edits by version, and so does
drift: every statement an edit changed becomes

    if <version test>:
        # drift-gate: vllm>=0.12.0: <the edit>
        <the edited statements>
    else:
        # drift-gate: vllm<0.12.0: remove this branch when vllm<0.12.0 is no longer supported
        <the original statements>

so `grep -rn "drift-gate:"` finds every branch to remove once the old release is dropped. The
version test is the consumer's own helper when it has one (`drift/fixes/version_helper.py`),
else the one helper drift adds once. The tree is rebuilt with libcst, so the branches keep
their comments, nested blocks and string literals exactly (nothing is re-indented as text).
"""

from __future__ import annotations

import difflib
import textwrap
from dataclasses import dataclass
from typing import Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper, PositionProvider

MARK = "drift-gate:"


@dataclass(frozen=True)
class VersionGate:
    """How a range consumer's edits are gated.

    `since`: the vLLM release that needs the edit (the target); `before`: the newest release
    the consumer supported (the baseline). `test` is the expression that is true on `since` and
    newer (or, with `new_first=False`, true on the old release: an equality helper such as
    vllm-ascend's `vllm_version_is(...)`). `import_from`/`name`: where the test's function
    comes from (None: a name the module already has). `helper_path`/`helper_text`: the module
    drift adds to the consumer when it had no helper of its own (None: it has one).
    """

    since: str
    before: str
    test: str
    new_first: bool = True
    import_from: str | None = None
    name: str | None = None
    helper_path: str | None = None
    helper_text: str | None = None
    line_length: int = 88


@dataclass(frozen=True)
class GateResult:
    source: str
    gated: int = 0  # how many statement runs became version branches
    problem: str | None = None  # why the file's edits cannot be gated (then `source` is the original)


def _comment_lines(text: str, indent_cols: int, width: int) -> list[cst.EmptyLine]:
    """`# drift-gate: ...` wrapped to the consumer's line length (continuations start with `#   `)."""
    room = max(width - indent_cols - 2, 40)
    lines = textwrap.wrap(text, width=room, subsequent_indent="  ", break_long_words=False,
                          break_on_hyphens=False) or [text]
    return [cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(""), comment=cst.Comment("# " + line))
            for line in lines]


@dataclass
class _Run:
    """Statements of one body, first..last (1-based lines), that an edit changed."""

    body_id: int
    first: int  # index of the first statement in its body
    last: int
    start: int  # first line of the first statement
    end: int  # last line of the last statement


def _bodies(module: cst.Module) -> list[tuple[int, Sequence[cst.BaseStatement], list[tuple[int, int]]]]:
    """Every block of statements (module, indented blocks) with each statement's line span."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    pos = wrapper.resolve(PositionProvider)
    out = []
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Module, cst.IndentedBlock)):
            spans = [(pos[s].start.line, pos[s].end.line) for s in node.body]
            out.append((id(node), node.body, spans))
        stack.extend(node.children)
    return out


def _runs_for(module: cst.Module, changed: list[tuple[int, int]]) -> list[_Run] | str:
    """For each changed old line range, the innermost run of whole statements that covers it."""
    bodies = _bodies(module)
    runs: list[_Run] = []
    for lo, hi in changed:
        best: _Run | None = None
        for body_id, stmts, spans in bodies:
            idx = [i for i, (s, e) in enumerate(spans) if s <= hi and e >= lo]
            if not idx:
                continue
            first, last = idx[0], idx[-1]
            start, end = spans[first][0], spans[last][1]
            if start > lo or end < hi:
                continue
            if best is None or (end - start) < (best.end - best.start) or (
                    (end - start) == (best.end - best.start) and body_id != best.body_id):
                best = _Run(body_id, first, last, start, end)
        if best is None:
            return f"lines {lo}-{hi} are not whole statements of one block"
        runs.append(best)
    # a run inside another's lines is covered by it; runs of one body that touch merge
    runs.sort(key=lambda r: (r.start, -(r.end - r.start)))
    merged: list[_Run] = []
    for r in runs:
        if merged and r.start <= merged[-1].end + 1 and r.body_id == merged[-1].body_id:
            m = merged[-1]
            merged[-1] = _Run(m.body_id, m.first, max(m.last, r.last), m.start, max(m.end, r.end))
        elif merged and r.start >= merged[-1].start and r.end <= merged[-1].end:
            continue
        elif merged and r.start <= merged[-1].end:
            return f"lines {r.start}-{r.end} overlap another edited block"
        else:
            merged.append(r)
    return merged


def _changed_ranges(before: str, after: str) -> tuple[list[tuple[int, int]], list[tuple[int, int, int, int]]]:
    """Old line ranges (1-based, inclusive) the edit touched, and the raw opcodes."""
    ops = difflib.SequenceMatcher(None, before.split("\n"), after.split("\n"), autojunk=False).get_opcodes()
    changed = []
    hunks = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        hunks.append((i1, i2, j1, j2))
        if i1 == i2:  # a pure insertion belongs to the statement just above it
            changed.append((max(i1, 1), max(i1, 1)))
        else:
            changed.append((i1 + 1, i2))
    return changed, hunks


def _shift(line: int, hunks: list[tuple[int, int, int, int]]) -> int:
    """Where old line `line` (first line of a run, never inside a hunk that starts above it) is in the new text."""
    return line + sum((j2 - j1) - (i2 - i1) for i1, i2, j1, j2 in hunks if i2 <= line - 1)


def _new_statements(module: cst.Module, start: int, end: int) -> Sequence[cst.BaseStatement] | None:
    """The statements of one body that tile new lines start..end exactly (outermost body first)."""
    best = None
    for _, stmts, spans in _bodies(module):
        idx = [i for i, (s, e) in enumerate(spans) if s >= start and e <= end]
        if not idx:
            continue
        if spans[idx[0]][0] == start and spans[idx[-1]][1] == end and idx == list(range(idx[0], idx[-1] + 1)):
            chosen = stmts[idx[0]: idx[-1] + 1]
            if best is None or len(chosen) < len(best):
                best = chosen
    return best


def _strip_leading(stmt: cst.BaseStatement) -> cst.BaseStatement:
    return stmt.with_changes(leading_lines=())


class _Wrap(cst.CSTTransformer):
    """Replace each run of statements (found by identity in the original tree) with its If."""

    def __init__(self, replacements: dict[int, tuple[int, int, cst.If]]) -> None:
        self.replacements = replacements  # id(original body owner) -> (first, last, the If)

    def _swap(self, original, updated):  # type: ignore[no-untyped-def]
        got = self.replacements.get(id(original))
        if not got:
            return updated
        body = list(updated.body)
        for first, last, node in sorted(got, reverse=True):
            body[first: last + 1] = [node]
        return updated.with_changes(body=body)

    def leave_Module(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        return self._swap(original_node, updated_node)

    def leave_IndentedBlock(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        return self._swap(original_node, updated_node)


def gate_file(before: str, after: str, gate: VersionGate, what: Sequence[tuple[int, str]] = ()) -> GateResult:
    """`after` with every statement the edit changed turned into a version branch of `before`'s.

    `what`: (line in `before`, the edit said concretely) for the edits made in this file; each
    branch's comment names the ones inside it. A file whose edits cannot be gated comes back
    unchanged, with why.
    """
    if before == after:
        return GateResult(before)
    try:
        old_mod = cst.parse_module(before)
        new_mod = cst.parse_module(after)
    except cst.ParserSyntaxError as exc:
        return GateResult(before, problem=f"cannot parse: {exc.message}")
    changed, hunks = _changed_ranges(before, after)
    runs = _runs_for(old_mod, changed)
    if isinstance(runs, str):
        return GateResult(before, problem=runs)
    owners: dict[int, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [old_mod]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Module, cst.IndentedBlock)):
            owners[id(node)] = node
        stack.extend(node.children)
    replacements: dict[int, list[tuple[int, int, cst.If]]] = {}
    for run in runs:
        owner = owners[run.body_id]
        old_stmts = list(owner.body[run.first: run.last + 1])  # type: ignore[attr-defined]
        start = _shift(run.start, hunks)
        inside = sum((j2 - j1) - (i2 - i1) for i1, i2, j1, j2 in hunks if run.start - 1 <= i1 and i2 <= run.end
                     and not (i1 == i2 == run.start - 1))
        new_stmts = _new_statements(new_mod, start, run.end + (start - run.start) + inside)
        if new_stmts is None:
            return GateResult(before, problem=f"the edit of lines {run.start}-{run.end} is not whole statements")
        edit = "; ".join(dict.fromkeys(w for line, w in what if w and run.start <= line <= run.end)) \
            or "the edit this release needs"
        indent_cols = len(before.split("\n")[run.start - 1]) - len(before.split("\n")[run.start - 1].lstrip())
        width = gate.line_length
        new_note = _comment_lines(f"{MARK} vllm>={gate.since}: {edit}", indent_cols + 4, width)
        old_note = _comment_lines(f"{MARK} vllm<{gate.since}: delete this branch once vllm<{gate.since} is "
                                  "unsupported", indent_cols + 4, width)
        new_body = [_strip_leading(s) for s in new_stmts]
        old_body = [_strip_leading(s) for s in old_stmts]
        new_body[0] = new_body[0].with_changes(leading_lines=new_note)
        old_body[0] = old_body[0].with_changes(leading_lines=old_note)
        first_branch, second_branch = (new_body, old_body) if gate.new_first else (old_body, new_body)
        node = cst.If(test=cst.parse_expression(gate.test), body=cst.IndentedBlock(body=first_branch),
                      orelse=cst.Else(body=cst.IndentedBlock(body=second_branch)),
                      leading_lines=old_stmts[0].leading_lines)
        replacements.setdefault(run.body_id, []).append((run.first, run.last, node))
    out = old_mod.visit(_Wrap(replacements))
    if gate.import_from and gate.name:
        context = CodemodContext()
        AddImportsVisitor.add_needed_import(context, gate.import_from, gate.name)
        out = AddImportsVisitor(context).transform_module(out)
    return GateResult(out.code, gated=len(runs))
