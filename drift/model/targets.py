"""Where code lives, turned into a facts document: PyPI spec, wheel, source tree, interpreter.

Every kind ends in the same probe code, so the same code gives the same snapshot whichever way
it was reached. Hosts over SSH are handled by drift.pipeline.scan, which ships the same probe.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from drift import exitcodes
from drift.sources.cache import Sources
from drift.sources.errors import FetchError
from drift.sources.fetch import fetch_sources, parse_requirement
from drift.sources.wheels import foreign_platform, read_from, top_level_packages, wheel_sources


@dataclass(frozen=True)
class TargetResult:
    """A facts document, or why there is none (with the exit code it maps to)."""

    ok: bool
    facts: dict[str, Any] | None
    error: str | None
    label: str  # what the user named, for headings
    exit_code: int = exitcodes.CLEAN
    kind: str = ""  # pypi | wheel | tree | python | snapshot
    hint: str | None = None  # what to try next, when the error has one

    @classmethod
    def failed(cls, label: str, error: str, *, code: int = exitcodes.USAGE, kind: str = "",
               hint: str | None = None) -> "TargetResult":
        return cls(ok=False, facts=None, error=error, label=label, exit_code=code, kind=kind, hint=hint)


def classify(spec: str) -> str:
    """Which kind of target a user string names."""
    if spec.startswith("python:"):
        return "python"
    path = Path(os.path.expanduser(spec))
    if spec.endswith(".whl"):
        return "wheel"
    if path.is_dir():
        return "tree"
    if path.is_file():
        if os.access(path, os.X_OK) and "python" in path.name:
            return "python"
        return "file"
    if os.sep in spec or spec.startswith("."):
        return "missing-path"
    return "pypi"


def load_facts(
    spec: str,
    *,
    packages: list[str] | None = None,
    cache_dir: str | None = None,
    progress: Callable[[str], None] | None = None,
    demand: bool = False,
) -> TargetResult:
    """Facts for `packages` (top-level import names) in the code `spec` names.

    `demand`: for code on this machine (a release, a wheel, a tree), modules are parsed when
    the analysis first reads them (drift/model/demand.py) instead of all up front; check, gate and
    scan ask for that, `drift diff` and `drift snapshot` read every module anyway."""
    say = progress or (lambda _msg: None)
    kind = classify(spec)
    try:
        if kind == "pypi":
            parse_requirement(spec)
            say(f"fetching {spec}")
            src = fetch_sources(spec, progress=say, tree=not demand)  # demand reads a range fetch's pack as it is
            return _from_tree(spec, src.root, packages or top_level_packages(src.root, src.name), cache_dir, say, kind, src,
                              demand=demand, notes=_read_from_note(src))
        if kind == "wheel":
            say(f"extracting {spec}")
            src = wheel_sources(Path(os.path.expanduser(spec)))
            return _from_tree(spec, src.root, packages or top_level_packages(src.root, src.name), cache_dir, say, kind, src,
                              demand=demand)
        if kind == "tree":
            root, pkgs = _tree_root(Path(os.path.expanduser(spec)), packages)
            return _from_tree(spec, root, pkgs, cache_dir, say, kind, None, demand=demand)
        if kind == "python":
            return _from_interpreter(spec, packages or [], cache_dir, say)
        if kind == "missing-path":
            return TargetResult.failed(spec, f"no such path: {spec}", kind=kind)
        from drift.sources.snapshot import SnapshotError, load_snapshot, looks_like_snapshot

        if looks_like_snapshot(Path(os.path.expanduser(spec))):
            try:
                facts = load_snapshot(Path(os.path.expanduser(spec)), spec=spec, packages=packages)
            except (SnapshotError, OSError) as exc:
                return TargetResult.failed(spec, str(exc), kind="snapshot")
            return TargetResult(ok=True, facts=facts, error=None, label=spec, kind="snapshot")
        return TargetResult.failed(spec, f"{spec} is a file, not a wheel, a snapshot (.json), a source tree or a "
                                         "Python interpreter", kind=kind)
    except FetchError as exc:
        return TargetResult.failed(spec, str(exc), kind=kind, code=getattr(exc, "exit_code", exitcodes.USAGE),
                                   hint=getattr(exc, "hint", None))


def _tree_root(path: Path, packages: list[str] | None) -> tuple[Path, list[str]]:
    """A checkout, a site-packages dir, or a package dir itself -> (dir holding packages, names)."""
    path = path.resolve()
    if (path / "__init__.py").exists():
        return path.parent, packages or [path.name]
    for candidate in (path, path / "src"):
        if packages and all((candidate / p).is_dir() for p in packages):
            return candidate, packages
    if packages:
        missing = ", ".join(packages)
        raise FetchError(f"{path} holds no Python package named {missing}")
    found = sorted(p.name for p in path.iterdir() if (p / "__init__.py").exists())
    if not found and (path / "src").is_dir():
        return _tree_root(path / "src", None)
    if not found:
        raise FetchError(f"{path} is not a Python package (no __init__.py in it or below it)")
    return path, found


def _read_from_note(src: Sources) -> tuple[str, ...]:
    """A release read from a wheel built for another platform or Python says which file it was."""
    filename = read_from(src.root)
    built_for = foreign_platform(filename)
    if not built_for:
        return ()
    return (f"{src.name} {src.version} read from {filename} (built for {built_for}): no file of it is built for "
            "this Python/platform, and its Python source is the same in every wheel",)


def _from_tree(label, root: Path, packages, cache_dir, say, kind, src: Sources | None, *,
               demand: bool = False, notes: tuple[str, ...] = ()) -> TargetResult:
    if not packages:
        return TargetResult.failed(label, f"{label}: no importable package found in {root}", kind=kind)
    say(f"reading {', '.join(packages)} ({root})")
    probe_cache = cache_dir if cache_dir is not None else default_probe_cache()
    if demand:
        facts = _on_demand(root, list(packages), probe_cache)
    else:
        facts = _stored(root, list(packages), probe_cache) or _collected(root, list(packages), probe_cache)
    missing = [p for p in packages if p not in facts.get("packages", {})]
    if missing:
        return TargetResult.failed(label, f"{label}: package {', '.join(missing)} not found in {root}", kind=kind)
    if src is not None:
        for pkg in facts["packages"].values():
            pkg.setdefault("version", src.version)
            if not pkg.get("version"):
                pkg["version"] = src.version
    facts.setdefault("target", {})
    facts["target"] = {"spec": label, "kind": kind, "root": str(root)}
    if notes:
        facts["target"]["notes"] = list(notes)
    return TargetResult(ok=True, facts=facts, error=None, label=label, kind=kind)


def _stored(root: Path, packages: list[str], probe_cache: str) -> dict[str, Any] | None:
    """The facts document from the lazy store when every package's files are unchanged."""
    from drift.probes.collect import scan_index
    from drift.probes.environment import tree_environment

    from drift.model.store import default_store

    store = default_store()
    pkgs = {}
    for name in packages:
        digest = scan_index(str(root), name, cache_dir=probe_cache)
        pkg = store.get(name, digest) if digest else None
        if pkg is None:
            return None
        pkgs[name] = pkg
    return {"schema": 1, "probe": {"elapsed_s": 0, "parsed": 0, "cached": 0, "cache_dir": probe_cache, "store": True},
            "env": tree_environment(str(root), packages), "packages": pkgs, "missing": []}


def _on_demand(root: Path, packages: list[str], probe_cache: str) -> dict[str, Any]:
    """Each package hashed, not parsed: its facts from the store when a whole parse already
    stored that digest, else modules parsed on first access (drift/model/demand.py)."""
    import time

    from drift.probes.environment import tree_environment

    from drift.model.demand import default_module_cache, has_package, package_facts
    from drift.model.store import default_store

    start = time.perf_counter()
    store, cache = default_store(), default_module_cache()
    pkgs = {}
    for name in packages:
        if not has_package(root, name):  # files, or a range fetch's pack (drift.sources.pack)
            continue
        pkg = package_facts(str(root), name, cache=cache)
        pkgs[name] = store.get(name, pkg["digest"]) or pkg
    probe = {"elapsed_s": round(time.perf_counter() - start, 3), "parsed": 0, "cached": 0, "cache_dir": probe_cache,
             "demand": True}
    return {"schema": 1, "probe": probe, "env": tree_environment(str(root), packages), "packages": pkgs,
            "missing": [p for p in packages if p not in pkgs]}


def _collected(root: Path, packages: list[str], probe_cache: str) -> dict[str, Any]:
    """Run the probe on the tree and keep each package in the lazy store for next time."""
    from drift.probes import main as probe_main

    from drift.model.store import default_store

    facts = probe_main.collect_tree(str(root), packages, cache_dir=probe_cache)
    store = default_store()
    for name, pkg in (facts.get("packages") or {}).items():
        if pkg.get("digest") and not pkg.get("unchanged"):
            store.put(name, pkg)
    return facts


def default_probe_cache() -> str:
    from drift.sources.cache import cache_root

    return str(cache_root() / "probe")


def probe_interpreter(python: str, request: dict[str, Any], *, timeout: float = 600) -> dict[str, Any]:
    """The probe document from another interpreter on this machine, by the very path a host
    takes (drift.remote.probe over the local connector). Raises FetchError with the reason."""
    import asyncio

    from drift.remote.connectors.base import ConnectorError
    from drift.remote.connectors.local import LocalConnector
    from drift.remote.probe import probe

    python = os.path.abspath(os.path.expanduser(python)) if os.sep in python else python
    try:
        result = asyncio.run(probe(LocalConnector(), request, python=python, timeout=timeout))
    except ConnectorError as exc:
        raise FetchError(f"probe under {python}: {exc}") from None
    if not result.ok:
        raise FetchError(result.reason or f"probe under {python} failed")
    wanted = list(request.get("packages") or []) + list((request.get("usage") or {}).get("packages") or [])
    missing = [p for p in wanted if p in (result.facts.get("missing") or [])]
    if missing:
        raise FetchError(f"{', '.join(missing)} is not installed for {python}")
    return result.facts


def _from_interpreter(spec: str, packages: list[str], cache_dir, say) -> TargetResult:
    """Run the probe with another interpreter on this machine, exactly as over SSH."""
    python = spec[len("python:"):] if spec.startswith("python:") else spec
    request = {
        "packages": packages,
        "env_packages": sorted(set(packages) | {"torch"}),
        "cache_dir": cache_dir if cache_dir is not None else default_probe_cache(),
        "known": {},
    }
    say(f"probing {python}")
    facts = probe_interpreter(python, request)
    facts["target"] = {"spec": spec, "kind": "python", "root": python}
    return TargetResult(ok=True, facts=facts, error=None, label=spec, kind="python")
