"""Stop a detached job: a signal to the process group the runner recorded for it.

Why the group: a job is often a launcher (torchrun, a shell script, vLLM's engine processes)
whose children hold the GPUs; signalling the recorded pid alone left them running. The runner
on the host signals only while the recorded job is still that very process (pid, start time,
boot id), so a pid reused since is never hit; the job's end is recorded by its supervisor as
for any other end (`killed (SIGTERM)` in `drift runs`).
"""

from __future__ import annotations

from dataclasses import dataclass

from drift.remote.connectors.base import Connector
from drift.jobs.remote import call_runner
from drift.jobs.runs import RunInfo

__all__ = ["SIGNALS", "StopResult", "stop_run"]

SIGNALS = ("TERM", "INT", "KILL")


@dataclass(frozen=True)
class StopResult:
    signalled: bool  # False: the job had already ended (nothing was signalled)
    run: RunInfo | None = None
    signal: str | None = None
    error: str | None = None
    missing: bool = False  # no such run


async def stop_run(connector: Connector, run_id: str, *, python: str, run_dir_root: str,
                   signal: str = "TERM") -> StopResult:
    """Signal run `run_id` (or "latest") on the connector's host. ConnectorError propagates."""
    reply = await call_runner(connector, python, "stop", run_dir_root, run_id, signal)
    if not reply.ok or reply.data is None:
        return StopResult(False, error=reply.error, missing=reply.missing)
    status = reply.data.get("status")
    run = RunInfo.from_runner(status) if isinstance(status, dict) else None
    return StopResult(bool(reply.data.get("signalled")), run=run, signal=reply.data.get("signal"))
