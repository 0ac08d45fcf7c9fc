"""The consumer side: which files use the target, and what the consumer says it needs.

Usage facts come from probes/usage.py, the same stdlib code the remote probe runs, so a
consumer read here and one read on a GPU host give identical uses.
"""

from __future__ import annotations

import os
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

from probes.usage import usage_facts


def iter_py_files(root: Path, package: str):
    """(module name, relative path, absolute path) for each .py file of the package."""
    base = root / package
    if base.is_file():
        yield package.removesuffix(".py"), package, base
        return
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            mod = rel[:-3].replace("/", ".")
            if mod.endswith(".__init__"):
                mod = mod[: -len(".__init__")]
            yield mod, rel, full


def collect_usage(root: Path, packages: list[str], prefixes: list[str]) -> list[dict[str, Any]]:
    """Usage facts of every consumer module that imports from one of `prefixes`."""
    out = []
    for package in packages:
        for mod, rel, full in iter_py_files(root, package):
            try:
                data = full.read_bytes()
            except OSError as exc:
                out.append({"module": mod, "path": rel, "error": f"unreadable: {exc}", "imports": [], "calls": [],
                            "binds": [], "subclasses": []})
                continue
            if not any(p.encode() in data for p in prefixes):
                continue
            facts = usage_facts(data, module=mod, path=rel, prefixes=prefixes, is_package=rel.endswith("__init__.py"))
            if facts["imports"] or facts.get("error"):
                out.append(facts)
    return out


def read_metadata(root: Path, dist_name: str) -> dict[str, Any]:
    """Name, version and Requires-Dist of a distribution's .dist-info under root."""
    norm = dist_name.lower().replace("-", "_")
    for info in sorted(root.glob("*.dist-info")):
        if info.name[: -len(".dist-info")].rsplit("-", 1)[0].lower().replace("-", "_") != norm:
            continue
        meta = info / "METADATA"
        if not meta.exists():
            continue
        msg = HeaderParser().parsestr(meta.read_text(errors="replace"))
        return {"name": msg.get("Name"), "version": msg.get("Version"), "requires": msg.get_all("Requires-Dist") or []}
    return _from_pyproject(root, dist_name)


def _from_pyproject(root: Path, dist_name: str) -> dict[str, Any]:
    """A source checkout has no .dist-info: read [project] from pyproject.toml instead."""
    import tomllib

    for folder in (root, root.parent):
        path = folder / "pyproject.toml"
        if not path.is_file():
            continue
        try:
            project = tomllib.loads(path.read_text()).get("project") or {}
        except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
            continue
        requires = list(project.get("dependencies") or [])
        for extra, deps in (project.get("optional-dependencies") or {}).items():
            requires += [f'{d}; extra == "{extra}"' for d in deps]
        return {"name": project.get("name") or dist_name, "version": project.get("version"), "requires": requires}
    return {"name": dist_name, "version": None, "requires": []}
