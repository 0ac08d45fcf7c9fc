"""Namespaces a consumer builds by hand, `argparse.Namespace(a=1, b=2)`, and the fields each holds (stdlib, 3.9+).

Why: a script that drives vLLM's entry points without its argument parser builds the Namespace
itself and hands it to a vLLM function (`build_async_engine_client(args)`, `run_server(args)`).
The Namespace has only the fields the script set; when the target's function starts reading
`args.X` that the call never set, it fails inside vLLM with AttributeError, though no signature
changed. Recorded per function: each local bound once to `Namespace(k=v, ...)` (keyword names
only), with the fields later stored on it (`ns.x = ...`) and the lines of the calls it is handed to
(a call before the target's may fill it: drift then claims nothing); a namespace filled in a way
the probe cannot enumerate (`**kwargs`, `setattr`, `vars(ns)`, `ns.__dict__`) is left out.
"""

import ast

MAX_FIELDS = 200


def _is_namespace_call(node):
    if type(node) is not ast.Call:
        return False
    f = node.func
    name = f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else None
    return name == "Namespace" and not node.args and all(k.arg is not None for k in node.keywords)


def _functions(tree):
    out = []

    def walk(body, prefix):
        for node in body:
            if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef):
                out.append((prefix + node.name, node))
                walk(node.body, prefix + node.name + ".")
            elif type(node) is ast.ClassDef:
                walk(node.body, prefix + node.name + ".")

    walk(tree.body, "")
    return out


def built_namespaces(tree):
    """{function qualname: {local: {"fields": [...], "line": built at, "handed": [call lines]}}}
    (see the module docstring); "" for module level."""
    out = {}
    for qual, fn in [("", tree)] + _functions(tree):
        body = ast.Module(body=fn.body, type_ignores=[]) if qual else tree
        built, stores, opened, handed, at = {}, {}, set(), {}, {}
        for node in ast.walk(body):
            if qual == "" and type(node) in (ast.FunctionDef, ast.AsyncFunctionDef):
                continue
            t = type(node)
            if t is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
                name = node.targets[0].id
                stores[name] = stores.get(name, 0) + 1
                if _is_namespace_call(node.value):
                    built[name] = [k.arg for k in node.value.keywords]
                    at[name] = node.lineno
            elif t is ast.Name and type(node.ctx) is ast.Store:
                stores.setdefault(node.id, 0)
            elif t is ast.Call:
                f = node.func
                fname = f.id if type(f) is ast.Name else f.attr if type(f) is ast.Attribute else None
                if fname in ("setattr", "vars", "update") and node.args and type(node.args[0]) is ast.Name:
                    opened.add(node.args[0].id)
                if type(f) is ast.Attribute and type(f.value) is ast.Name and f.attr in ("update", "__setattr__"):
                    opened.add(f.value.id)
                for a in list(node.args) + [k.value for k in node.keywords]:
                    if type(a) is ast.Name:
                        handed.setdefault(a.id, []).append(node.lineno)
            elif t is ast.Attribute and type(node.value) is ast.Name and node.attr == "__dict__":
                opened.add(node.value.id)
        found = {}
        for name, fields in built.items():
            if stores.get(name) != 1 or name in opened:
                continue
            extra = [n.attr for n in ast.walk(body) if type(n) is ast.Attribute and type(n.ctx) is ast.Store
                     and type(n.value) is ast.Name and n.value.id == name]
            found[name] = {"fields": sorted(set(fields) | set(extra))[:MAX_FIELDS], "line": at[name],
                           "handed": sorted(set(handed.get(name, [])))}
        if found:
            out[qual] = found
    return out
