"""Apply a plan on the host: refuse stale diffs, back up, record, then swap files atomically."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from drift.remote.connectors.base import Connector
from drift.fixes.manifest import manifest_header
from drift.fixes.paths import check_relpath
from drift.fixes.plan import PatchPlan
from drift.fixes.remote import run_applier


@dataclass(frozen=True)
class FileOutcome:
    path: str
    action: str  # "applied" | "already" | "restored"


@dataclass(frozen=True)
class ApplyResult:
    status: str  # "applied" | "already_applied" | "refused" | "failed" | "nothing"
    reason: str | None = None
    patch_id: str | None = None
    manifest: str | None = None  # path of the manifest on the host
    files: tuple[FileOutcome, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status in ("applied", "already_applied", "nothing")


def _result(cls, answer: dict[str, Any]):  # type: ignore[no-untyped-def]
    return cls(
        status=str(answer.get("status", "failed")),
        reason=answer.get("reason"),
        patch_id=answer.get("patch_id"),
        manifest=answer.get("manifest"),
        files=tuple(FileOutcome(f["path"], f["action"]) for f in answer.get("files", ())),
    )


async def apply(
    plan: PatchPlan,
    connector: Connector,
    *,
    root: str,
    state_dir: str,
    meta: dict[str, Any],
    python: str = "python3",
    installed_version: str | None = None,
) -> ApplyResult:
    """Write the plan's files under `root` on the connector's machine.

    `installed_version` is what the caller found installed now; when it differs from
    meta["target_version"] (what the plan was computed against) the patch is refused.
    """
    if plan.empty:
        return ApplyResult(status="nothing", reason="the plan changes no file")
    want = meta.get("target_version")
    if installed_version is not None and want is not None and installed_version != want:
        return ApplyResult(
            status="refused",
            reason=f"the patch was made for target {want} but {installed_version} is installed; re-run drift patch",
        )
    for change in plan.changes:
        problem = check_relpath(change.path)
        if problem:
            return ApplyResult(status="refused", reason=problem)
    if not root.startswith("/") or not state_dir.startswith("/"):
        return ApplyResult(status="refused", reason="root and state_dir must be absolute paths")
    payload = {
        "root": root,
        "state_dir": state_dir,
        "patch_id": plan.patch_id,
        "manifest": manifest_header(plan, meta),
        "files": [
            {
                "path": c.path,
                "before_sha256": c.before_sha256,
                "after_sha256": c.after_sha256,
                "after_b64": base64.b64encode(c.after).decode("ascii"),
            }
            for c in plan.changes
        ],
    }
    answer = await run_applier(connector, python=python, action="apply", payload=payload)
    answer.setdefault("patch_id", plan.patch_id)
    return _result(ApplyResult, answer)
