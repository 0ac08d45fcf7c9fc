"""The consumer side: which files use the target, and what the consumer says it needs.

Both halves are the probe's own stdlib code (probes/consumer_scan.py, probes/distinfo.py), so a
consumer read here and one read on a GPU host give identical uses and metadata.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from drift.consumer.newer_syntax import mark_newer_syntax
from drift.probes.consumer_scan import consumer_usage
from drift.probes.distinfo import dist_for


def collect_usage(root: Path, packages: list[str], prefixes: list[str], *,
                  cache_dir: str | None = None, keep=None) -> list[dict[str, Any]]:
    """Usage facts of every consumer module that imports from one of `prefixes` (each module's IR
    kept as the usage cache's bytes until the solver reads it: `drift.probes.consumer_scan.ir_of`)."""
    return usage_and_key(root, packages, prefixes, cache_dir=cache_dir, keep=keep)[0]


def usage_and_key(root: Path, packages: list[str], prefixes: list[str], *,
                  cache_dir: str | None = None, keep=None) -> tuple[list[dict[str, Any]], str]:
    """`collect_usage`, and a digest of what it was read from (`content_key`)."""
    out: list[dict[str, Any]] = []
    keys = []
    for package in packages:
        got = consumer_usage(str(root), package, prefixes, use_importlib=False, cache_dir=cache_dir,
                             keep=keep, ir_as_bytes=True)
        out += got["modules"]
        keys.append(got["content_key"])
    return mark_newer_syntax(out, root), content_key(root, keys)


def collect_discovered(found, prefixes: list[str], *, cache_dir: str | None = None) -> list[dict[str, Any]]:
    """Usage facts of every file a discovered checkout (drift.consumer.discover) selects.

    A unit walked from below the root (`src/`) keeps its import names, and its paths are made
    relative to the root again (`src/pkg/x.py`), where reports, ignore comments and patches
    look for them."""
    return discovered_and_key(found, prefixes, cache_dir=cache_dir)[0]


def discovered_and_key(found, prefixes: list[str], *,
                       cache_dir: str | None = None) -> tuple[list[dict[str, Any]], str, int]:
    """`collect_discovered`, a digest of what it was read from (`content_key`), and how many
    `.py` files the selection admitted (read, or known unchanged)."""
    out: list[dict[str, Any]] = []
    keys = []
    files = 0
    for read_root, name in found.units:
        prefix = found.prefix(read_root)
        keep = (lambda rel, _p=prefix: found.keep(_p + rel)) if prefix else found.keep
        got = consumer_usage(str(read_root), name, prefixes, use_importlib=False, cache_dir=cache_dir,
                             keep=keep, ir_as_bytes=True)
        keys.append(f"{prefix}\0{got['content_key']}")
        files += got.get("files") or 0
        for module in got["modules"]:
            if prefix and module.get("path"):
                module = dict(module, path=prefix + module["path"])
            out.append(module)
    return mark_newer_syntax(out, found.root), content_key(found.root, keys), files


def content_key(root: Path, keys: list[str]) -> str:
    """One digest of the consumer's usage as read: each package's or unit's key from the probe
    (probes/consumer_scan.py `_content_key`: every file's sha256, the metadata, the reader's
    version) and the root `mark_newer_syntax` reads syntax errors under. Equal keys, equal usage:
    drift's answer cache keys the consumer by it (drift/pipeline/check_cache.py)."""
    return hashlib.sha256("\0".join([str(root), *keys]).encode("utf-8", "surrogateescape")).hexdigest()


def read_metadata(root: Path, package: str) -> dict[str, Any]:
    """Name, version and Requires-Dist of the distribution shipping `package` under root."""
    info = dist_for(str(root), package, use_importlib=False)
    if info.get("dist"):
        return {"name": info["dist"], "version": info.get("version"), "requires": info.get("requires") or []}
    return _from_pyproject(root, package)


def _from_pyproject(root: Path, dist_name: str) -> dict[str, Any]:
    """A source checkout has no .dist-info: read [project] from pyproject.toml instead."""
    from drift.config import tomllib  # the stdlib's on 3.11+, tomli on 3.10

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
