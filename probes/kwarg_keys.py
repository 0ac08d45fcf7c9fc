"""The keys a method reads out of its own `**kwargs` by name (stdlib, Python 3.9+).

An override written `def __init__(self, *args, **kwargs)` that picks one setting out by string,
`kwargs.get("use_tpu_communicator", False)`, reads a keyword the target's callers pass by the
parameter's name. When the target renames that parameter (vLLM 0.7.3:
`use_tpu_communicator` -> `use_device_communicator`) nothing fails: the key never arrives and the
default is used. drift compares each key with the overridden method's parameters on both sides
(drift/analysis/rules/kwarg_keys.py); the probe records only the keys and where they are read.
"""

import ast

from .astwalk import walk

_READS = ("get", "pop", "setdefault")


def _key(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def kwarg_keys(fn):
    """[[key, line, col, how], ...] for each read of a string key of the function's `**name`
    parameter: `name.get("k")` / `.pop` / `.setdefault` ("get"), `name["k"]` loaded ("item"),
    `"k" in name` ("in"). Keys the function also stores (`name["k"] = v`) are its own: left out."""
    kw = fn.args.kwarg.arg if fn.args.kwarg is not None else None
    if kw is None:
        return []
    out, stored = [], set()
    for node in walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _READS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == kw and node.args:
            key = _key(node.args[0])
            if key is not None:
                out.append([key, node.lineno, node.col_offset, "get"])
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == kw:
            key = _key(node.slice)
            if key is None:
                continue
            if isinstance(node.ctx, ast.Load):
                out.append([key, node.lineno, node.col_offset, "item"])
            else:
                stored.add(key)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == kw:
            key = _key(node.left)
            if key is not None:
                out.append([key, node.lineno, node.col_offset, "in"])
    return [row for row in out if row[0] not in stored]
