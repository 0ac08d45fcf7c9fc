"""Where consumer code splits a buffer along one axis: a pure function from a module's defs.

A layout contract (which axis of a KV cache holds K and V) is never written down in the
consumer; it shows only where the code splits the buffer: `k, v = x.unbind(0)`, `x[0]` / `x[1]`,
`x[:, 0]`, `k, v = x`, `x.chunk(2, 1)`. Those sites are recorded when the buffer is a parameter
of the function or was read from an attribute (`kv = layer.kv_cache[i]`), so a rule can tie the
buffer to the shape function that allocates it and ask whether the split axis still holds what
it held on the baseline. Stdlib only, Python 3.9+.
"""

import ast

from .astwalk import children
from .astwalk import int_constant as _int
from .astwalk import own_nodes as _own_nodes
from .astwalk import picks_one as _is_index

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_MAX_PER_FUNCTION = 40
_NOT_BUFFERS = frozenset({"shape"})  # `x.shape[0]` is a size, never a buffer


_NOT_OWN = _FUNCS + (ast.ClassDef, ast.expr_context)  # own functions; Load/Store hold nothing





def _full_slice(node):
    return isinstance(node, ast.Slice) and node.lower is None and node.upper is None and node.step is None


class _Subjects:
    """What a name or expression in one function is: a parameter, or read from an attribute."""

    def __init__(self, fnode):
        args = fnode.args
        positional = list(args.posonlyargs) + list(args.args)
        self.params = {a.arg: i for i, a in enumerate(positional)}
        self.params.update({a.arg: -1 for a in args.kwonlyargs})
        self.stores = {}  # name -> values of `name = value` (None: some other kind of store)
        for n in _own_nodes(fnode):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        self.stores.setdefault(t.id, []).append(n.value if len(n.targets) == 1 else None)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                self.stores.setdefault(n.id, [])
        for name, values in list(self.stores.items()):
            if not values:  # a for target, a with-as, a tuple unpacking: not one known value
                self.stores[name] = [None, None]

    def of(self, node, depth=0):
        """["param", index, name] or ["attr", name, subscripts below the attribute], or None."""
        if depth > 4:
            return None
        if isinstance(node, ast.Name):
            values = self.stores.get(node.id)
            if values is None:
                i = self.params.get(node.id)
                return ["param", i, node.id] if i is not None else None
            if None in values:
                return None
            found = [self.of(v, depth + 1) for v in values]  # one value, or the same one per branch
            return found[0] if all(f == found[0] for f in found) else None
        below = 0
        while isinstance(node, ast.Subscript) and _is_index(node.slice):
            node, below = node.value, below + 1
        if isinstance(node, ast.Attribute) and below <= 2 and node.attr not in _NOT_BUFFERS:
            return ["attr", node.attr, below]
        return None


def _axis_arg(call, position):
    """The axis a call names (`f(d)` at `position`, or `dim=d`), defaulting to 0."""
    for k in call.keywords:
        if k.arg == "dim":
            return _int(k.value)
    if len(call.args) > position:
        return _int(call.args[position])
    return 0


def _unpacked(parent):
    """How many names a split's result is unpacked into (`k, v = ...`), else None."""
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Tuple):
        return len(parent.targets[0].elts)
    return None


def _split(node, parent):
    """(buffer expression, form, axis, extra) when `node` splits a buffer along one axis."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not any(
            isinstance(a, ast.Starred) for a in node.args):
        name = node.func.attr
        if name == "unbind" and len(node.args) <= 1:
            return node.func.value, "unbind", _axis_arg(node, 0), _unpacked(parent)
        if name == "chunk" and node.args and _int(node.args[0]) == 2:
            return node.func.value, "chunk", _axis_arg(node, 1), _unpacked(parent)
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        sl = node.slice
        value = _int(sl)
        if value in (0, 1):
            return node.value, "index", 0, value
        if isinstance(sl, ast.Tuple) and len(sl.elts) >= 2:
            lead = 0
            while lead < len(sl.elts) and _full_slice(sl.elts[lead]):
                lead += 1
            if 0 < lead < len(sl.elts) and _int(sl.elts[lead]) in (0, 1) and all(
                    _full_slice(e) for e in sl.elts[lead + 1:]):
                return node.value, "index", lead, _int(sl.elts[lead])
        return None
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) \
            and len(node.targets[0].elts) == 2 and isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)):
        return node.value, "unpack", 0, 2
    return None


_SPLITTING = (ast.Call, ast.Subscript, ast.Assign)  # the only nodes `_split` can answer for


def axis_splits(functions):
    """{qualname: [[line, col, subject, form, axis, extra], ...]} for `functions`, the
    (qualname, class, node) triples of usage._functions. `extra` is the index picked (`index`),
    the names unpacked into (`unbind`, `chunk`, `unpack`) or None.

    One walk of each function's own nodes, in `_own_nodes`' order, each with its parent (a
    body statement has none): a parent map built first was a second walk of every function,
    ~40 % of a big consumer's usage read (vllm-omni: 3.9 s)."""
    out = {}
    skip = _NOT_OWN
    iter_children = children
    for qual, _cls, fnode in functions:
        subjects = None
        recs = []
        stack = [(n, None) for n in fnode.body]
        while stack:
            n, parent = stack.pop()
            for child in iter_children(n):
                if not isinstance(child, skip):
                    stack.append((child, n))
            if not isinstance(n, _SPLITTING):
                continue
            found = _split(n, parent)
            if found is None or found[2] is None or found[2] < 0:
                continue
            if subjects is None:
                subjects = _Subjects(fnode)
            subject = subjects.of(found[0])
            if subject is None:
                continue
            recs.append([n.lineno, n.col_offset, subject, found[1], found[2], found[3]])
        if recs:
            recs.sort(key=lambda r: (r[0], r[1]))
            out[qual] = recs[:_MAX_PER_FUNCTION]
    return out
