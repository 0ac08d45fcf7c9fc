"""Put back the byte-identical originals of an applied patch, from its backup."""

from __future__ import annotations

from dataclasses import dataclass

from drift.remote.connectors.base import Connector
from drift.fixes.apply import FileOutcome, _result
from drift.fixes.remote import run_applier

LATEST = "latest"


@dataclass(frozen=True)
class RevertResult:
    status: str  # "reverted" | "already_reverted" | "refused" | "failed" | "nothing"
    reason: str | None = None
    patch_id: str | None = None
    manifest: str | None = None
    files: tuple[FileOutcome, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status in ("reverted", "already_reverted")


async def revert(
    connector: Connector,
    *,
    state_dir: str,
    patch_id: str = LATEST,
    python: str = "python3",
    force: bool = False,
    consumer: str | None = None,
    root: str | None = None,
) -> RevertResult:
    """Restore the files of `patch_id` (or the latest applied patch); verified by sha256.

    Refuses when a file was edited after the apply (neither the patched nor the original
    bytes), unless `force`. The manifest on the host is not trusted for where to write: its
    `root` must be `root` (when the caller knows it) or where the host's `python` finds the
    `consumer` package, and with `consumer` every file must belong to that package.
    """
    if not consumer and not root:
        return RevertResult(status="refused", reason="revert needs the consumer (or its install root) to check "
                                                     "the manifest against")
    if not state_dir.startswith("/"):
        return RevertResult(status="refused", reason="state_dir must be an absolute path")
    if patch_id != LATEST and (not patch_id or "/" in patch_id or patch_id.startswith(".")):
        return RevertResult(status="refused", reason=f"bad patch id {patch_id!r}")
    payload = {"state_dir": state_dir, "patch_id": None if patch_id == LATEST else patch_id, "force": force,
               "consumer": consumer, "root": root}
    answer = await run_applier(connector, python=python, action="revert", payload=payload)
    return _result(RevertResult, answer)
