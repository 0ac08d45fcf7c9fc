"""Symbol index over one package's modules: definitions by name, re-export resolution,
method lookup through bases. Built once per snapshot in a single pass; lookups are dict hits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 12


@dataclass(frozen=True)
class Definition:
    """Where a symbol is actually defined: module, qualname, kind and its facts node."""

    module: str
    qualname: str
    kind: str  # "class" | "function" | "name" | "module"
    node: dict
    path: str
    line: int


def strip_subscript(text: str) -> str:
    """`Generic[T]` -> `Generic`, `typing.Protocol` stays; bases are source text."""
    cut = text.find("[")
    return (text[:cut] if cut >= 0 else text).strip()


class SymbolIndex:
    """Read-only view of `packages[<name>]["modules"]` with resolution helpers."""

    def __init__(self, modules: dict[str, dict]) -> None:
        self.modules = modules
        self._by_name: dict[str, list[tuple]] | None = None

    # -- definitions -------------------------------------------------------------------
    def definition(self, module: str, name: str) -> Definition | None:
        """A top-level class/function/name defined (not imported) in `module`."""
        mod = self.modules.get(module)
        if not mod:
            return None
        path = mod.get("path", "")
        node = (mod.get("classes") or {}).get(name)
        if node is not None:
            return Definition(module, name, "class", node, path, node.get("line", 0))
        node = (mod.get("functions") or {}).get(name)
        if node is not None:
            return Definition(module, name, "function", node, path, node.get("line", 0))
        node = (mod.get("names") or {}).get(name)
        if node is not None:
            return Definition(module, name, "name", node, path, node.get("line", 0))
        return None

    def defs_named(self, name: str) -> list[Definition]:
        """Every top-level class and function called `name`, across the package."""
        if self._by_name is None:  # plain tuples: this table holds every definition
            table: dict[str, list[tuple]] = {}
            for modname, mod in self.modules.items():
                for kind, key in (("class", "classes"), ("function", "functions")):
                    for qual in mod.get(key) or ():
                        table.setdefault(qual, []).append((modname, kind, key))
            self._by_name = table
        out = []
        for modname, kind, key in self._by_name.get(name, ()):
            mod = self.modules[modname]
            node = mod[key][name]
            out.append(Definition(modname, name, kind, node, mod.get("path", ""), node.get("line", 0)))
        return out

    # -- resolution --------------------------------------------------------------------
    def resolve(self, module: str, name: str, _depth: int = 0) -> Definition | None:
        """Follow imports (and star imports) from `module.name` to where it is defined."""
        if _depth > MAX_DEPTH:
            return None
        found = self.definition(module, name)
        if found is not None:
            return found
        mod = self.modules.get(module)
        if not mod:
            return None
        imports = mod.get("imports") or {}
        binding = imports.get(name)
        if isinstance(binding, dict):
            return self.resolve_dotted(binding.get("target", ""), _depth + 1)
        if not name.startswith("_"):
            for star in imports.get("*") or ():
                target = star.get("target", "") if isinstance(star, dict) else ""
                if target in self.modules and target != module:
                    hit = self.resolve(target, name, _depth + 1)
                    if hit is not None:
                        return hit
        sub = f"{module}.{name}"
        if mod.get("is_package") and sub in self.modules:
            return self._module_def(sub)
        return None

    def resolve_dotted(self, dotted: str, _depth: int = 0) -> Definition | None:
        """`a.b.C` -> the definition, splitting at the longest prefix that is a module."""
        if not dotted or _depth > MAX_DEPTH:
            return None
        if dotted in self.modules:
            return self._module_def(dotted)
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            modname = ".".join(parts[:cut])
            if modname in self.modules:
                hit = self.resolve(modname, parts[cut], _depth + 1)
                for attr in parts[cut + 1 :]:
                    hit = self._member(hit, attr)
                return hit
        return None

    def binds(self, module: str, name: str) -> bool:
        """Does `from module import name` work (definition, import, star import, submodule)?"""
        mod = self.modules.get(module)
        if not mod:
            return False
        for key in ("classes", "functions", "names", "imports"):
            if name in (mod.get(key) or {}):
                return True
        return self.resolve(module, name) is not None

    def _module_def(self, modname: str) -> Definition:
        mod = self.modules[modname]
        return Definition(modname, "", "module", mod, mod.get("path", ""), 1)

    def _member(self, hit: Definition | None, attr: str) -> Definition | None:
        if hit is None:
            return None
        if hit.kind == "module":
            return self.resolve(hit.module, attr)
        if hit.kind == "class":
            return self.find_member(hit, attr)
        return None

    # -- classes -----------------------------------------------------------------------
    def base_defs(self, cls: Definition) -> list[Definition]:
        """Resolve a class's bases (source text) to class definitions where possible."""
        out = []
        mod = self.modules.get(cls.module) or {}
        imports = mod.get("imports") or {}
        for base in cls.node.get("bases") or ():
            text = strip_subscript(base)
            head, _, rest = text.partition(".")
            hit = None
            if not rest:
                hit = self.resolve(cls.module, head)
            else:
                binding = imports.get(head)
                root = binding.get("target", head) if isinstance(binding, dict) else head
                hit = self.resolve_dotted(f"{root}.{rest}")
            if hit is not None and hit.kind == "class":
                out.append(hit)
        return out

    def find_member(self, cls: Definition, name: str) -> Definition | None:
        """A method, nested class or attribute of `cls`, or inherited through its bases."""
        seen: set[tuple[str, str]] = set()
        stack = [cls]
        while stack and len(seen) < 64:
            current = stack.pop(0)
            key = (current.module, current.qualname)
            if key in seen:
                continue
            seen.add(key)
            node = current.node
            qual = f"{current.qualname}.{name}"
            method = (node.get("methods") or {}).get(name)
            if method is not None:
                return Definition(current.module, qual, "function", method, current.path, method.get("line", 0))
            nested = (node.get("nested") or {}).get(name)
            if nested is not None:
                return Definition(current.module, qual, "class", nested, current.path, nested.get("line", 0))
            for field in node.get("fields") or ():
                if field.get("name") == name:
                    return Definition(current.module, qual, "field", field, current.path, field.get("line", 0))
            attr = (node.get("attrs") or {}).get(name)
            if attr is not None:
                return Definition(current.module, qual, "name", attr, current.path, attr.get("line", 0))
            stack.extend(self.base_defs(current))
        return None


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
