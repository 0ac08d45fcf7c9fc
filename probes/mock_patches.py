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


def patch_installation(node, path_of):
    """(owner path, attribute name, value node) that the call `node` installs, or None.
    `path_of` is the caller's path of an expression (a `sym:` root first, then `.attr` steps)."""
    callee = path_of(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
    if not callee or not callee[0].startswith("sym:"):
        return None
    name = callee[0][4:] + "".join(callee[1:])
    if name in PATCHERS:
        return _string_target(node)
    if name in tuple(p + ".object" for p in PATCHERS):
        return _object_target(node, path_of)
    return None


def _argument(node, index, keyword):
    if len(node.args) > index and not isinstance(node.args[index], ast.Starred):
        return node.args[index]
    return next((k.value for k in node.keywords if k.arg == keyword), None)


def _string_target(node):
    """`patch("pkg.mod.Cls.m", fn)`: the owner is the dotted name without its last part."""
    target, value = _argument(node, 0, "target"), _argument(node, 1, "new")
    if not (isinstance(target, ast.Constant) and isinstance(target.value, str)) or value is None:
        return None
    owner, _, attr = target.value.rpartition(".")
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
