"""The consumer as the analysis reads it: where its files are, which packages, what its metadata
says and how it uses the target, from a PyPI spec, a wheel, a source tree or another interpreter."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drift.consumer.discover import Selection, discover, file_filter
from drift.consumer.usage import discovered_and_key, read_metadata, usage_and_key
from drift.model.targets import _tree_root, classify, default_probe_cache, probe_interpreter
from drift.sources.errors import FetchError
from drift.sources.fetch import fetch_sources, parse_requirement
from drift.sources.wheels import top_level_packages, wheel_sources


@dataclass(frozen=True)
class Consumer:
    label: str
    root: Path
    packages: list[str]
    meta: dict[str, Any]
    usage: list[dict[str, Any]]
    usage_key: str | None = None  # a digest of what `usage` was read from (drift.consumer.usage.content_key);
    # None when it came from elsewhere (a host, another interpreter): the answer cache then hashes the usage itself
    layout: tuple[str, ...] = ()  # what of a checkout was read and what was left out, for the report's notes

    @classmethod
    def from_usage(cls, label: str, package: str, use: dict[str, Any]) -> "Consumer":
        """From the probe's usage block for `package` (a host, or an interpreter here)."""
        meta = {"name": use.get("dist") or package, "version": use.get("version"),
                "requires": use.get("requires") or []}
        return cls(label, Path(use.get("root") or "."), [package], meta, use.get("modules") or [])


def load_consumer(spec: str, *, target_package: str, packages: list[str] | None = None,
                  selection: Selection | None = None) -> Consumer:
    """A PyPI release or a wheel is read as its packages (all a wheel holds); a source tree as
    every `.py` under it that `selection` admits (drift.consumer.discover), or only the
    packages named with --consumer-package."""
    kind = classify(spec)
    selection = selection or Selection()
    if kind == "pypi":
        parse_requirement(spec)
        src = fetch_sources(spec)
        root, pkgs = src.root, packages or top_level_packages(src.root, src.name)
    elif kind == "wheel":
        src = wheel_sources(Path(os.path.expanduser(spec)))
        root, pkgs = src.root, packages or top_level_packages(src.root, src.name)
    elif kind == "tree":
        return _checkout(spec, Path(os.path.expanduser(spec)), packages, selection, target_package)
    elif kind == "missing-path":
        raise FetchError(f"no such path: {spec}")
    elif kind == "python":
        return _consumer_in_environment(spec, packages=packages or ["speculators"], target_package=target_package)
    else:
        raise FetchError(f"{spec}: a consumer is a PyPI spec, a wheel, a source tree or python:PATH")
    if not pkgs:
        raise FetchError(f"{spec}: no importable package found")
    meta = read_metadata(root, pkgs[0])
    usage, key = usage_and_key(root, pkgs, [target_package], cache_dir=default_probe_cache())
    return Consumer(spec, root, pkgs, meta, usage, key)


def _checkout(spec: str, path: Path, packages: list[str] | None, selection: Selection,
              target_package: str) -> Consumer:
    """A source tree: a package folder itself, the named packages, or every file discovered."""
    path = path.resolve()
    try:
        file_filter(path, selection)  # every glob parses, or the error names it before anything is read
    except ValueError as exc:
        raise FetchError(f"bad include/exclude glob: {exc}") from None
    if packages or (path / "__init__.py").exists():
        root, pkgs = _tree_root(path, packages)
        keep = file_filter(root, selection) if selection.include or selection.exclude else None
        usage, key = usage_and_key(root, pkgs, [target_package], cache_dir=default_probe_cache(), keep=keep)
        return Consumer(spec, root, pkgs, read_metadata(root, pkgs[0]), usage, key)
    try:
        found = discover(path, selection)
    except ValueError as exc:
        raise FetchError(str(exc)) from None
    usage, key, files = discovered_and_key(found, [target_package], cache_dir=default_probe_cache())
    return Consumer(spec, found.root, found.packages, _checkout_metadata(found), usage, key,
                    layout_notes(found, files))


def layout_notes(found, files: int) -> tuple[str, ...]:
    """The report's word on what of a checkout drift read: how many files, and each top-level
    entry holding Python that the selection left out, with why (a user whose code sits in a
    skipped folder learns it was not checked, rather than reading a clean report as a pass)."""
    notes = (f"read {files} Python file{'s' if files != 1 else ''} under {found.root.name}/",)
    if found.skipped:
        notes += ("not read: " + "; ".join(f"{rel} ({why})" for rel, why in found.skipped),)
    return notes


def _checkout_metadata(found) -> dict:
    """The checkout's distribution (a package's .dist-info, else pyproject.toml); a repository
    of scripts without either is named after its folder."""
    for read_root, name in found.units:
        meta = read_metadata(read_root, name)
        if meta.get("version") or meta.get("requires") or meta.get("name") != name:
            return meta
    return read_metadata(found.root, found.root.name)


def _consumer_in_environment(spec: str, *, packages: list[str], target_package: str) -> Consumer:
    """A consumer installed in another interpreter here: the same probe `drift scan` ships.
    Several import names (--consumer-package, repeated) are read in the one probe call."""
    python = spec[len("python:"):] if spec.startswith("python:") else spec
    doc = probe_interpreter(python, {"packages": [], "env_packages": list(packages), "cache_dir": default_probe_cache(),
                                     "known": {}, "usage": {"packages": list(packages), "prefixes": [target_package]}})
    first = Consumer.from_usage(spec, packages[0], doc["usage"][packages[0]])
    usage = [m for p in packages for m in (doc["usage"][p].get("modules") or [])]
    return Consumer(spec, first.root, list(packages), first.meta, usage)
