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
import sys
import textwrap
from dataclasses import dataclass
from typing import Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider

MARK = "drift-gate:"
_STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}


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
    extra_imports: tuple[tuple[str, str], ...] = ()  # (module, name) the test needs besides its own


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


def _short(edit: str) -> str:
    """The edit without the evidence in parentheses: the comment names the change, the report
    keeps the why (`drop `x=None` from the call (the baseline's default...)` -> `drop `x=None` from the call`)."""
    cut = edit.find(" (")
    return edit[:cut] if cut > 0 else edit


def _code(stmt: cst.BaseStatement) -> str:
    return cst.Module(body=[stmt]).code


def _fit(stmt: cst.BaseStatement, indent: int, width: int) -> cst.BaseStatement:
    """A one-line statement that the branch's extra indentation pushes past the consumer's line
    length, with its outermost call's arguments one per line and a trailing comma (the layout
    black and ruff format keep: the "magic trailing comma"). A line that was already too long
    before, or has no call to open, stays as it is."""
    text = _code(stmt).rstrip("\n")
    if "\n" in text or indent + len(text) <= width or indent - 4 + len(text) > width:
        return stmt
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return stmt
    calls = [n for n in _walk(stmt.body[0]) if isinstance(n, cst.Call) and n.args]
    if not calls:
        return stmt
    target = calls[0]  # the outermost (walked from the top)
    step = cst.SimpleWhitespace("    ")

    def broken(last: bool) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True,
                                           last_line=cst.SimpleWhitespace("") if last else step)

    args = list(target.args)
    args = [a.with_changes(comma=cst.Comma(whitespace_after=broken(i == len(args) - 1)),
                           whitespace_after_arg=cst.SimpleWhitespace("")) for i, a in enumerate(args)]
    wide = target.with_changes(args=args, whitespace_before_args=broken(False))

    class _Swap(cst.CSTTransformer):
        def leave_Call(self, original_node, updated_node):  # type: ignore[no-untyped-def]
            return wide if original_node is target else updated_node

    return stmt.visit(_Swap())  # type: ignore[return-value]


def _walk(node: cst.CSTNode):  # type: ignore[no-untyped-def]
    """Nodes from the top down, breadth first: the first call found is the outermost."""
    queue = [node]
    while queue:
        cur = queue.pop(0)
        yield cur
        queue.extend(cur.children)


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
        for first, last, node in sorted(got, key=lambda r: (r[0], r[1]), reverse=True):
            if node is None and last + 1 < len(body) and not isinstance(body[last + 1], cst.If):
                # a moved import's blank lines and comments stay where they were, above what follows
                body[last + 1] = body[last + 1].with_changes(
                    leading_lines=[*body[first].leading_lines, *body[last + 1].leading_lines])
            body[first: last + 1] = [] if node is None else node if isinstance(node, list) else [node]
        return updated.with_changes(body=body)

    def leave_Module(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        return self._swap(original_node, updated_node)

    def leave_IndentedBlock(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        return self._swap(original_node, updated_node)


def gate_file(before: str, after: str, gate: VersionGate, what: Sequence[tuple[int, str]] = (),
              only: frozenset[int] | None = None) -> GateResult:
    """`after` with every statement the edit changed turned into a version branch of `before`'s.

    `what`: (line in `before`, the edit said concretely) for the edits made in this file; each
    branch's comment names the ones inside it. `only`: lines of `before`; an edited statement
    covering none of them keeps its plain edit (it works on the older release too). A file
    whose edits cannot be gated comes back unchanged, with why.
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
    gated = 0
    for run in runs:
        owner = owners[run.body_id]
        old_stmts = list(owner.body[run.first: run.last + 1])  # type: ignore[attr-defined]
        start = _shift(run.start, hunks)
        inside = sum((j2 - j1) - (i2 - i1) for i1, i2, j1, j2 in hunks if run.start - 1 <= i1 and i2 <= run.end
                     and not (i1 == i2 == run.start - 1))
        new_stmts = _new_statements(new_mod, start, run.end + (start - run.start) + inside)
        if new_stmts is None:
            return GateResult(before, problem=f"the edit of lines {run.start}-{run.end} is not whole statements")
        if only is not None and not any(run.start <= line <= run.end for line in only):
            replacements.setdefault(run.body_id, []).append((run.first, run.last, list(new_stmts)))
            continue
        gated += 1
        edit = "; ".join(dict.fromkeys(_short(w) for line, w in what if w and run.start <= line <= run.end)) \
            or "the edit this release needs"
        indent_cols = len(before.split("\n")[run.start - 1]) - len(before.split("\n")[run.start - 1].lstrip())
        width = gate.line_length
        new_note = _comment_lines(f"{MARK} vllm>={gate.since}: {edit}", indent_cols + 4, width)
        old_note = _comment_lines(f"{MARK} vllm<{gate.since}: delete this branch once vllm<{gate.since} is "
                                  "unsupported", indent_cols + 4, width)
        new_body = [_fit(_strip_leading(s), indent_cols + 4, width) for s in new_stmts]
        old_body = [_fit(_strip_leading(s), indent_cols + 4, width) for s in old_stmts]
        new_body[0] = new_body[0].with_changes(leading_lines=new_note)
        old_body[0] = old_body[0].with_changes(leading_lines=old_note)
        first_branch, second_branch = (new_body, old_body) if gate.new_first else (old_body, new_body)
        node = cst.If(test=cst.parse_expression(gate.test), body=cst.IndentedBlock(body=first_branch),
                      orelse=cst.Else(body=cst.IndentedBlock(body=second_branch)),
                      leading_lines=old_stmts[0].leading_lines)
        replacements.setdefault(run.body_id, []).append((run.first, run.last, node))
    _imports_after_block(old_mod, replacements, gate.new_first)
    out = old_mod.visit(_Wrap(replacements))
    if gated:
        own = (gate.helper_path or gate.import_from or "").split("/")[0].split(".")[0]
        for source, name in gate.extra_imports:
            out = _add_import(out, source, name, own)
        if gate.import_from and gate.name:
            out = _add_import(out, gate.import_from, gate.name, own)
    return GateResult(out.code, gated=gated)


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _block_end(module: cst.Module) -> int:
    """Index of the last statement of the module's leading import block (-1: none)."""
    end = -1
    for i, stmt in enumerate(module.body):
        if i == 0 and isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.SimpleString):
            continue  # the docstring
        if not _is_import(stmt):
            break
        end = i
    return end


def _module_name(node: cst.ImportFrom) -> str:
    return "." * len(node.relative) + (get_full_name_for_node(node.module) or "" if node.module else "")


def _imports_after_block(module: cst.Module, replacements: dict, new_first: bool) -> None:  # type: ignore[type-arg]
    """Gated imports of the leading import block become one branch right after the block, the
    new branch's `from` imports sorted by module: the block stays whole (no E402 below an `if`)
    and reads as the maintainers' own version-gated imports do."""
    runs = replacements.get(id(module))
    end = _block_end(module)
    if not runs or end < 0:
        return
    moved = [r for r in runs if isinstance(r[2], cst.If) and r[1] <= end
             and all(_is_import(st) for st in module.body[r[0]: r[1] + 1])]
    if not moved:
        return
    template = moved[0][2]
    branch_a = [st.with_changes(leading_lines=()) for _, _, n in moved for st in n.body.body]
    branch_b = [st.with_changes(leading_lines=()) for _, _, n in moved for st in n.orelse.body.body]
    new_branch = branch_a if new_first else branch_b
    if all(isinstance(st, cst.SimpleStatementLine) and isinstance(st.body[0], cst.ImportFrom) for st in new_branch):
        new_branch.sort(key=lambda st: _module_name(st.body[0]))  # type: ignore[attr-defined]
    notes_a = [line for _, _, n in moved for line in n.body.body[0].leading_lines]
    notes_b = list(template.orelse.body.body[0].leading_lines)
    if not new_first:  # the old release's branch comes first: it has the one "delete" note
        notes_a, notes_b = list(template.body.body[0].leading_lines), [
            line for _, _, n in moved for line in n.orelse.body.body[0].leading_lines]
    branch_a[0] = branch_a[0].with_changes(leading_lines=notes_a)
    branch_b[0] = branch_b[0].with_changes(leading_lines=notes_b)
    joined = template.with_changes(
        body=template.body.with_changes(body=branch_a),
        orelse=template.orelse.with_changes(body=template.orelse.body.with_changes(body=branch_b)),
        leading_lines=[cst.EmptyLine()])
    kept = [r for r in runs if r not in moved]
    kept += [(r[0], r[1], None) for r in moved]  # removed where they were
    kept.append((end + 1, end, joined))  # inserted after the block
    replacements[id(module)] = kept


def _add_import(module: cst.Module, source: str, name: str, own: str = "") -> cst.Module:
    """`from source import name` in isort's order: a first-party one (the consumer's package
    `own`) after the module's own first-party imports, a third-party one after the last
    third-party import; else at the end of the leading import block."""
    body = list(module.body)
    end = _block_end(module)
    top = source.split(".")[0]
    first_party = top == own
    where = None
    for i, stmt in enumerate(body):
        if not _is_import(stmt):
            continue
        for small in stmt.body:  # type: ignore[attr-defined]
            if isinstance(small, cst.ImportFrom) and _module_name(small) == source and not isinstance(
                    small.names, cst.ImportStar) and any(getattr(a.name, "value", None) == name for a in small.names):
                return module  # already imported
            if i > end or not isinstance(small, (cst.ImportFrom, cst.Import)):
                continue
            if isinstance(small, cst.ImportFrom):
                head = "." if small.relative else _module_name(small).split(".")[0]
            else:
                head = (get_full_name_for_node(small.names[0].name) or "").split(".")[0]
            ours = head in (".", own)
            if first_party and ours:
                where = i
            elif not first_party and not ours and head not in _STDLIB:
                where = i
    if end < 0:
        context = CodemodContext()
        AddImportsVisitor.add_needed_import(context, source, name)
        return AddImportsVisitor(context).transform_module(module)
    line = cst.parse_statement(f"from {source} import {name}\n")
    if where is None:
        where = end
        line = line.with_changes(leading_lines=[cst.EmptyLine()])
    body.insert(where + 1, line)
    return module.with_changes(body=body)
