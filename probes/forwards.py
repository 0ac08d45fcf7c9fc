"""Arguments a function hands on whole through its own `*args` / `**kwargs` (stdlib, 3.9+).

`def __init__(self, *args, **kwargs): super().__init__(*args, **kwargs)` and a factory's
`return manager_class(spec, **kwargs)` pass their callers' keywords to a callable the caller
never names. What reaches that callable is the caller's keywords, less the keys the function
pops or deletes, plus the keys it sets: recorded here so drift can check the callers' calls
against the callable's signature. A `**kwargs` the function changes in any other way (`update`,
handed to another function, rebound) is opaque and nothing is recorded.
"""

import ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_READS = ("get", "keys", "items", "values", "copy", "__contains__")
MAX_KEYS = 40


def _str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def kwargs_changes(fn, name):
    """(drops, adds) of the dict `name` in `fn`'s body, or None when it is changed opaquely."""
    parents = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    drops, adds = [], []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        if not isinstance(node.ctx, ast.Load):
            return None  # `kwargs = {...}`: rebound
        up = parents.get(id(node))
        if isinstance(up, ast.keyword) and up.arg is None:
            continue  # `**kwargs` passed on
        if isinstance(up, ast.Compare) and up.left is not node:
            continue  # `"k" in kwargs`
        if isinstance(up, ast.Subscript) and up.value is node:
            key = _str(up.slice)
            if isinstance(up.ctx, ast.Load):
                continue
            if key is None:
                return None
            (drops if isinstance(up.ctx, ast.Del) else adds).append(key)
            continue
        if isinstance(up, ast.Attribute) and up.value is node:
            call = parents.get(id(up))
            if not (isinstance(call, ast.Call) and call.func is up):
                return None
            if up.attr in _READS:
                continue
            if up.attr in ("pop", "setdefault") and call.args and _str(call.args[0]) is not None:
                (drops if up.attr == "pop" else adds).append(_str(call.args[0]))
                continue
            return None
        return None  # handed to something that may change it
    return sorted(set(drops))[:MAX_KEYS], sorted(set(adds))[:MAX_KEYS]


def star_forwarding(fn, call):
    """How a call inside `fn` passes on fn's own `*args` / `**kwargs`: {"args": bool, "kwargs":
    bool, "drops": [...], "adds": [...]}, or None when no starred argument of the call is one of
    them whole (or another one is unknown, or the dict is changed opaquely)."""
    if not isinstance(fn, _FUNCS):
        return None
    va = fn.args.vararg.arg if fn.args.vararg else None
    kw = fn.args.kwarg.arg if fn.args.kwarg else None
    fa = fk = False
    for a in call.args:
        if isinstance(a, ast.Starred):
            if va is not None and isinstance(a.value, ast.Name) and a.value.id == va:
                fa = True
            else:
                return None
    for k in call.keywords:
        if k.arg is None:
            if kw is not None and isinstance(k.value, ast.Name) and k.value.id == kw:
                fk = True
            else:
                return None
    if not (fa or fk):
        return None
    drops, adds = [], []
    if fk:
        changes = kwargs_changes(fn, kw)
        if changes is None:
            return None
        drops, adds = changes
    return {"args": fa, "kwargs": fk, "drops": drops, "adds": adds}


def _returned_names(fn):
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            out.add(node.value.id)
    return out


def kwargs_forwards(fn, text_of):
    """Calls `fn` makes with its own `**kwargs` passed on: [{"line", "callee" (its source),
    "positional", "keywords", "star_args", "drops", "adds", "returned"}] ("returned": the call's
    value is what fn returns, so its return annotation names what the call builds)."""
    kw = fn.args.kwarg.arg if fn.args.kwarg else None
    if kw is None:
        return []
    returned = _returned_names(fn)
    out = []
    changes = None
    for node in ast.walk(fn):
        value, holder = None, None
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
            value = node.value
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1:
            value = node.value
            holder = node.targets[0].id if isinstance(node.targets[0], ast.Name) else None
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            value = node.value
        if value is None or not any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kw
                                    for k in value.keywords):
            continue
        if any(k.arg is None and not (isinstance(k.value, ast.Name) and k.value.id == kw) for k in value.keywords):
            continue
        if changes is None:
            changes = kwargs_changes(fn, kw)
            if changes is None:
                return []
        out.append({"line": value.lineno, "callee": text_of(value.func),
                    "positional": sum(1 for a in value.args if not isinstance(a, ast.Starred)),
                    "star_args": any(isinstance(a, ast.Starred) for a in value.args),
                    "keywords": [k.arg for k in value.keywords if k.arg],
                    "drops": changes[0], "adds": changes[1],
                    "returned": isinstance(node, ast.Return) or (holder is not None and holder in returned)})
        if len(out) >= 8:
            break
    return out
