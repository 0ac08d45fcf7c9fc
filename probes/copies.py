"""The statement shape of a function body: what tells a copy of a function from its original.

Why: consumers copy vLLM's code (a model runner's `initialize_kv_cache`, a LoRA manager's
`_load_adapter`) into their own classes, and when vLLM's version gains a step the copy silently
lacks it; no name, signature or import changes. To see that, drift compares the consumer's body
with the baseline's (is it a copy?) and the baseline's with the target's (what step is new?),
statement by statement, on both sides of the wire, without sending source.

A shape is one row per statement, in source order, nested bodies flattened after their header:
`[hash, line, calls, attributes]`. The hash is of the statement's AST with its nested bodies left out, local
names (parameters and names the function binds) and string constants blanked, so a renamed
local, a reworded message or a reformatted line is the same statement. `calls` names the callees
of the statement's own expressions (last dotted word), for a finding to say what the new step
does. Docstrings are skipped. Stdlib only, Python 3.9.
"""

import ast
import hashlib

MIN_STATEMENTS = 4  # a shorter body is too small to call a copy (a one-line forwarder)
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
_STMT = ast.stmt
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _bound_names(fn):
    """Parameters and names the function binds itself (its locals), nested functions included."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
    return out


def _key(node, local):
    """A canonical text of one node, nested statement lists left out."""
    if isinstance(node, ast.AST):
        if isinstance(node, ast.Name):
            return "N" if node.id in local else "N:" + node.id
        if isinstance(node, ast.arg):
            return "A"
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):  # a key or probed name counts; a message does not
                return "S:" + node.value if node.value.isidentifier() else "S"
            return "C:" + repr(node.value)
        if isinstance(node, ast.JoinedStr):
            return "F"
        parts = [type(node).__name__]
        for name, value in ast.iter_fields(node):
            if name in ("ctx", "type_comment") or (name in _BODIES and isinstance(value, list)):
                continue
            parts.append(name + "=" + _key(value, local))
        return "(" + " ".join(parts) + ")"
    if isinstance(node, list):
        return "[" + ",".join(_key(v, local) for v in node) + "]"
    return repr(node)


def _words(stmt, local):
    """What the statement's own expressions call and which attributes they read (last words, each
    sorted): `x.m()` calls `m`; `getattr(x, "a", None)` reads `a` as surely as `x.a` does."""
    calls, attrs = set(), set()
    stack = [value for name, value in ast.iter_fields(stmt) if name not in _BODIES]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, ast.AST) or isinstance(node, (_STMT,) + _FUNCS):
            continue
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) and f.id not in local else None
            if name:
                calls.add(name)
            if name in ("getattr", "hasattr", "setattr") and len(node.args) > 1:
                probed = node.args[1]
                if isinstance(probed, ast.Constant) and isinstance(probed.value, str):
                    attrs.add(probed.value)
        elif isinstance(node, ast.Attribute):
            attrs.add(node.attr)
        stack.extend(value for _, value in ast.iter_fields(node))
    return sorted(calls), sorted(attrs - calls)


def _is_docstring(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _row(text, line, words=((), ())):
    return [hashlib.md5(text.encode()).hexdigest()[:8], line, list(words[0]), list(words[1])]


def _walk(body, local, out):
    for i, stmt in enumerate(body):
        if i == 0 and _is_docstring(stmt):
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(_row(type(stmt).__name__ + ":" + stmt.name, stmt.lineno))
        else:
            out.append(_row(_key(stmt, local), stmt.lineno, _words(stmt, local)))
        for name in _BODIES:
            nested = getattr(stmt, name, None)
            if not isinstance(nested, list):
                continue
            for part in nested:
                if isinstance(part, _STMT):
                    _walk([part], local, out)
                else:  # an except handler or a match case: its own header row, then its body
                    head = getattr(part, "type", None) or getattr(part, "pattern", None)
                    out.append(_row("handler:" + _key(head, local), getattr(part, "lineno", stmt.lineno)))
                    _walk(part.body, local, out)


def statement_shape(fn):
    """`[[hash, line, calls, attributes], ...]` of a function's body, or None when it is too short to judge."""
    out = []
    _walk(fn.body, _bound_names(fn), out)
    return out if len(out) >= MIN_STATEMENTS else None
