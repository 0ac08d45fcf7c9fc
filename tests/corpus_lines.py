"""Which corpus truth entries sit off the line drift's line rule gives (drift/analysis/surfacing.py).

The truth was written over many rounds, some of it to drift's old convention (a keyword's own
line, each name of a multi-line import). This reads each consumer's tree (git_only
`consumer_source`, PyPI ones in drift's sources cache) and, for every `[[breaks]]` and
`[[reviewed]]` entry, computes the line Python 3.11 raises on: a multi-line `from ... import`'s
first line for an import failure; for a call failure written at a keyword on a continuation
line, the call's line (its callee's last name). Run: `python -m tests.corpus_lines [--write]
[NAME ...]`; `--write` moves the entries, each keeping its old line in a comment.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from drift.analysis.ruledocs import builtin_registry
from drift.kinds import Kind
from drift.analysis.surfacing import CALL_KINDS, CALLS_AT_THE_CALL, IMPORT_KINDS, INSTALLED_KINDS, \
    INSTALLS_AT_THE_INSTALL
from drift.sources.cache import cache_root
from tests import corpus_score as cs

# Truth `kind`s (free text, written over many rounds) naming a call's failure; an entry of any kind on
# a name line of a multi-line import is that import's failure.
CALL_TRUTH = re.compile(r"call-(?!removed$|protocol$)|constructor-|(signature-changed|keyword-removed|kwarg-removed|"
                        r"required-arg-added|required-added|param-removed|param-added|positional-args-shifted|"
                        r"none-no-longer-accepted)$")
KEYWORD_TRUTH = re.compile(r"keyword|kwarg")  # ... a keyword's failure: the call it is passed to
INSTALLED_TRUTH = re.compile(r"override-|monkeypatch-signature$")  # ... a replacement's failure
NOTE = "# line was {old} before round 19's line rule"


def _rule_kinds() -> dict[str, object]:
    """Each rule id (variants included) -> the kind its findings carry."""
    return {rid: Kind[doc.kind] for rid, doc in builtin_registry().items()}


def _tree(gt: dict) -> Path | None:
    src = gt.get("consumer_source")
    if src:
        return Path(src)
    name, _, version = gt["consumer"].partition("==")
    root = cache_root() / "sources"
    for cand in (f"{name}-{version}", f"{name.replace('-', '_')}-{version}", f"{name.replace('_', '-')}-{version}"):
        if (root / cand).is_dir():
            return root / cand
    return None


def _find(tree: Path, rel: str) -> Path | None:
    if (tree / rel).is_file():
        return tree / rel
    hits = [p for p in tree.glob(f"*/{rel}") if p.is_file()]
    return hits[0] if len(hits) == 1 else None


def call_line(call: ast.Call) -> int:
    """The line 3.11 reports a call on: the callee's last name (`obj\\n .m(` -> the `.m` line)."""
    f = call.func
    return f.end_lineno if isinstance(f, ast.Attribute) else call.lineno


def install_lines(tree: ast.Module) -> dict[tuple[int, str], set[int]]:
    """(def line, name installed as) -> lines of the module's statements installing that def:
    `X.name = f` (the assignment's line) and `setattr(X, "name", f)` (the name's line, as the
    probe records it)."""
    lines: dict[str, list[int]] = {}
    for n in ast.walk(tree):  # nested defs too (a patching helper's inner function); a name defined twice is left out
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines.setdefault(n.name, []).append(n.lineno)
    defs = {name: at[0] for name, at in lines.items() if len(at) == 1}
    out: dict[tuple[int, str], set[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in defs:
            for t in node.targets:
                if isinstance(t, ast.Attribute):
                    out.setdefault((defs[node.value.id], t.attr), set()).add(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) == 3 and isinstance(node.args[2], ast.Name) and node.args[2].id in defs \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            out.setdefault((defs[node.args[2].id], node.args[1].value), set()).add(node.args[1].lineno)
    return out


def rule_lines(text: str) -> tuple[dict[int, int], dict[int, int], dict[tuple[int, str], set[int]], set[int]]:
    """(import line -> its statement's first line, keyword line -> its call's line, installs,
    the lines calls raise on), for lines
    that move; a line holding keywords of calls that raise on different lines is left out."""
    imports, calls = {}, {}
    tree = ast.parse(text)
    ambiguous = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.end_lineno > node.lineno:
            for alias in node.names:
                line = getattr(alias, "lineno", None)
                if line and line != node.lineno:
                    imports[line] = node.lineno
        elif isinstance(node, ast.Call):
            at = call_line(node)
            for k in node.keywords:
                if k.arg is None or k.lineno == at:
                    continue
                if calls.get(k.lineno, at) != at:
                    ambiguous.add(k.lineno)
                calls[k.lineno] = at
    for line in ambiguous:
        calls.pop(line, None)
    return imports, calls, install_lines(tree), {call_line(n) for n in ast.walk(tree) if isinstance(n, ast.Call)}


def moves(name: str, kinds: dict[str, object]) -> list[tuple[str, dict, int]]:
    """(table, entry, new line) for each entry of one corpus file that the rule moves."""
    gt = cs.ground_truth(name)
    tree = _tree(gt)
    if tree is None or not tree.exists():
        return []
    cache: dict[str, tuple] = {}
    done = _moved_already(name)
    out = []
    for table in ("breaks", "reviewed"):
        for e in gt.get(table) or []:
            path = _find(tree, e["path"])
            if path is None or (e["path"], e["line"]) in done:
                continue
            if e["path"] not in cache:
                try:
                    cache[e["path"]] = rule_lines(path.read_text(errors="replace"))
                except (SyntaxError, ValueError):
                    cache[e["path"]] = ({}, {}, {}, set())
            imports, calls, installs, starts = cache[e["path"]]
            if table == "breaks":
                kind = e.get("kind") or ""
                is_import, is_call = True, bool(CALL_TRUTH.match(kind))
                # a failure of a call written on this line (not of a keyword it passes) is that call's
                is_call = is_call and (e["line"] not in starts or bool(KEYWORD_TRUTH.search(kind)))
                is_installed = bool(INSTALLED_TRUTH.match(kind))
            else:
                kind = kinds.get(e.get("rule"))
                is_import, is_call, is_installed = kind in IMPORT_KINDS, kind in CALL_KINDS, kind in INSTALLED_KINDS
                is_call = is_call and (e["line"] not in starts or kind is Kind.KEYWORD_REMOVED)
            is_call = is_call and CALLS_AT_THE_CALL  # the rule's parts drift applies, and only those
            is_installed = is_installed and INSTALLS_AT_THE_INSTALL
            at = installs.get((e["line"], (e.get("symbol") or "").rsplit(".", 1)[-1])) or set()
            new = (imports.get(e["line"]) if is_import else None) or (calls.get(e["line"]) if is_call else None) \
                or (min(at) if is_installed and len(at) == 1 else None)
            if new is not None and new != e["line"]:
                out.append((table, e, new))
    return out


def _moved_already(name: str) -> set[tuple[str, int]]:
    """(path, line) of entries this script moved before (their `line` carries NOTE): the rule
    maps a line once (a keyword's line to its call's line, which may be another call's keyword
    line), so a second run leaves them."""
    out, path = set(), None
    for raw in (cs.CORPUS / f"{name}.toml").read_text().split("\n"):
        m = re.match(r'\s*path\s*=\s*"([^"]+)"', raw)
        if m:
            path = m.group(1)
        m = re.match(r"\s*line\s*=\s*(\d+)\b.*before round 19's line rule", raw)
        if m and path:
            out.add((path, int(m.group(1))))
        if raw.strip().startswith("[["):
            path = None
    return out


def write(name: str, found: list[tuple[str, dict, int]]) -> None:
    """Rewrite each moved entry's `line = N` in its table block, the old line kept in a comment."""
    path = cs.CORPUS / f"{name}.toml"
    lines = path.read_text().split("\n")
    blocks = [i for i, l in enumerate(lines) if re.match(r"\s*\[\[(breaks|reviewed)\]\]", l)] + [len(lines)]
    for table, e, new in found:
        for start, end in zip(blocks, blocks[1:]):
            if lines[start].strip() != f"[[{table}]]":
                continue
            body = lines[start:end]
            if not any(re.match(rf'\s*path\s*=\s*"{re.escape(e["path"])}"', l) for l in body):
                continue
            if table == "breaks" and not any(re.match(rf'\s*id\s*=\s*"{re.escape(e["id"])}"', l) for l in body):
                continue
            if table == "reviewed" and not any(re.match(rf'\s*rule\s*=\s*"{re.escape(e["rule"])}"', l) for l in body):
                continue
            if table == "reviewed" and e.get("symbol") and not any(
                    re.match(rf'\s*symbol\s*=\s*"{re.escape(e["symbol"])}"', l) for l in body):
                continue
            hit = [i for i in range(start, end) if re.match(rf"\s*line\s*=\s*{e['line']}\b", lines[i])]
            if len(hit) == 1:
                i = hit[0]
                lines[i] = re.sub(rf"line\s*=\s*{e['line']}\b", f"line = {new}", lines[i], count=1)
                note = NOTE.format(old=e["line"])
                lines[i] = lines[i].rstrip() + ("; " + note[2:] if "#" in lines[i] else "  " + note)
                break
    path.write_text("\n".join(lines))


def main(argv: list[str]) -> int:
    do_write = "--write" in argv
    names = [a for a in argv if a != "--write"] or \
        cs.names() + sorted("git_only/" + p.stem for p in (cs.CORPUS / "git_only").glob("*.toml"))
    kinds = _rule_kinds()
    for name in names:
        found = moves(name, kinds)
        for table, e, new in found:
            print(f"{name}: {table} {e.get('id') or e.get('rule')} {e['path']}:{e['line']} -> {new}")
        if do_write and found:
            write(name, found)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
