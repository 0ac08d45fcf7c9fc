"""What a module offers importers: the names a diff compares (resolution is drift/index.py's)."""

from __future__ import annotations

from typing import Any


def strip_subscript(text: str) -> str:
    """`Generic[T]` -> `Generic`, `typing.Protocol` stays; bases are source text."""
    cut = text.find("[")
    return (text[:cut] if cut >= 0 else text).strip()


def module_surface(modname: str, mod: dict[str, Any], top: str) -> dict[str, tuple[str, int]]:
    """Names a consumer can import from a module: kind and line of each.

    Definitions always count; imports only when listed in `__all__` or when a package's
    `__init__` re-exports something from its own package (the usual facade)."""
    surface: dict[str, tuple[str, int]] = {}
    for kind, key in (("class", "classes"), ("function", "functions"), ("name", "names")):
        for name, node in (mod.get(key) or {}).items():
            surface[name] = (kind, node.get("line", 0))
    exported = set(mod.get("all") or ())
    for name, binding in (mod.get("imports") or {}).items():
        if name == "*" or not isinstance(binding, dict) or binding.get("type_checking"):
            continue
        target = binding.get("target", "")
        if name in exported or (mod.get("is_package") and target.startswith(top + ".")):
            surface.setdefault(name, ("import", binding.get("line", 0)))
    return surface
