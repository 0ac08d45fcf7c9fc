"""A `drift snapshot` file as a target: a team shares one host's facts, others check against them.

The file is untrusted input (it came from someone else's machine): it is checked for the
shape drift reads, and each package's digest is replaced by one drift computes from the
file's own bytes, so a forged digest can never make the facts cache serve another build's
facts (or this file's facts to another build).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SNAPSHOT_SCHEMA = 1
SNAPSHOT_LIMIT = 256 * 1024 * 1024  # bytes read of a snapshot file (vLLM's whole facts are ~15 MB)


class SnapshotError(ValueError):
    """The file is not a usable drift snapshot; the message names the file and the problem."""


def plain(value: Any) -> Any:
    """json.dumps default=: lazily loaded module tables (drift.model.store.LazyModules) as dicts."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(facts: Mapping[str, Any]) -> str:
    return json.dumps(facts, separators=(",", ":"), sort_keys=True, default=plain)


def looks_like_snapshot(path: Path) -> bool:
    return path.suffix == ".json" and path.is_file()


def load_snapshot(path: Path, *, spec: str, packages: list[str] | None = None) -> dict[str, Any]:
    """The facts in the snapshot file at `path`, checked: JSON bounded (`loads_bounded`), the
    document and every package's facts typed as drift writes them (`validate_package_facts`),
    and each of `packages` (the import names the command reads) present, so a snapshot of
    another package is said to be one, not scored as `No module named 'vllm'`."""
    from drift.inputs import JsonError, loads_bounded
    from drift.output import visible
    from drift.remote.reply import ReplyError, validate_env, validate_package_facts

    from drift.inputs import InputTooLarge, read_bounded

    try:
        raw = read_bounded(path, limit=SNAPSHOT_LIMIT, what=f"snapshot {visible(spec)}")
    except InputTooLarge as exc:
        raise SnapshotError(str(exc)) from None
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot {visible(spec)}: {exc.strerror or exc}") from None
    try:
        facts = loads_bounded(raw, what=f"{spec}: not a drift snapshot")
    except JsonError as exc:
        raise SnapshotError(str(exc)) from None
    if not isinstance(facts, dict) or facts.get("schema") != SNAPSHOT_SCHEMA or not isinstance(facts.get("packages"), dict):
        raise SnapshotError(f"{spec}: not a drift snapshot (expected the JSON `drift snapshot` writes, "
                            f"schema {SNAPSHOT_SCHEMA} with a packages table)")
    try:
        validate_env(facts.get("env") or {}, "env")
    except ReplyError as exc:
        raise SnapshotError(f"{spec}: not a drift snapshot ({visible(exc)})") from None
    content = hashlib.sha256(raw).hexdigest()[:40]
    for name, pkg in facts["packages"].items():
        if not (isinstance(name, str) and all(part.isidentifier() for part in name.split("."))):
            raise SnapshotError(f"{spec}: {visible(repr(name)[:80])} is not a package name")
        if not isinstance(pkg, dict) or not isinstance(pkg.get("modules", {}), dict):
            raise SnapshotError(f"{spec}: package {name!r} has no modules table")
        try:
            validate_package_facts(pkg, f"packages.{name}")
        except ReplyError as exc:
            raise SnapshotError(f"{spec}: not a drift snapshot ({visible(exc)})") from None
        pkg["digest"] = f"snapshot-{content}"  # content-keyed: never trust a digest from a file
        pkg.pop("unchanged", None)
    absent = [p for p in packages or () if p not in facts["packages"]]
    if absent:
        held = ", ".join(sorted(facts["packages"])) or "no package"
        raise SnapshotError(f"{spec} is a snapshot of {held}, not of {', '.join(absent)}; snapshot the target "
                            f"itself, or name the package with --package")
    facts["target"] = {"spec": spec, "kind": "snapshot", "root": str(path)}
    return facts
