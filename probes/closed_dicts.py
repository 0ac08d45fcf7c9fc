"""Dicts whose every key is known, for drift's inference (stdlib, Python 3.9+).

Why: `Server(engine=e, **opts)` hides which keywords reach the callee, so a parameter the target
now requires cannot be shown missing. When `opts` is a dict one function builds from literal keys
only (`opts = {}` / `{"k": v}` / `dict(k=v)`, then `opts["k"] = v`, `opts.update({...})`) and never
lets go of it otherwise (no non-literal key, no `**other` into it, not handed to any call but as
`**opts`, not rebound), its keys are all the keys it can have; a helper that returns such a dict
hands its caller a closed dict too (drift/consumer/infer.py follows the return).

Reads never open a dict (`opts.get("k")`, `opts.pop("k", None)`, `"k" in opts`, `opts["k"]`,
`.items()`): they can only take keys away, which makes a missing parameter more missing.
"""

import ast

from .astwalk import walk

_READS = ("get", "pop", "items", "keys", "values", "copy")


def closed_dicts(fn_body_nodes, scope, var_keyword=None):
    """([[root, [key, ...], line]] for the local dicts of one function (its own nodes, nested
    scopes left out) that only literal keys ever enter, [root, ...] of the locals something else
    may enter or that are handed on: a `**x` of those is not known whole, whatever x came from,
    and, for the function's own `**var_keyword` parameter, the literal keys its body adds (None
    when the body lets other keys in or hands the dict on): with every caller's keywords known,
    drift/consumer/infer.py closes it over the call graph)."""
    keys, line, opened, bound = {}, {}, set(), set()
    uses = {}
    if var_keyword:  # bound on entry, by the callers: its keys are theirs plus what the body adds
        bound.add(var_keyword)
        keys[var_keyword], line[var_keyword] = [], 0
    for node in fn_body_nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            for t in targets:
                if isinstance(t, ast.Name):
                    if t.id in bound:
                        opened.add(t.id)  # bound twice: which binding reaches a call is not followed
                    bound.add(t.id)
                    uses.setdefault(t.id, set()).add(id(t))
                    lits = _literal(value) if value is not None else None
                    if lits is not None:  # built here from literal keys; else it comes from elsewhere
                        keys[t.id], line[t.id] = list(lits), node.lineno
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    uses.setdefault(t.value.id, set()).add(id(t.value))
                    k = t.slice
                    if isinstance(k, ast.Constant) and isinstance(k.value, str) and t.value.id in keys:
                        keys[t.value.id].append(k.value)
                    else:
                        opened.add(t.value.id)  # a key drift does not know, or into a dict built elsewhere
                elif isinstance(t, (ast.Tuple, ast.List)):
                    for e in walk(t):
                        if isinstance(e, ast.Name):
                            opened.add(e.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            opened.add(node.target.id)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr, ast.withitem)):
            target = node.optional_vars if isinstance(node, ast.withitem) else node.target
            for e in walk(target) if target is not None else ():
                if isinstance(e, ast.Name):
                    opened.add(e.id)  # rebound by a loop, a with or `:=`
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name):
            name = node.func.value.id
            uses.setdefault(name, set()).add(id(node.func.value))
            if node.func.attr == "update":
                lits = _literal(node.args[0]) if len(node.args) == 1 and not node.keywords else \
                    [k.arg for k in node.keywords if k.arg] if not node.args and all(k.arg for k in node.keywords) else None
                if lits is None or name not in keys:
                    opened.add(name)
                else:
                    keys[name].extend(lits)
            elif node.func.attr not in _READS:
                opened.add(name)
        if isinstance(node, ast.Call):
            for k in node.keywords:
                if k.arg is None and isinstance(k.value, ast.Name):
                    uses.setdefault(k.value.id, set()).add(id(k.value))  # `f(**d)`: read, not handed on
    harmless = _harmless_mentions(fn_body_nodes)
    for node in fn_body_nodes:  # any other mention hands the dict somewhere drift does not follow
        if isinstance(node, ast.Name) and node.id in bound and id(node) not in uses.get(node.id, ()):
            if id(node) not in harmless:
                opened.add(node.id)
    out, written = [], []
    own_keys = sorted(set(keys[var_keyword])) if var_keyword and var_keyword not in opened else None
    for name in bound | opened:
        if name == var_keyword and name not in opened:
            continue  # closed only when its callers are: not a dict the function builds itself
        root = scope.root(name)
        if not (root and root.startswith("var:")):
            continue
        if name in opened:
            written.append(root)  # keys enter it that drift does not know (or it is handed on)
        elif name in keys:
            out.append([root, sorted(set(keys[name])), line.get(name, 0)])
    return sorted(out), sorted(set(written)), own_keys


def _literal(value):
    """The keys of `{}`, `{"k": v}` or `dict(k=v)` (None for anything else)."""
    if isinstance(value, ast.Dict):
        if any(k is None or not (isinstance(k, ast.Constant) and isinstance(k.value, str)) for k in value.keys):
            return None
        return [k.value for k in value.keys]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
            and not value.args and all(k.arg for k in value.keywords):
        return [k.arg for k in value.keywords]
    return None


def _harmless_mentions(nodes):
    """The ids of the names among `nodes` mentioned where they neither write the dict nor hand it
    on: `return d` (the caller gets it, and follows it), `d["k"]` / `"k" in d` / `if d:` reads.

    Read off those four parents' own fields, not off a map of every node's parent: building
    that map (`ast.iter_child_nodes` of every node of every function) was a third of this
    module's time in a cold usage read (vllm-omni 0.22)."""
    out = set()
    for node in nodes:
        if isinstance(node, ast.Return):
            mentioned = (node.value,)
        elif isinstance(node, ast.Subscript):
            mentioned = (node.value,) if isinstance(node.ctx, ast.Load) else ()
        elif isinstance(node, ast.Compare):
            mentioned = node.comparators
        elif isinstance(node, (ast.If, ast.While)):
            mentioned = (node.test,)
        else:
            continue
        out.update(id(m) for m in mentioned if isinstance(m, ast.Name))
    return out
