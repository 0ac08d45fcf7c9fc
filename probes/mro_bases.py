"""The consumer modules that define a base of a consumer subclass of a target class, although they
never name the target themselves (stdlib, Python 3.9+).

Why: `class Runner(OwnRunner, Mixin)` where OwnRunner subclasses a vLLM class and `Mixin` lives
in a module that imports only the package itself. The usage scan never parses that module (it
does not mention vLLM), so drift has no outline of `Mixin`: the MRO holds a class drift cannot
see, any `self.<name>` on a Runner might come from it, and a name vLLM removed is never claimed.
Reading such a module as a handed one (probes/consumer_scan.py `_read_handed`: its classes, with
their methods and what they set on `self`, and its IR) makes the MRO fully known again. Only
modules defining a class in the MRO of a class that reaches a target base are read, so the cold
cost grows with the hierarchies the target sees, not with the package.
"""

from .locate import consumer_module as module_name


def _classes(modules, ir_of):
    """{consumer class dotted: [base path, ...]} of every record's IR."""
    out = {}
    for mod in modules:
        if not isinstance(mod, dict) or not mod.get("ir"):
            continue
        for dotted, row in (ir_of(mod).get("classes") or {}).items():
            if isinstance(row, list) and row and isinstance(row[0], list):
                out[dotted] = [b for b in row[0] if isinstance(b, list) and b and isinstance(b[0], str)]
    return out


def _base_name(path):
    """The dotted name a base path spells (`["sym:app.m.Mixin"]`, `["sym:app.m", ".Mixin"]`,
    `["sym:app.m.Base", "[*]"]` for `Base[T]`); None for anything computed."""
    if not path[0].startswith("sym:"):
        return None
    steps = [s for s in path[1:] if s != "[*]"]
    if any(not s.startswith(".") or s.startswith(".?") for s in steps):
        return None
    return path[0][4:] + "".join(steps)


def base_modules(modules, plain, prefixes, ir_of):
    """{rel: True} of the files among `plain` (no record: they never name the target) that define,
    by the dotted name a recorded class's base is written with, a class in the MRO of a consumer
    class with a target base somewhere above it."""
    by_module = {module_name(rel): rel for rel in plain}
    if not by_module:
        return {}
    classes = _classes(modules, ir_of)

    def is_target(name):
        return any(name == p or name.startswith(p + ".") for p in prefixes)

    names = {dotted: [n for n in (_base_name(b) for b in bases) if n] for dotted, bases in classes.items()}
    derived = set()
    changed = True
    while changed:  # a class whose base is a target class, or a class already found
        changed = False
        for dotted, bases in names.items():
            if dotted not in derived and any(is_target(n) or n in derived for n in bases):
                derived.add(dotted)
                changed = True
    out = {}
    todo, seen = sorted(derived), set(derived)
    while todo:  # every consumer class above a derived one: its module, when unread
        for name in names.get(todo.pop(), ()):
            if is_target(name) or name in seen:
                continue
            seen.add(name)
            owner = name.rpartition(".")[0]
            if owner in by_module:
                out[by_module[owner]] = True
            elif name in names:
                todo.append(name)
    return out
