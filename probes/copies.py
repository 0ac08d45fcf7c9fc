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
_AST = ast.AST
_Name, _arg, _Constant, _JoinedStr = ast.Name, ast.arg, ast.Constant, ast.JoinedStr
_Call, _Attribute, _Load, _Lambda = ast.Call, ast.Attribute, ast.Load, ast.Lambda
_SKIP = ("ctx", "type_comment")
_MISSING = object()
_PROBES = ("getattr", "hasattr", "setattr")


def _bound_names(fn):
    """Parameters and names the function binds itself (its locals), nested functions included.
    A plain stack over `_fields`: ast.walk's generators cost a third of the probe's time here."""
    out = set()
    stack = [fn]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        t = type(node)
        if t is _arg:
            out.add(node.arg)
        elif t is _Name:
            if type(node.ctx) is not _Load:
                out.add(node.id)
            continue
        for name in t._fields:
            v = getattr(node, name, None)
            if type(v) is list:
                extend(x for x in v if isinstance(x, _AST))
            elif isinstance(v, _AST):
                push(v)
    return out


def _note(node, local, calls, attrs):
    """Notes what one expression node calls (last dotted word) or reads: `x.m()` calls `m`;
    `getattr(x, "a", None)` reads `a` as surely as `x.a` does."""
    t = type(node)
    if t is _Call:
        f = node.func
        tf = type(f)
        name = f.attr if tf is _Attribute else f.id if tf is _Name and f.id not in local else None
        if name:
            calls.add(name)
        if name in _PROBES and len(node.args) > 1:
            probed = node.args[1]
            if type(probed) is _Constant and isinstance(probed.value, str):
                attrs.add(probed.value)
    elif t is _Attribute:
        attrs.add(node.attr)


def _words_only(node, local, calls, attrs):
    """Calls and reads below a node whose text is not spelled out (an f-string's values)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is list:
            stack.extend(n)
            continue
        if not isinstance(n, _AST) or isinstance(n, (_STMT,) + _FUNCS):
            continue
        _note(n, local, calls, attrs)
        stack.extend(value for _, value in ast.iter_fields(n))


def _scan(node, local, calls, attrs):
    """The canonical text of one node, nested statement lists left out, local names and string
    messages blanked; on the way, its calls and attribute reads go into `calls`/`attrs` (None
    below a lambda: a lambda's body is not a step the statement takes). One walk for both:
    the text and the words were two walks, half the probe's added cost on a vLLM tree."""
    t = type(node)
    if t is list:
        return "[" + ",".join([_scan(v, local, calls, attrs) for v in node]) + "]"
    if not isinstance(node, _AST):
        return repr(node)
    if t is _Name:
        return "N" if node.id in local else "N:" + node.id
    if t is _arg:
        return "A"
    if t is _Constant:
        v = node.value
        if isinstance(v, str):
            return "S:" + v if v.isidentifier() else "S"
        return "C:" + repr(v)
    if t is _JoinedStr:
        if calls is not None:
            _words_only(node, local, calls, attrs)
        return "F"
    if calls is not None:
        if t is _Lambda or isinstance(node, _STMT) or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            calls = attrs = None
        else:
            _note(node, local, calls, attrs)
    parts = [t.__name__]
    for name in t._fields:
        if name in _SKIP:
            continue
        value = getattr(node, name, _MISSING)
        if value is _MISSING or (name in _BODIES and type(value) is list):
            continue
        parts.append(name + "=" + _scan(value, local, calls, attrs))
    return "(" + " ".join(parts) + ")"


def _stmt_row(stmt, local):
    """`[hash, line, calls, attributes]` of one statement, its nested bodies left out."""
    calls, attrs = set(), set()
    t = type(stmt)
    parts = [t.__name__]
    for name in t._fields:
        if name in _SKIP:
            continue
        value = getattr(stmt, name, _MISSING)
        if value is _MISSING:
            continue
        if name in _BODIES:
            if type(value) is list:
                continue
            # a non-list field named like a body: part of the text, not of the words
            parts.append(name + "=" + _scan(value, local, None, None))
            continue
        parts.append(name + "=" + _scan(value, local, calls, attrs))
    text = "(" + " ".join(parts) + ")"
    return [hashlib.md5(text.encode()).hexdigest()[:8], stmt.lineno, sorted(calls), sorted(attrs - calls)]


def _key(node, local):
    """The canonical text alone (an except handler's or a match case's header)."""
    return _scan(node, local, None, None)


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
            out.append(_stmt_row(stmt, local))
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
