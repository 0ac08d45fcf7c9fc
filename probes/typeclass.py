"""Classes a consumer builds at run time with `type(name, bases, namespace)` (stdlib, 3.9+).

A plugin that wraps its own model for vLLM often writes `Wrapper = type("W", (Model, nn.Module),
{"forward": fwd, "get_input_embeddings": emb})` and registers `Wrapper`. To vLLM that is a class
like any other: its methods are the namespace's entries. Recording it as a class lets every
interface rule (the methods vLLM now requires, new abstract methods, overrides) read it the
way it reads a `class` statement.
"""

import ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def type_call(value):
    """(bases node, namespace node) of a three-argument `type(...)` call, else None."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "type" \
            and len(value.args) == 3 and not value.keywords \
            and not any(isinstance(a, ast.Starred) for a in value.args):
        return value.args[1], value.args[2]
    return None


def dict_entries(value):
    """{key: (key node, value node)} of a dict literal or `dict(k=v)`; None when not one."""
    if isinstance(value, ast.Dict):
        out = {}
        for k, v in zip(value.keys, value.values):
            if k is None:
                return None  # {**other}: the entries are not all known
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                out[k.value] = (k, v)
        return out
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
            and not value.args and all(k.arg for k in value.keywords):
        return {k.arg: (k.value, k.value) for k in value.keywords}
    return None


def _lambda_signature(node, signature):
    """A lambda's parameters in the shape of a def's recorded signature."""
    fake = ast.FunctionDef(name="<lambda>", args=node.args, body=[], decorator_list=[], returns=None)
    fake.lineno, fake.col_offset = node.lineno, node.col_offset
    return signature(fake)


def type_class(*, ns_entries, bases, line, col, chain, function_of, signature):
    """The class record (the shape `class_record` writes) of a `type(...)` call.

    `ns_entries` is {key: (key node, value node)}; `function_of(name node)` finds the def a name
    in the namespace refers to; `signature(def)` is the probe's signature record. A method sits
    at its key in the namespace: that is where the name is given to the class."""
    base_nodes = bases.elts if isinstance(bases, (ast.Tuple, ast.List)) else [bases]
    base_paths = []
    for b in base_nodes:
        p = chain.of(b)
        base_paths.append(list(p) if p else None)
    methods, class_attrs = {}, {}
    for key, (knode, vnode) in ns_entries.items():
        fn = function_of(vnode) if isinstance(vnode, ast.Name) else None
        if fn is not None:
            sig = signature(fn)
        elif isinstance(vnode, ast.Lambda):
            sig = _lambda_signature(vnode, signature)
        else:
            p = chain.of(vnode)
            class_attrs[key] = {"line": knode.lineno, "path": list(p) if p else None}
            continue
        sig = dict(sig, line=knode.lineno, col=knode.col_offset)
        if fn is not None and key != getattr(fn, "name", key):
            sig["function"] = fn.name  # `"forward": unimplemented_forward`
        methods[key] = sig
    return {"line": line, "col": col, "bases": base_paths, "generic": [], "decorated_with": [],
            "methods": methods, "class_attrs": class_attrs, "self_attrs": {}, "built_with": "type"}


def class_refs(node, chain, own, foreign=()):
    """Consumer classes an argument names: the class itself (`register(Mine)`) or a string
    `"pkg.mod:Mine"` / `"pkg.mod.Mine"` inside the consumer's package `own`. A class imported
    from another top-level package (a tree whose `patch.py` registers `pkg.models.Mine`), and an
    explicit `"pkg.mod:Mine"` string, count too unless they are under one of the `foreign`
    (target) packages: drift keeps only the consumer's own classes among them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        colon = node.value.count(":") == 1
        text = node.value.replace(":", ".", 1) if colon else node.value
        parts = text.split(".")
        if len(parts) > 1 and all(p.isidentifier() for p in parts) and \
                (parts[0] == own or (colon and parts[0] not in foreign)):
            return text
        return None
    if isinstance(node, (ast.Name, ast.Attribute)):
        p = chain.of(node)
        if p and len(p) == 1 and p[0].startswith("sym:") and "." in p[0] \
                and p[0][4:].split(".")[0] not in foreign:
            return p[0][4:]
        if p and len(p) > 1 and p[0].startswith("sym:") and p[0][4:].split(".")[0] == own \
                and all(s[:1] == "." and s[1:].isidentifier() for s in p[1:]):
            return p[0][4:] + "".join(p[1:])  # `getattr(import_module("pkg.mod"), "Mine")`: pkg.mod.Mine
    return None
