"""What a module offers importers: the names a diff compares (resolution is drift/index.py's)."""

from __future__ import annotations

from drift.facts import ModuleFacts


def strip_subscript(text: str) -> str:
    """`Generic[T]` -> `Generic`, `typing.Protocol` stays; bases are source text."""
    cut = text.find("[")
    return (text[:cut] if cut >= 0 else text).strip()


def module_surface(modname: str, mod: ModuleFacts, top: str) -> dict[str, tuple[str, int]]:
    """Names a consumer can import from a module: kind and line of each.

    Definitions always count; imports only when listed in `__all__` or when a package's
    `__init__` re-exports something from its own package (the usual facade)."""
    surface: dict[str, tuple[str, int]] = {}
    for kind, table in (("class", mod.classes), ("function", mod.functions), ("name", mod.names)):
        for name, node in table.items():
            surface[name] = (kind, node.line)
    exported = set(mod.all or ())
    for name, binding in mod.imports.items():  # a star import is no binding: not in `imports`
        if binding.type_checking:
            continue
        if name in exported or (mod.is_package and binding.target.startswith(top + ".")):
            surface.setdefault(name, ("import", binding.line))
    return surface
