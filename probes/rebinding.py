"""Which binding of a function's local each use reads, where straight-line code rebinds it.

Why: the solver is flow-insensitive, so `args = DEFAULTS` ... `args = match(args)` ...
`Engine(**args)` let DEFAULTS' keys reach the call although the rebinding (a filter through the
callee's own fields) replaced them first. A statement of the function body itself (not inside a
branch, loop, `try` or `with`) runs exactly once and in order, so an assignment there to a name
already bound kills the earlier values for every use written after it: the name gets a new
version from that statement on (SSA without phi nodes: bindings inside a branch or loop stay in
the version current there, a union, as before).

Left unversioned (one root for the whole function, as before): a name a nested function, class
or lambda reads (it runs later, and may see any binding), and one `del`eted.
"""

from __future__ import annotations

import ast

from .astwalk import children, walk

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _inline(node):
    """`node` and what runs with it: nested functions, classes and lambdas left out."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in children(n):
            if not isinstance(child, _NESTED):
                todo.append(child)


def _closure_names(body):
    """Names read or written inside a nested function, class or lambda of `body`."""
    out = set()
    for st in body:
        for n in walk(st):
            if isinstance(n, _NESTED):
                for m in walk(n):
                    if isinstance(m, ast.Name):
                        out.add(m.id)
            elif isinstance(n, ast.Delete):
                out.update(t.id for t in n.targets if isinstance(t, ast.Name))
    return out


def versions(body, local, params):
    """{id(ast.Name node): version} for each use and binding of a local of `local` written after
    a rebinding at the top of `body` (version 0, the function's first binding, is left out)."""
    local = set(local)
    if not any(isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
               and st.targets[0].id in local for st in body):
        return {}  # no top-level rebinding of a local: nothing gets a version (the walks below are ~8 % of a read)
    keep = local - _closure_names(body)
    if not keep:
        return {}
    bound, current, out = set(params), {}, {}
    for st in body:
        target = None
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and st.targets[0].id in keep:
            target = st.targets[0]
        nodes = list(_inline(st))
        if current:  # no version yet: no use to mark
            for n in nodes:
                if isinstance(n, ast.Name) and n is not target and current.get(n.id):
                    out[id(n)] = current[n.id]
        if target is not None:
            if target.id in bound:
                current[target.id] = current.get(target.id, 0) + 1
                out[id(target)] = current[target.id]
            elif current.get(target.id):
                out[id(target)] = current[target.id]
        for n in nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                bound.add(n.id)
    return out
