"""Where Python joins values: what an expression or a local may hold, each candidate once (stdlib, 3.9+).

Why: a consumer picks its replacement for a target method by the vLLM version, as
`patch(path, fn_new if new else fn_old)` or with a local set in each branch of an `if`/`elif`/`else`
or `try`/`except` (`chosen = fn_new` ... `patch(path, chosen)`). Python binds whichever arm runs;
the probe does not know which, so each arm is a value the installation may bind, and each is held
to the target it replaces. Flow-insensitive, as drift's solver is: every assignment of a local in
the function is a value the local may hold at any read.
"""

import ast

MAX_DEPTH = 4
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def alternatives(node, depth=0):
    """The expressions a value may be: each branch of `a if c else b`, each operand of `a or b`
    (`a and b`), nested; the value itself otherwise."""
    if depth < MAX_DEPTH and isinstance(node, ast.IfExp):
        return alternatives(node.body, depth + 1) + alternatives(node.orelse, depth + 1)
    if depth < MAX_DEPTH and isinstance(node, ast.BoolOp):
        return [a for v in node.values for a in alternatives(v, depth + 1)]
    return [node]


def local_values(fn, name):
    """The expressions the local `name` of function `fn` is assigned anywhere in its own body
    (every branch, `try` and `except` alike), each through `alternatives`; [] when `name` is never
    assigned there (a parameter, a global)."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    out, todo = [], list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                out += alternatives(node.value)
        todo.extend(ast.iter_child_nodes(node))
    return out


def candidates(value, fn):
    """What an installed value may be: the arms of a join, and for a bare local of `fn` (not
    itself a join) each value it is assigned; the value itself when it is neither."""
    out = []
    for alt in alternatives(value):
        held = local_values(fn, alt.id) if isinstance(alt, ast.Name) else []
        for v in held or [alt]:
            if not any(v is o for o in out):
                out.append(v)
    return out
