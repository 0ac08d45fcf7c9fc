"""The plan a user reviewed with a dry run, kept so `--apply` writes exactly that diff.

`drift patch HOST` saves the plan it printed; `drift patch HOST --apply` applies that saved
plan (refusing if a file changed since, or the installed vLLM is not the one it was made for)
instead of silently computing a different one.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from drift.sources.cache import cache_name, cache_root
from drift.fixes.plan import FileChange, PatchPlan


def _path(host: str, consumer: str) -> Path:
    return cache_root() / "plans" / f"{cache_name(f'{host}-{consumer}')}.json"


def save(plan: PatchPlan, *, host: str, consumer: str, root: str, meta: dict[str, Any]) -> Path:
    doc = {
        "schema": "drift.plan/1", "saved_at": time.time(), "host": host, "consumer": consumer, "root": root,
        "meta": meta,
        "changes": [{"path": c.path, "before_sha256": c.before_sha256, "after_sha256": c.after_sha256,
                     "before": base64.b64encode(c.before).decode(), "after": base64.b64encode(c.after).decode(),
                     "finding_keys": list(c.finding_keys)} for c in plan.changes],
    }
    path = _path(host, consumer)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".plan-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    os.replace(tmp, path)
    return path


def load(*, host: str, consumer: str) -> tuple[PatchPlan, dict[str, Any]] | None:
    try:
        doc = json.loads(_path(host, consumer).read_text())
    except (OSError, ValueError):
        return None
    if doc.get("schema") != "drift.plan/1":
        return None
    changes = tuple(FileChange(path=c["path"], before_sha256=c["before_sha256"], after_sha256=c["after_sha256"],
                               before=base64.b64decode(c["before"]), after=base64.b64decode(c["after"]),
                               finding_keys=tuple(c["finding_keys"])) for c in doc["changes"])
    return PatchPlan(changes=changes), doc


def discard(*, host: str, consumer: str) -> None:
    _path(host, consumer).unlink(missing_ok=True)
