"""The attributes a function reads on each of its parameters, anywhere in its body (stdlib, 3.9+).

Why: a consumer hands vLLM an object of its own that does not extend the class vLLM's parameter
is annotated with (a small adapter that duck-types `Request` for `KVCacheManager.allocate_slots`).
It works for as long as vLLM reads only what the stand-in has. When the target's body starts
reading one more attribute on that parameter (`request.num_in_flight_tokens`), the stand-in fails
inside vLLM with an AttributeError, though no signature changed. `param_derefs` keeps only the
first dereference on every path; this keeps every attribute read (and method called) on the
parameter, with its first line, whatever the path.

A parameter the body rebinds (`p = p or default`, `for p in ...`, a nested function's parameter
of the same name) is left out: what the body reads then may be another object.
"""

import ast

_MAX_ATTRS = 48  # per parameter: a function reading more treats the parameter as a whole object


def param_attr_reads(fn, names):
    """{param: {attr: first line}} of `p.attr` loads (calls `p.m(...)` included) in `fn`'s body,
    for the parameters in `names` the body never rebinds; absent parameters read nothing."""
    wanted = set(names)
    if not wanted:
        return {}
    reads = {}
    rebound = set()
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        t = type(node)
        if t is ast.Attribute and type(node.value) is ast.Name and node.value.id in wanted \
                and type(node.ctx) is ast.Load:
            seen = reads.setdefault(node.value.id, {})
            line = node.lineno
            if node.attr not in seen or line < seen[node.attr]:
                seen[node.attr] = line
        elif t is ast.Name and node.id in wanted and type(node.ctx) is not ast.Load:
            rebound.add(node.id)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            a = node.args
            for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                if arg is not None and arg.arg in wanted:
                    rebound.add(arg.arg)
        elif t is ast.Global or t is ast.Nonlocal:
            rebound.update(n for n in node.names if n in wanted)
        stack.extend(ast.iter_child_nodes(node))
    out = {}
    for name in names:
        attrs = reads.get(name)
        if attrs and name not in rebound and len(attrs) <= _MAX_ATTRS:
            out[name] = dict(sorted(attrs.items()))
    return out
