"""The consumer as the analysis reads it: where its files are, which packages, what its metadata
says and how it uses the target, from a PyPI spec, a wheel, a source tree or another interpreter."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drift.consumer.usage import collect_usage, read_metadata
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

    @classmethod
    def from_usage(cls, label: str, package: str, use: dict[str, Any]) -> "Consumer":
        """From the probe's usage block for `package` (a host, or an interpreter here)."""
        meta = {"name": use.get("dist") or package, "version": use.get("version"),
                "requires": use.get("requires") or []}
        return cls(label, Path(use.get("root") or "."), [package], meta, use.get("modules") or [])


def load_consumer(spec: str, *, target_package: str, packages: list[str] | None = None) -> Consumer:
    kind = classify(spec)
    if kind == "pypi":
        parse_requirement(spec)
        src = fetch_sources(spec)
        root, pkgs = src.root, packages or top_level_packages(src.root, src.name)
    elif kind == "wheel":
        src = wheel_sources(Path(os.path.expanduser(spec)))
        root, pkgs = src.root, packages or top_level_packages(src.root, src.name)
    elif kind == "tree":
        root, pkgs = _tree_root(Path(os.path.expanduser(spec)), packages)
    elif kind == "missing-path":
        raise FetchError(f"no such path: {spec}")
    elif kind == "python":
        return _consumer_in_environment(spec, package=(packages or ["speculators"])[0], target_package=target_package)
    else:
        raise FetchError(f"{spec}: a consumer is a PyPI spec, a wheel, a source tree or python:PATH")
    if not pkgs:
        raise FetchError(f"{spec}: no importable package found")
    meta = read_metadata(root, pkgs[0])
    usage = collect_usage(root, pkgs, [target_package], cache_dir=default_probe_cache())
    return Consumer(spec, root, pkgs, meta, usage)


def _consumer_in_environment(spec: str, *, package: str, target_package: str) -> Consumer:
    """A consumer installed in another interpreter here: the same probe `drift scan` ships."""
    python = spec[len("python:"):] if spec.startswith("python:") else spec
    doc = probe_interpreter(python, {"packages": [], "env_packages": [package], "cache_dir": default_probe_cache(),
                                     "known": {}, "usage": {"packages": [package], "prefixes": [target_package]}})
    return Consumer.from_usage(spec, package, doc["usage"][package])
