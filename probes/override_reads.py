"""What a method does with its own object's state: the `self.x` it reads, and whether it hands on
to the method it overrides (stdlib, Python 3.9+).

A subclass that rewrites a base method takes over that method's part of the base's contract: the
state the base's other methods fill and this method drains. When the target's base starts keeping
new state (a second queue its `add_request` fills and its `schedule` drains), an override that
neither reads that state nor runs the base's method leaves it untouched, and nothing fails loudly
(requests wait forever). drift compares what the override reads with what the target's own
method reads (drift/analysis/rules/override_state.py); the probe records only names and lines.
"""

import ast

from .astwalk import walk

_STATIC = ("staticmethod", "classmethod")


def _self_name(fn):
    """The name the method's instance goes by (its first positional parameter), None for a static
    or class method or a method without parameters."""
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name in _STATIC:
            return None
    params = fn.args.posonlyargs + fn.args.args
    return params[0].arg if params else None


def _hands_on(node, name, self_name):
    """`super().name(...)`, `super(C, self).name(...)`, `Base.name(self, ...)`: the base's own
    method runs inside the override."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr != name:
        return False
    receiver = node.func.value
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        return True
    return bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id == self_name \
        and isinstance(receiver, (ast.Name, ast.Attribute))


def self_use(fn):
    """{"self_reads": {attr: first line}, "hands_on": True when the base's method runs} for a
    method; {} for a static or class method (no instance state to compare)."""
    self_name = _self_name(fn)
    if self_name is None:
        return {}
    reads, hands_on = {}, False
    for node in walk(fn):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) \
                and isinstance(node.value, ast.Name) and node.value.id == self_name:
            line = reads.get(node.attr)
            if line is None or node.lineno < line:
                reads[node.attr] = node.lineno
        elif not hands_on and _hands_on(node, fn.name, self_name):
            hands_on = True
    out = {"self_reads": reads}
    if hands_on:
        out["hands_on"] = True
    return out
