"""Where consumer code reads the shape of a buffer it was handed, and where it hands one on.

A KV connector never writes down which layout it expects: it shows only where it reads a size
by position (`kv.shape[1]`, `kv.size(1)`, `num_blocks, bs, h, d = kv.shape`) or checks the rank
(`assert kv.ndim == 5`). Those reads are recorded when the buffer is a parameter of the function,
an element of one (`for name, t in caches.items()`, `d[name] = t`, `list(d.values())[0]`), or a
layer's `kv_cache` attribute (`getattr(layer, "kv_cache", None)`), so a rule can tie the buffer to
the attention backend's `get_kv_cache_shape` on both sides. The calls that hand such a buffer to
another function of the consumer (`self._extract(kv_layer)`, `self.connector.register(caches)`)
are recorded too: drift follows the buffer into the callee. Stdlib only, Python 3.9+.
"""

import ast
import builtins

from .astwalk import children
from .astwalk import int_constant as _int
from .astwalk import own_nodes as _own_nodes
from .astwalk import picks_one as _is_index

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_NOT_OWN = _FUNCS + (ast.ClassDef, ast.expr_context)
_MAX_PER_FUNCTION = 24
_LAYER_BUFFERS = frozenset({"kv_cache"})  # the attribute vLLM binds a layer's KV buffer to
_SAME_LEVEL = frozenset({"list", "tuple", "iter", "sorted"})  # a collection of the same elements
_MAX_DEPTH = 6




def _is_self(node):
    """`self.kv_cache` is the consumer's own attribute, not a vLLM layer's buffer."""
    return isinstance(node, ast.Name) and node.id == "self"


def _empty_container(node):
    if isinstance(node, (ast.Dict, ast.List, ast.Tuple)):
        return not (getattr(node, "keys", None) or getattr(node, "elts", None))
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
        "dict", "list") and not node.args and not node.keywords



class _Buffers:
    """What a name or expression of one function holds, as a buffer subject:
    ["param", index, name, depth] or ["attr", name, depth], where depth counts the element
    steps taken below the parameter or attribute (`caches` 0, a value of `caches` 1)."""

    def __init__(self, fnode):
        args = fnode.args
        positional = list(args.posonlyargs) + list(args.args)
        self.params = {a.arg: i for i, a in enumerate(positional)}
        self.sources = {}  # name -> [(how, expr)]: "value", "elem" (for target), "holds" (d[k] = v)
        for n in _own_nodes(fnode):
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                t = n.targets[0]
                if isinstance(t, ast.Name):
                    self._add(t.id, "value", n.value)
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    self._add(t.value.id, "holds", n.value)
                else:
                    self._store_names(t)
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                self._add(n.target.id, "value", n.value)
            elif isinstance(n, (ast.For, ast.AsyncFor)):
                self._for_target(n.target, n.iter)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                    and isinstance(n.func.value, ast.Name) and len(n.args) == 1:
                self._add(n.func.value.id, "holds", n.args[0])
            elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                self.sources.setdefault(n.id, [])

    def _add(self, name, how, expr):
        self.sources.setdefault(name, []).append((how, expr))

    def _store_names(self, target):
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                self._add(sub.id, "other", None)

    def _for_target(self, target, it):
        """`for t in X`, `for t in X.values()`: t is an element of X; `for k, t in X.items()`: so is t."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
            if it.func.attr == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                self._store_names(target.elts[0])
                if isinstance(target.elts[1], ast.Name):
                    self._add(target.elts[1].id, "elem", it.func.value)
                    return
            elif it.func.attr == "values" and isinstance(target, ast.Name):
                self._add(target.id, "elem", it.func.value)
                return
        if isinstance(target, ast.Name):
            self._add(target.id, "elem", it)
            return
        self._store_names(target)

    def of(self, node, depth=0, seen=()):
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Name):
            srcs = self.sources.get(node.id)
            if srcs is None:
                i = self.params.get(node.id)
                return ["param", i, node.id, 0] if i is not None else None
            if node.id in seen or not srcs:
                return None
            seen = seen + (node.id,)
            found = []
            for how, expr in srcs:
                if how == "other":
                    return None
                if how == "value" and (expr is None or _empty_container(expr)):
                    continue  # `d = {}` before `d[k] = t`
                sub = self.of(expr, depth + 1, seen)
                if sub is None:
                    return None
                step = {"value": 0, "elem": 1, "holds": -1}[how]
                found.append(sub[:-1] + [sub[-1] + step])
            if not found or any(f != found[0] for f in found):
                return None
            return found[0]
        if isinstance(node, ast.Subscript) and _is_index(node.slice):
            sub = self.of(node.value, depth + 1, seen)
            return sub[:-1] + [sub[-1] + 1] if sub else None
        if isinstance(node, ast.Call) and not node.keywords:
            f = node.func
            if isinstance(f, ast.Name) and f.id in _SAME_LEVEL and len(node.args) == 1:
                return self.of(node.args[0], depth + 1, seen)
            if isinstance(f, ast.Attribute) and f.attr == "values" and not node.args:
                return self.of(f.value, depth + 1, seen)
            if isinstance(f, ast.Name) and f.id == "getattr" and len(node.args) in (2, 3) and isinstance(
                    node.args[1], ast.Constant) and node.args[1].value in _LAYER_BUFFERS and not _is_self(node.args[0]):
                return ["attr", node.args[1].value, 0]
            return None
        if isinstance(node, ast.Attribute) and node.attr in _LAYER_BUFFERS and not _is_self(node.value):
            return ["attr", node.attr, 0]
        return None

    def origin(self, node, depth=0):
        """The expression a name's one value came from (`held = getattr(layer, "kv_cache")`:
        the getattr), else `node` itself."""
        while isinstance(node, ast.Name) and depth < _MAX_DEPTH:
            srcs = self.sources.get(node.id) or []
            if len(srcs) != 1 or srcs[0][0] != "value" or srcs[0][1] is None:
                break
            node, depth = srcs[0][1], depth + 1
        return node

    def shape_alias(self, node):
        """The buffer expression `node` is `.shape` of (`shp = kv.shape; shp[1]`), else None."""
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            return node.value
        if isinstance(node, ast.Name):
            srcs = self.sources.get(node.id) or []
            if len(srcs) == 1 and srcs[0][0] == "value" and isinstance(srcs[0][1], ast.Attribute) \
                    and srcs[0][1].attr == "shape":
                return srcs[0][1].value
        return None


def _mentions_mla(test):
    """A branch taken for MLA attention, whose cache has another layout of its own."""
    for sub in ast.walk(test):
        name = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else None
        if name and "mla" in name.lower():
            return True
    return False


def _compared_int(parent, node):
    """The literal `node` is compared to with `==` (`kv.ndim == 5`), else None."""
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.Eq, ast.NotEq)):
        other = parent.comparators[0] if parent.left is node else parent.left
        return _int(other)
    return None


def _read(node, parent, buffers):
    """(buffer expression, form, position, compared) when `node` reads a buffer's size."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        pos = _int(node.slice)
        buf = buffers.shape_alias(node.value) if pos is not None else None
        if buf is not None:
            return buf, "shape", pos, _compared_int(parent, node) is not None
        if _is_index(node.slice) and buffers.shape_alias(node.value) is None:
            return node.value, "index", -1 if pos is None else pos, False
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "size" and len(node.args) == 1 and _int(node.args[0]) is not None:
            return node.func.value, "shape", _int(node.args[0]), _compared_int(parent, node) is not None
        if node.func.attr in ("reshape", "view") and node.args:
            twos = [i for i, a in enumerate(node.args) if _int(a) == 2]
            return (node.func.value, "split", twos[0], False) if len(twos) == 1 else None
        if node.func.attr == "dim" and not node.args:
            rank = _compared_int(parent, node)
            return (node.func.value, "rank", rank, False) if rank is not None else None
        return None
    if isinstance(node, ast.Attribute) and node.attr == "ndim":
        rank = _compared_int(parent, node)
        return (node.value, "rank", rank, False) if rank is not None else None
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) \
            and not any(isinstance(e, ast.Starred) for e in node.targets[0].elts):
        buf = buffers.shape_alias(node.value)
        if buf is not None:
            return buf, "rank", len(node.targets[0].elts), False
    return None


def _callee(func):
    """["self", m] for `self.m(...)`, ["held", a, m] for `self.a.m(...)`, ["name", f] for `f(...)`."""
    if isinstance(func, ast.Name):
        return None if hasattr(builtins, func.id) else ["name", func.id]  # `list(d)` is a container step
    if isinstance(func, ast.Attribute):
        v = func.value
        if isinstance(v, ast.Name) and v.id == "self":
            return ["self", func.attr]
        if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self":
            return ["held", v.attr, func.attr]
    return None


def _walk(fnode):
    """(node, parent, under an MLA branch) for the function's own nodes."""
    stack = [(n, None, False) for n in reversed(fnode.body)]
    while stack:
        n, parent, mla = stack.pop()
        yield n, parent, mla
        if isinstance(n, ast.If):
            body_mla = mla or _mentions_mla(n.test)
            kids = [(c, n, mla) for c in [n.test]] + [(c, n, body_mla) for c in n.body] + [(c, n, mla) for c in n.orelse]
        elif isinstance(n, ast.IfExp):
            kids = [(n.test, n, mla), (n.body, n, mla or _mentions_mla(n.test)), (n.orelse, n, mla)]
        else:
            kids = [(c, n, mla) for c in children(n) if not isinstance(c, _NOT_OWN)]
        stack.extend(reversed(kids))


def buffer_reads(functions):
    """{"reads": {qual: [[line, col, subject, receiver, form, position, flags]]},
        "flows": {qual: [[line, callee, position, subject]]}} for `functions`, the (qualname,
    class, node) triples of usage._functions. `form` is "shape" (a size read at `position`),
    "rank" (the rank the code checks or unpacks into), "split" (`kv.reshape(2, n, -1)`: the
    code keeps K and V on axis `position`) or "index" (`x[i]`, one element: `position` is the
    literal index, -1 for any other; recorded for a layer's buffer only, at the line where the
    attribute is read, since that value is what changed kind); `flags` lists "mla" (under a branch taken
    for MLA attention) and "compared" (a size compared to a literal: the code probes the layout).
    A flow's callee is ["self", m], ["held", attr, m] or ["name", f]; its position is the
    argument's index among the call's positional arguments."""
    reads, flows = {}, {}
    for qual, _cls, fnode in functions:
        buffers = None
        recs, handed = [], []
        for n, parent, mla in _walk(fnode):
            if not isinstance(n, (ast.Subscript, ast.Call, ast.Attribute, ast.Assign)):
                continue
            if buffers is None:
                buffers = _Buffers(fnode)
            if isinstance(n, ast.Call) and n.args and len(handed) < _MAX_PER_FUNCTION:
                callee = _callee(n.func)
                if callee is not None:
                    for i, a in enumerate(n.args):
                        if isinstance(a, ast.Starred):
                            break
                        subject = buffers.of(a)
                        if subject is not None:
                            handed.append([n.lineno, callee, i, subject])
            found = _read(n, parent, buffers)
            if found is None or len(recs) >= _MAX_PER_FUNCTION:
                continue
            buf, form, pos, compared = found
            subject = buffers.of(buf)
            if subject is None or form == "index" and subject[0] != "attr":
                continue  # a parameter's element picks are axis_splits' business
            flags = (["mla"] if mla else []) + (["compared"] if compared else [])
            at = buffers.origin(buf) if form == "index" else n  # a pick sits where the attribute is read
            recs.append([at.lineno, at.col_offset, subject, ast.unparse(buf), form, pos, flags])
        if recs:
            reads[qual] = sorted(recs, key=lambda r: (r[0], r[1]))
        if handed:
            flows[qual] = handed
    out = {}
    if reads:
        out["reads"] = reads
    if flows:
        out["flows"] = flows
    return out
