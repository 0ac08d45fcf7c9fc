"""A function bound to one object, stored on that object: a per-instance patch (stdlib, 3.9+).

Why: `obj.forward = fn.__get__(obj, Cls)`, `obj.m = types.MethodType(fn, obj)` and
`obj.m = functools.partial(fn, obj)` replace the method `m` for that object exactly as
`Cls.m = fn` replaces it for every object: the target's own call sites of `obj.m(...)` now call
`fn` with `obj` as its first argument (patchers that rebind `forward` on live modules, often
inside an `nn.Module.apply` callback that narrows each module with `isinstance`). The probe
records such a store as a patch of the object's class, so the checks of installed functions
(signature against the target's callers, `self` typed as the class) apply to it.
"""

import ast

from .srctext import dotted as _dotted

_BINDERS = {"MethodType": ("types",), "partial": ("functools",)}


def bound_function(value):
    """(function node, bound object node, class node or None) when `value` binds a function to
    one object: `fn.__get__(obj[, Cls])`, `[types.]MethodType(fn, obj)`,
    `[functools.]partial(fn, obj, ...)`; None otherwise. The class node is `__get__`'s second
    argument, when written."""
    if not isinstance(value, ast.Call) or any(isinstance(a, ast.Starred) for a in value.args):
        return None
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr == "__get__" and 1 <= len(value.args) <= 2 \
            and not value.keywords:
        return func.value, value.args[0], value.args[1] if len(value.args) == 2 else None
    name = _dotted(func) or ""
    head, _, last = name.rpartition(".")
    if last in _BINDERS and (not head or head in _BINDERS[last]) and len(value.args) >= 2:
        if last == "MethodType" and (len(value.args) != 2 or value.keywords):
            return None
        return value.args[0], value.args[1], None
    return None


def same_object(a, b):
    """Whether two expressions name the same object syntactically (`m` and `m`, `self.layer` and
    `self.layer`): the bound object must be the one the function is stored on."""
    return ast.dump(a, annotate_fields=False, include_attributes=False).replace("Store()", "Load()") == \
        ast.dump(b, annotate_fields=False, include_attributes=False).replace("Store()", "Load()")
