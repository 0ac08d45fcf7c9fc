"""What a module offers importers: the names a diff compares (resolution is drift/model/index.py's)."""

from __future__ import annotations

from typing import Any

from drift.model.facts import ModuleFacts


def strip_subscript(text: str) -> str:
    """`Generic[T]` -> `Generic`, `typing.Protocol` stays; bases are source text."""
    cut = text.find("[")
    return (text[:cut] if cut >= 0 else text).strip()


def module_surface(modname: str, mod: ModuleFacts, top: str, *, index: Any = None) -> dict[str, tuple[str, int]]:
    """Names a consumer can import from a module: kind and line of each.

    Definitions always count; imports only when listed in `__all__` or when a package's
    `__init__` re-exports something from its own package (the usual facade). A star import
    from the package's own modules (`from .parallel_state import *`, given `index`, the
    resolver of the same snapshot) re-exports what that module offers: its `__all__`, else the
    public names it defines. Names it merely imports (`Optional`, `torch`) are left out:
    nobody imports `Optional` from `vllm.distributed`, and listing them would bury the real
    re-exports (`get_tensor_model_parallel_group`)."""
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
    if index is not None:
        for star in mod.star_imports:
            if star.target.startswith(top + "."):
                for name in _star_names(index, star.target, seen={modname}):
                    surface.setdefault(name, ("import", star.line))
    return surface


def _star_names(index: Any, module: str, *, seen: set[str]) -> list[str]:
    """What `from module import *` binds that the module itself provides: its literal
    `__all__`, else its public definitions and, through its own star imports, theirs."""
    raw = index.modules.get(module) if module not in seen else None
    if raw is None:
        return []
    seen.add(module)
    src = ModuleFacts(raw)
    if src.all is not None:
        return [n for n in src.all if isinstance(n, str)]
    names = [n for table in (src.classes, src.functions, src.names) for n in table if not n.startswith("_")]
    for star in src.star_imports:
        names += _star_names(index, star.target, seen=seen)
    return names
