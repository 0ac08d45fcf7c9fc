"""Dicts a class keeps on `self` and fills across its methods (stdlib, Python 3.9+).

Why: `self.model_args = {"model": m, ...}` in `__init__`, `self.model_args["old_flag"] = True` in
another branch or method, then `LLM(**self.model_args)`: every key written literally into that
attribute is passed to the callee, whichever method wrote it (the same object reaches the call).
The keys are only some of what the dict may hold (`self.model_args.update(kwargs)`, writes from
outside the class), so a call that splats it stays open for "now requires" reasoning; a key the
target no longer takes is a break at the line where the key is written.
"""

import ast

from .astwalk import walk

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _literal_keys(value):
    """{key: [line, col]} of `{"k": v}` or `dict(k=v)`, else None."""
    if isinstance(value, ast.Dict):
        return {k.value: [k.lineno, k.col_offset] for k in value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" and not value.args:
        return _keyword_keys(value.keywords)
    return None


def _keyword_keys(keywords):
    """{key: [line, col]} of `k=v` keywords (`dict(k=v)`, `.update(k=v)`), at the keyword's name."""
    return {k.arg: [k.value.lineno, max(k.value.col_offset - len(k.arg) - 1, 0)] for k in keywords if k.arg}


def _string_key(target, me):
    """(attr, key) of `<me>.attr["key"]`, else None."""
    attr = _self_attr(target.value, me) if isinstance(target, ast.Subscript) else None
    if attr and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
        return attr, target.slice
    return None


def _self_attr(node, me):
    """`attr` of `<me>.attr`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me:
        return node.attr
    return None


def attribute_dicts(classdef):
    """{attr: {key: [line, col]}} for each attribute of `self` some method of the class binds to a
    dict literal, with every string key written into it anywhere in the class (the literal,
    `self.attr["k"] = v`, `self.attr.update({"k": v})` / `.update(k=v)`), first write kept; a key
    some method takes out (`self.attr.pop("k")`, `del self.attr["k"]`) may not reach a call and is left out."""
    literal, keys, dropped = set(), {}, set()
    for fn in classdef.body:
        if not isinstance(fn, _FUNCS) or not fn.args.args:
            continue
        me = fn.args.args[0].arg
        for node in walk(fn):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    attr = _self_attr(t, me)
                    found = _literal_keys(node.value) if attr else None
                    if found is not None:
                        literal.add(attr)
                        for k, pos in found.items():
                            keys.setdefault(attr, {}).setdefault(k, pos)
                    sub = _string_key(t, me)
                    if sub:
                        keys.setdefault(sub[0], {}).setdefault(sub[1].value, [sub[1].lineno, sub[1].col_offset])
            elif isinstance(node, ast.Delete):
                for t in node.targets:
                    sub = _string_key(t, me)
                    if sub:
                        dropped.add((sub[0], sub[1].value))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" \
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                attr = _self_attr(node.func.value, me)
                if attr:
                    dropped.add((attr, node.args[0].value))  # taken out somewhere: it may not reach the call
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update":
                attr = _self_attr(node.func.value, me)
                if not attr:
                    continue
                found = _literal_keys(node.args[0]) if len(node.args) == 1 else _keyword_keys(node.keywords)
                for k, pos in (found or {}).items():
                    keys.setdefault(attr, {}).setdefault(k, pos)
    out = {}
    for attr in sorted(literal):
        kept = {k: pos for k, pos in keys.get(attr, {}).items() if (attr, k) not in dropped}
        if kept:
            out[attr] = kept
    return out
