"""`# TODO(drift): ...` comments above the sites drift will not fix itself (`--add-todo`).

Why: a manual (or held-back unsafe) fix described only in a report is easy to lose; a comment at
the line carries the edit and the vLLM evidence into the consumer's own review. The comment goes
above the statement that holds the site, at its indentation, and is never added twice.
"""

from __future__ import annotations

import ast
from typing import Iterable

from drift.findings import Finding

MARK = "# TODO(drift):"


def todo_text(finding: Finding) -> str:
    """One line: rule, what to do, and the target evidence that shows why."""
    fix = finding.fix
    what = fix.description if fix else finding.title
    evidence = ", ".join(str(e) for e in finding.target_evidence[:2])
    text = f"{MARK} {finding.rule_id} {what}"
    if finding.predicted_failure:
        text += f" (else {finding.predicted_failure})"
    if evidence:
        text += f"; vLLM: {evidence}"
    return " ".join(text.split())


def _statement_start(tree: ast.AST, line: int) -> int:
    """First line of the innermost statement whose span holds `line` (a call may span lines)."""
    best: tuple[int, int] | None = None  # (span, start)
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While,
                                 ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)) and node.lineno != line:
                continue  # a compound statement holds the line in its body: keep looking inside
            span = (node.end_lineno or node.lineno) - node.lineno
            if best is None or span < best[0]:
                best = (span, node.lineno)
    return best[1] if best else line


def add_todos(source: str, findings: Iterable[Finding], *, lines: dict[int, int] | None = None) -> tuple[str, list[str]]:
    """`source` with a TODO above each finding's site; (new source, keys of findings marked).

    `lines` maps a finding's original line to where it is now (after codemods ran).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source, []
    text = source.split("\n")
    marks: dict[int, list[tuple[str, str]]] = {}
    for f in findings:
        line = (lines or {}).get(f.consumer_site.line, f.consumer_site.line)
        if not 1 <= line <= len(text):
            continue
        start = _statement_start(tree, line)
        marks.setdefault(start, []).append((f.key, todo_text(f)))
    done: list[str] = []
    for start in sorted(marks, reverse=True):
        stmt = text[start - 1]
        indent = stmt[: len(stmt) - len(stmt.lstrip())]
        above = set()
        k = start - 2
        while k >= 0 and text[k].strip().startswith(MARK):
            above.add(text[k].strip())
            k -= 1
        new = []
        for key, comment in marks[start]:
            if comment not in above and comment not in new:
                new.append(comment)
            done.append(key)
        text[start - 1:start - 1] = [indent + c for c in new]
    return "\n".join(text), done
