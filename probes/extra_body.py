"""Keys a consumer sends in an HTTP request's `extra_body` (stdlib, Python 3.9+).

A consumer of an OpenAI-compatible server (vLLM's) never imports the server: it sends the server's
own request fields as string keys, `client.chat.completions.create(..., extra_body={"guided_json":
schema})`. The server parses them into its request models and drops a key none of them has any
more, so a field the server removed silently stops the consumer's constraint. No import, no call
of the target: only these keys say what the consumer relies on. drift compares them with the
field names of the server's request models (drift/analysis/rules/vllm/request_fields.py).

Recorded: ``extra_body`` [[key, line, col]], each string key of a dict that reaches a value named
`extra_body`: the keyword of any call (`f(extra_body=...)`) or a dict's key (`{"extra_body": ...}`,
`params["extra_body"] = ...`, then `f(**params)`). The dict is a literal (`{...}`, `dict(k=v)`,
`{**base, "k": v}`) or a name of the same function bound to one, keys added by `d["k"] = v`,
`d.update(...)` and `d.setdefault("k", ...)` included (names bound at module level as a fallback), or
the return of a function of the same module, found by its name, that returns such dicts
(`extra_body.update(self.adapter.format_output_type(t))`).
"""

import ast

NAME = "extra_body"


def _scopes(tree):
    """The module's body and each function's, every node attributed to its innermost one."""
    out = [(tree, [])]
    stack = [(tree, out[0][1])]
    while stack:
        node, nodes = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                mine = []
                out.append((child, mine))
                stack.append((child, mine))
            else:
                nodes.append(child)
                stack.append((child, nodes))
    return out


def _const_key(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _literal(node, bound, returns=None):
    """[[key, line, col]] of a dict written as a literal, of a name bound to one, or of a call of
    a function of this module (by its name: `self.adapter.format(...)`) whose returns are such
    dicts; None otherwise."""
    if isinstance(node, ast.Dict):
        keys = []
        for k, v in zip(node.keys, node.values):
            if k is None:  # `{**base, ...}`: base's keys when it is a name bound here
                keys.extend(_literal(v, bound, returns) or [])
            elif _const_key(k) is not None:
                keys.append([k.value, k.lineno, k.col_offset])
        return keys
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        keys = [[kw.arg, kw.value.lineno, max(kw.value.col_offset - len(kw.arg) - 1, 0)]
                for kw in node.keywords if kw.arg]
        for arg in node.args[:1]:
            keys.extend(_literal(arg, bound, returns) or [])
        return keys
    if isinstance(node, ast.Call) and returns:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        return returns.get(name)
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    return None


def _returned(scopes, module_bound):
    """function name -> the keys of the dicts its `return`s give (every function of the module
    with that name together): a helper that builds the request fields and hands them back."""
    out = {}
    for scope, nodes in scopes[1:]:
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        bound = dict(module_bound, **_bindings(nodes, module_bound))
        for node in nodes:
            if isinstance(node, ast.Return) and node.value is not None:
                keys = _literal(node.value, bound)
                if keys:
                    out.setdefault(scope.name, []).extend(keys)
    return out


def _bindings(nodes, outer, returns=None):
    """name -> keys of the dicts a scope binds to it (every binding's keys together)."""
    bound = {}
    view = dict(outer)
    ordered = sorted((n for n in nodes if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))
    for node in ordered:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            keys = _literal(node.value, view, returns)
            for t in targets:
                if isinstance(t, ast.Name) and keys is not None:
                    bound.setdefault(t.id, []).extend(keys)
                    view[t.id] = bound[t.id]
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    key = _const_key(t.slice)  # Python 3.9+: the slice is the expression itself
                    if key is not None and key != NAME:
                        bound.setdefault(t.value.id, []).append([key, t.slice.lineno, t.slice.col_offset])
                        view[t.value.id] = bound[t.value.id]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.attr in ("update", "setdefault"):
            name = node.func.value.id
            keys = []
            if node.func.attr == "update":
                for arg in node.args[:1]:
                    keys.extend(_literal(arg, view, returns) or [])
                keys.extend([kw.arg, kw.value.lineno, max(kw.value.col_offset - len(kw.arg) - 1, 0)]
                            for kw in node.keywords if kw.arg)
            elif node.args and _const_key(node.args[0]) is not None:
                keys.append([node.args[0].value, node.args[0].lineno, node.args[0].col_offset])
            if keys:
                bound.setdefault(name, []).extend(keys)
                view[name] = bound[name]
    return bound


def extra_body_keys(tree):
    """[[key, line, col]] of every key that reaches a value named `extra_body` (module docstring)."""
    scopes = _scopes(tree)
    module_bound = _bindings(scopes[0][1], {})
    returns = _returned(scopes, module_bound)
    out = []
    seen = set()

    def add(keys):
        for key, line, col in keys or ():
            if (key, line, col) not in seen:
                seen.add((key, line, col))
                out.append([key, line, col])

    for i, (_scope, nodes) in enumerate(scopes):
        bound = module_bound if i == 0 else dict(module_bound, **_bindings(nodes, module_bound, returns))
        for node in nodes:
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == NAME:
                        add(_literal(kw.value, bound, returns))
            elif isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values):
                    if k is not None and _const_key(k) == NAME:
                        add(_literal(v, bound, returns))
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Subscript):
                        if _const_key(t.slice) == NAME:
                            add(_literal(node.value, bound, returns))
    out.sort(key=lambda r: (r[1], r[2], r[0]))
    return out
