"""`unittest.mock.patch` as an installation, like `Cls.m = fn`.

Why: `patch("pkg.mod.Cls.m", fn)` (started with `.start()`, entered as a context manager or
applied as a decorator) and `patch.object(Cls, "m", fn)` put `fn` on `Cls` exactly as the
assignment `Cls.m = fn` or `setattr(Cls, "m", fn)` does: `fn`'s `self` is then an object of `Cls`,
and the target's callers of `m` call `fn`. A consumer that patches the target this way (an RL
trainer swapping a quantisation method's weight processing) is reached through the same records
as one that assigns. Stdlib only, Python 3.9+, as the rest of the probe.
"""

import ast

PATCHERS = ("unittest.mock.patch", "mock.patch")


def patch_installation(node, path_of, strings=None):
    """(owner path, attribute name, value node) that the call `node` installs, or None.
    `path_of` is the caller's path of an expression (a `sym:` root first, then `.attr` steps);
    `strings` the string literals the enclosing code assigned to names (`local_strings`), for a
    target written into a local first (`path = "pkg.Cls.m"; patch(path, fn)`)."""
    callee = path_of(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
    if not callee or not callee[0].startswith("sym:"):
        return None
    name = callee[0][4:] + "".join(callee[1:])
    if name in PATCHERS:
        return _string_target(node, strings or {})
    if name in tuple(p + ".object" for p in PATCHERS):
        return _object_target(node, path_of)
    return None


def _argument(node, index, keyword):
    if len(node.args) > index and not isinstance(node.args[index], ast.Starred):
        return node.args[index]
    return next((k.value for k in node.keywords if k.arg == keyword), None)


def local_strings(nodes):
    """name -> [(line, text)] of each `name = "text"` among `nodes` (one function's own nodes, or
    a module's), so a name read later takes the literal last assigned above the read."""
    out = {}
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
            out.setdefault(n.targets[0].id, []).append((n.lineno, n.value.value))
    return out


def _text(node, strings):
    """The string `node` is: a literal, or a name's literal last assigned above it."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        above = [(line, text) for line, text in strings.get(node.id, ()) if line < node.lineno]
        return max(above)[1] if above else None
    return None


def _string_target(node, strings):
    """`patch("pkg.mod.Cls.m", fn)`: the owner is the dotted name without its last part."""
    target, value = _argument(node, 0, "target"), _argument(node, 1, "new")
    text = _text(target, strings) if target is not None else None
    if text is None or value is None:
        return None
    owner, _, attr = text.rpartition(".")
    if not owner or not attr.isidentifier():
        return None
    return ("sym:" + owner,), attr, value


def _object_target(node, path_of):
    """`patch.object(Cls, "m", fn)`: the owner is the first argument's path."""
    obj, attr, value = _argument(node, 0, "target"), _argument(node, 1, "attribute"), _argument(node, 2, "new")
    if obj is None or value is None or not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)):
        return None
    owner = path_of(obj)
    return (tuple(owner), attr.value, value) if owner else None
