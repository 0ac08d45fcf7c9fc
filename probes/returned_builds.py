"""What a method hands back when it builds it in its `return`: `return Stats(data=d)`, or a local
bound only to such a construction and then returned.

Why: vLLM calls methods on what a consumer's override returns (`stats = connector.get_stats();
stats.is_empty()`). When the override builds a plain instance of a vLLM class whose method is a
stub meant for subclasses, the first release whose caller calls that method fails at the
override's `return`. The class the value is built from, and the line it is built on, are the
consumer-side half of that check (drift/analysis/rules/returned_stubs.py holds the other half).
"""

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_nodes(fn):
    """The function's own statements and expressions, not those of nested scopes."""
    stack = [n for n in fn.body if not isinstance(n, _SCOPES)]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, _SCOPES):
                stack.append(child)


def returned_builds(fn, path_of):
    """[[callee path, line], ...] of the constructions `fn` returns. `path_of(node)` gives the
    callee's path (a list) or None; paths it does not give are left out."""
    assigns, returns = {}, []
    for n in _own_nodes(fn):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    assigns.setdefault(t.id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
            assigns.setdefault(n.target.id, []).append(n.value)
        elif isinstance(n, ast.Return) and n.value is not None:
            returns.append(n.value)
    out = []
    for value in returns:
        if isinstance(value, ast.Name):
            bound = assigns.get(value.id) or []
            value = bound[0] if len(bound) == 1 else None
        if isinstance(value, ast.Call):
            p = path_of(value.func)
            if p:
                row = [list(p), value.lineno]
                if row not in out:
                    out.append(row)
    return out
