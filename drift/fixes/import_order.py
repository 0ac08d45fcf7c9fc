"""Put the imports a fix added where the consumer's isort/ruff would have put them.

Codemods add imports where it is easiest for them (libcst's AddImportsVisitor: after the last
import, even below a relative one; `move_import`: right after the statement it split; merged
names appended at the end of a parenthesized list). A reviewer, and `ruff check --select I`,
expect them in the import block's own order: sections future, standard library, third party,
first party, local (relative); within a section `import x` before `from x import`, modules
compared case-insensitively; the names of a `from` import as ruff orders them by default
(CONSTANTS, Classes, functions). This pass moves only what the fix added or changed, and only
when the block it joins was already in that order; anything else is left as the fix wrote it.
"""

from __future__ import annotations

import re
import sys
from typing import Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

_SECTIONS = ("future", "stdlib", "third_party", "first_party", "local")


def _natural(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def member_key(name: str) -> tuple:
    """ruff's default order of the names in one `from x import ...` (order-by-type)."""
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return (kind, _natural(name.lower()), name)


def _only_import(stmt: cst.CSTNode) -> cst.Import | cst.ImportFrom | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            return small
    return None


def _module(imp: cst.Import | cst.ImportFrom) -> str:
    if isinstance(imp, cst.Import):
        return get_full_name_for_node(imp.names[0].name) or ""
    return get_full_name_for_node(imp.module) or "" if imp.module is not None else ""


def _section(imp: cst.Import | cst.ImportFrom, first_party: frozenset[str]) -> int:
    if isinstance(imp, cst.ImportFrom) and imp.relative:
        return _SECTIONS.index("local")
    top = _module(imp).split(".")[0]
    if top == "__future__":
        return _SECTIONS.index("future")
    if top in first_party:
        return _SECTIONS.index("first_party")
    if top in getattr(sys, "stdlib_module_names", ()):
        return _SECTIONS.index("stdlib")
    return _SECTIONS.index("third_party")


def statement_key(imp: cst.Import | cst.ImportFrom, first_party: frozenset[str]) -> tuple:
    module = _module(imp)
    return (_section(imp, first_party), isinstance(imp, cst.ImportFrom), _natural(module.lower()), module)


def _identity(imp: cst.Import | cst.ImportFrom) -> tuple:
    if isinstance(imp, cst.Import):
        return ("import", tuple(get_full_name_for_node(a.name) or "" for a in imp.names))
    return ("from", len(imp.relative), _module(imp))


def _alias_names(imp: cst.ImportFrom) -> list[str]:
    if isinstance(imp.names, cst.ImportStar):
        return []
    return [get_full_name_for_node(a.name) or "" for a in imp.names]


def _sorted_names(imp: cst.ImportFrom) -> cst.ImportFrom:
    """`imp` with its names in ruff's order; each position keeps its comma (the layout stays)."""
    if isinstance(imp.names, cst.ImportStar):
        return imp
    names = list(imp.names)
    commas = [a.comma for a in names]
    ordered = sorted(names, key=lambda a: member_key(get_full_name_for_node(a.name) or ""))
    return imp.with_changes(names=[a.with_changes(comma=c) for a, c in zip(ordered, commas)])


def _block_end(body: Sequence[cst.BaseStatement]) -> tuple[int, int]:
    """[start, end) of the leading import block (after a docstring)."""
    start = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
            and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        start = 1
    end = start
    while end < len(body) and _only_import(body[end]) is not None:
        end += 1
    return start, end


def _comments_only(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    return [line for line in lines if line.comment is not None]


def _with_blank(stmt: cst.BaseStatement, blank: bool) -> cst.BaseStatement:
    comments = _comments_only(stmt.leading_lines)
    return stmt.with_changes(leading_lines=([cst.EmptyLine()] if blank else []) + comments)


def _is_sorted(keys: list[tuple]) -> bool:
    return keys == sorted(keys)


def order_imports(before: str, after: str, *, first_party: Sequence[str] = ()) -> str:
    """`after` with the module-level imports it added (over `before`) moved into isort order."""
    try:
        old = cst.parse_module(before)
        new = cst.parse_module(after)
    except cst.ParserSyntaxError:
        return after
    party = frozenset(first_party)
    old_codes = {old.code_for_node(s.with_changes(leading_lines=())) for s in old.body}
    old_names: dict[tuple, list[str]] = {}
    for stmt in old.body:
        imp = _only_import(stmt)
        if isinstance(imp, cst.ImportFrom):
            old_names.setdefault((imp.relative and len(imp.relative), _module(imp)), _alias_names(imp))
    body = list(new.body)
    # 1. names merged into an existing `from x import ...` go where ruff sorts them
    for i, stmt in enumerate(body):
        imp = _only_import(stmt)
        if not isinstance(imp, cst.ImportFrom) or isinstance(imp.names, cst.ImportStar):
            continue
        was = old_names.get((imp.relative and len(imp.relative), _module(imp)))
        now = _alias_names(imp)
        if was is None or now == was:  # names added (merged) or renamed (a deprecated alias)
            continue
        if [member_key(n) for n in was] == sorted(member_key(n) for n in was):
            body[i] = stmt.with_changes(body=[_sorted_names(imp)])  # type: ignore[union-attr]
    # 2. whole statements the fix added join the block at their place
    start, end = _block_end(body)
    # a statement of a module the file already imported from was edited in place (names merged
    # into it): it stays where it is; only statements of a module new to the file move
    old_modules = {_identity(_only_import(s)) for s in old.body if _only_import(s) is not None}  # type: ignore[arg-type]
    added = [i for i in range(len(body)) if _only_import(body[i]) is not None
             and new.code_for_node(body[i].with_changes(leading_lines=())) not in old_codes
             and _identity(_only_import(body[i])) not in old_modules]  # type: ignore[arg-type]
    # only statements in the leading block, or right after it (where AddImportsVisitor puts them)
    added = [i for i in added if start <= i < end]
    if not added:
        return new.with_changes(body=body).code
    top_lines = body[start].leading_lines  # what sits above the block stays above it
    # a statement the fix wrote whole takes its names in ruff's order too
    moving = [s.with_changes(body=[_sorted_names(imp)]) if isinstance(imp := _only_import(s), cst.ImportFrom) else s
              for s in (body[i] for i in added)]
    keep = [s for i, s in enumerate(body[start:end], start) if i not in added]
    block = list(keep)
    for stmt in moving:
        imp = _only_import(stmt)
        assert imp is not None
        key = statement_key(imp, party)
        keys = [statement_key(_only_import(s), party) for s in block]  # type: ignore[arg-type]
        same = [j for j, k in enumerate(keys) if k[0] == key[0]]
        if same:
            run = [keys[j] for j in same]
            if _is_sorted(run):
                at = next((j for j in same if keys[j] > key), same[-1] + 1)
            else:
                at = same[-1] + 1
            if at == same[0]:  # new first of its section: it takes the section's separating blank line
                first = block[at]
                blank = any(line.comment is None for line in first.leading_lines)
                block[at] = first.with_changes(leading_lines=_comments_only(first.leading_lines))
                stmt = _with_blank(stmt, blank)
            else:
                stmt = _with_blank(stmt, False)
        else:
            at = next((j for j, k in enumerate(keys) if k[0] > key[0]), len(block))
            stmt = _with_blank(stmt, at > 0)
            if at < len(block):
                block[at] = _with_blank(block[at], True)
        block.insert(at, stmt)
    first_before = body[start]
    if block[0] is not first_before:
        if first_before in block:  # a kept statement no longer first: a blank line only between sections
            k = block.index(first_before)
            here, above = (statement_key(_only_import(block[j]), party)[0] for j in (k, k - 1))  # type: ignore[arg-type]
            block[k] = _with_blank(first_before, here != above)
        block[0] = block[0].with_changes(leading_lines=top_lines)
    # a moved statement that opened its section took the separating blank line with it: the
    # statement now first in a section gets one (sections stay apart, as ruff's isort keeps them)
    for j in range(1, len(block)):
        here, above = _only_import(block[j]), _only_import(block[j - 1])
        if here is None or above is None or statement_key(here, party)[0] == statement_key(above, party)[0]:
            continue
        if not any(line.comment is None for line in block[j].leading_lines):
            block[j] = _with_blank(block[j], True)
    body[start:end] = block
    return new.with_changes(body=body).code
