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


def load_snapshot(path: Path, *, spec: str) -> dict[str, Any]:
    raw = path.read_bytes()
    try:
        facts = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SnapshotError(f"{spec}: not a drift snapshot (invalid JSON: {exc})") from None
    if not isinstance(facts, dict) or facts.get("schema") != SNAPSHOT_SCHEMA or not isinstance(facts.get("packages"), dict):
        raise SnapshotError(f"{spec}: not a drift snapshot (expected the JSON `drift snapshot` writes, "
                            f"schema {SNAPSHOT_SCHEMA} with a packages table)")
    content = hashlib.sha256(raw).hexdigest()[:40]
    for name, pkg in facts["packages"].items():
        if not (isinstance(name, str) and all(part.isidentifier() for part in name.split("."))):
            raise SnapshotError(f"{spec}: {name!r} is not a package name")
        if not isinstance(pkg, dict) or not isinstance(pkg.get("modules", {}), dict):
            raise SnapshotError(f"{spec}: package {name!r} has no modules table")
        pkg["digest"] = f"snapshot-{content}"  # content-keyed: never trust a digest from a file
        pkg.pop("unchanged", None)
    facts["target"] = {"spec": spec, "kind": "snapshot", "root": str(path)}
    return facts
