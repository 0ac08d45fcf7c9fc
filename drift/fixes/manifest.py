"""The patch manifest: what was changed, from which hashes to which, and how far it got.

Written by the applier on the host (state_dir/<patch-id>/manifest.json) before any file is
touched and after each file, so a crash leaves an honest record. This module builds its
header and reads it back.
"""

from __future__ import annotations

import json
from typing import Any

import drift
from drift.remote.connectors.base import Connector, ConnectorError
from drift.fixes.plan import PatchPlan

SCHEMA = "drift.patch-manifest/1"
FILE_STATES = ("pending", "applied", "reverted")  # per file
STATUSES = ("applying", "applied", "reverted")  # whole patch


def manifest_header(plan: PatchPlan, meta: dict[str, Any]) -> dict[str, Any]:
    """Everything but the per-file states, which the applier fills in as it goes."""
    return {
        "schema": SCHEMA,
        "drift_version": drift.__version__,
        "target_version": meta.get("target_version"),
        "baseline_version": meta.get("baseline_version"),
        "consumer": meta.get("consumer"),
        "finding_ids": list(plan.finding_keys),
        "meta": {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool, type(None)))},
    }


def manifest_path(state_dir: str, patch_id: str) -> str:
    return f"{state_dir.rstrip('/')}/{patch_id}/manifest.json"


async def read_manifest(connector: Connector, *, state_dir: str, patch_id: str) -> dict[str, Any] | None:
    """The manifest as the host has it now, or None when there is none (or it is unreadable)."""
    try:
        data = await connector.get(manifest_path(state_dir, patch_id))
    except ConnectorError:
        return None
    try:
        obj = json.loads(data.decode("utf-8"))
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None
