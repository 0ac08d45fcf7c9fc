"""Parameters a function still treats as strings: where a value the caller hands in must be a `str` (stdlib, 3.9+).

Why: a target may retype an attribute from `str` to a plain Enum (`self.activation =
MoEActivation.from_str(activation)`). A consumer that never compares the value with a string but
hands it on (`op(activation=layer.activation)`) breaks where its own code uses it as text: a native
op whose schema wants a string (`torch.ops.<ns>.<op>(..., activation=activation)`), an f-string, a
`str` method, a lookup in a table keyed by strings. This module records, per function, the
parameters declared as strings (a string default, or a `str` annotation) and the first such use
of each, so drift can follow an Enum-valued read through the consumer's calls to it
(drift/analysis/rules/enum_sinks.py). A parameter the function rebinds is left out: its later
uses are of another value.

Relation (probes/ir.py): ``strparam`` [[function qual, parameter, sink kind, line]], sink kind one
of "native op", "f-string", "str method", "str-keyed table".
"""

import ast

# methods only `str` has (not shared with bytes-free containers such as list: `index`, `count`)
_STR_METHODS = frozenset({
    "lower", "upper", "casefold", "capitalize", "title", "swapcase", "strip", "lstrip", "rstrip",
    "startswith", "endswith", "split", "rsplit", "splitlines", "partition", "rpartition", "replace",
    "format", "format_map", "encode", "isdigit", "isalpha", "isalnum", "isidentifier", "zfill",
    "removeprefix", "removesuffix", "ljust", "rjust", "center", "expandtabs",
})


def _declared_str(p, default):
    """A `str` annotation (`Optional[str]`, `str | None` too) or a string-literal default."""
    if isinstance(default, ast.Constant) and isinstance(default.value, str):
        return True
    ann = p.annotation
    if ann is None:
        return False
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        text = ann.value.replace(" ", "")
        return text in ("str", "Optional[str]", "str|None", "None|str")
    if isinstance(ann, ast.Name):
        return ann.id == "str"
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        sides = [ann.left, ann.right]
        return any(isinstance(s, ast.Name) and s.id == "str" for s in sides) and all(
            (isinstance(s, ast.Name) and s.id == "str") or (isinstance(s, ast.Constant) and s.value is None)
            for s in sides)
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute)):
        head = ann.value.id if isinstance(ann.value, ast.Name) else ann.value.attr
        return head == "Optional" and isinstance(ann.slice, ast.Name) and ann.slice.id == "str"
    return False


def _chain(node):
    """`a.b.c` as ["a", "b", "c"]; a call's subscript-free callee only; None otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id] + parts[::-1]


def _native_op(func, module_of):
    """`torch.ops.<ns>.<op>` (an overload `.default` too) where `torch` is the imported module:
    an operator registered in C++, whose schema types every argument."""
    chain = _chain(func)
    if not chain or len(chain) < 4:
        return False
    return module_of(chain[0]) == "torch" and chain[1] == "ops"


def str_keyed_tables(body):
    """Names bound (at the top of `body`) to a dict literal whose keys are all string literals."""
    out = set()
    for st in body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(st.value, ast.Dict) and st.value.keys \
                and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in st.value.keys):
            for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                if isinstance(t, ast.Name):
                    out.add(t.id)
    return out


def str_sinks(fn, own, params, module_of, tables=frozenset()):
    """[[parameter, sink kind, line]] for `fn`'s string-declared parameters used as text in `own`
    (its nodes outside nested scopes). `params`: [(arg, default node, kind)]; `module_of(name)`:
    the module a name of this module is imported as, or None; `tables`: names of str-keyed dicts."""
    wanted = {p.arg for p, d, kind in params if kind not in ("VAR_POSITIONAL", "VAR_KEYWORD") and _declared_str(p, d)}
    if not wanted:
        return []
    rebound = {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    wanted -= rebound
    tables = set(tables) | str_keyed_tables(getattr(fn, "body", []))
    found = {}

    def hit(node, kind, line):
        if isinstance(node, ast.Name) and node.id in wanted and node.id not in found:
            found[node.id] = [node.id, kind, line]

    for n in own:
        if isinstance(n, ast.Call):
            if _native_op(n.func, module_of):
                for a in list(n.args) + [k.value for k in n.keywords]:
                    hit(a, "native op", n.lineno)
            elif isinstance(n.func, ast.Attribute) and n.func.attr in _STR_METHODS:
                hit(n.func.value, "str method", n.lineno)
        elif isinstance(n, ast.FormattedValue):
            hit(n.value, "f-string", n.value.lineno)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in tables:
            hit(n.slice, "str-keyed table", n.lineno)
    return sorted(found.values(), key=lambda r: (r[2], r[0]))
