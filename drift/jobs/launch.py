"""Start a job on a host, detached, only after the preflight found nothing breaking.

Why refuse: a speculators extraction spends minutes loading checkpoint shards before it reaches
the vLLM internals that changed; drift already knows it will die there. `--force` overrides,
and is recorded in job.json so `drift runs` shows who launched against the advice.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import PurePosixPath
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from drift import exitcodes
from drift.remote.connectors.base import Connector
from drift.findings import Finding, Report
from drift.jobs.remote import call_runner, runner_source
from drift.jobs.replies import ReplyError, checked_status
from drift.jobs.runs import RunInfo

__all__ = ["LaunchResult", "PreflightUnavailable", "launch", "new_run_id", "report_to_dict"]


@dataclass(frozen=True)
class PreflightUnavailable:
    """The preflight could not run (no consumer configured, scan not available, ...)."""

    reason: str


Preflight = Callable[[], Awaitable["Report | PreflightUnavailable"]]


@dataclass(frozen=True)
class LaunchResult:
    status: str  # "started" | "refused" | "failed"
    exit_code: int
    run_id: str | None = None
    run_dir: str | None = None
    run: RunInfo | None = None
    report: Report | None = None
    breaking: tuple[Finding, ...] = ()
    forced: bool = False
    reason: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status, "exit_code": self.exit_code, "run_id": self.run_id,
            "run_dir": self.run_dir, "forced": self.forced, "reason": self.reason,
            "pid": self.run.pid if self.run else None,
            "state": self.run.outcome if self.run else None,
            "breaking": [f.to_dict() for f in self.breaking], "notes": list(self.notes),
        }


def new_run_id(*, now: float | None = None) -> str:
    """`20261129-101500-ab12`: sorts by start time, and two launches in one second differ."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now if now is not None else time.time()))
    return f"{stamp}-{secrets.token_hex(2)}"


def report_to_dict(report: Report) -> dict[str, Any]:
    return {
        "consumer": report.consumer, "target": report.target, "baseline": report.baseline,
        "host": report.host, "env": report.env, "notes": list(report.notes),
        "exit_code": report.exit_code, "findings": [f.to_dict() for f in report.findings],
    }


async def launch(
    connector: Connector,
    *,
    command: list[str] | tuple[str, ...],
    python: str,
    run_dir_root: str,
    preflight: Preflight,
    force: bool = False,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> LaunchResult:
    """Preflight, then create the run dir, store job + report, start the runner. Never raises
    for a refusal or a runner failure; ConnectorError (host unreachable) propagates."""
    if not command or not all(isinstance(a, str) for a in command):
        return LaunchResult("failed", exitcodes.USAGE, reason="no command to launch")
    pre = await preflight()
    report = pre if isinstance(pre, Report) else None
    notes: list[str] = []
    if isinstance(pre, PreflightUnavailable):
        if not force:
            return LaunchResult("refused", exitcodes.USAGE, forced=False,
                                reason=f"preflight could not run: {pre.reason} (pass --force to launch anyway)")
        notes.append(f"preflight skipped: {pre.reason}")
    breaking = report.breaking if report else ()
    if breaking and not force:
        return LaunchResult("refused", exitcodes.DRIFT, report=report, breaking=breaking,
                            reason=f"preflight found {len(breaking)} breaking finding(s); pass --force to launch anyway")
    forced = bool(force and (breaking or report is None))

    run_id = new_run_id()
    reply = await call_runner(connector, python, "prepare", run_dir_root, run_id)
    if not reply.ok or reply.data is None:
        return LaunchResult("failed", exitcodes.USAGE, run_id=run_id, reason=reply.error, report=report)
    run_dir = reply.data.get("run_dir")
    if not isinstance(run_dir, str) or not run_dir.startswith("/") or PurePosixPath(run_dir).name != run_id:
        return LaunchResult("failed", exitcodes.USAGE, run_id=run_id, report=report,
                            reason=f"the job runner's reply is malformed: run_dir {run_dir!r} is not .../{run_id}")
    job = {
        "run_id": run_id, "command": list(command), "forced": forced, "python": python,
        "env": env or {}, "cwd": cwd, "launched_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "preflight": "breaking" if breaking else ("clean" if report else "skipped"), "notes": notes,
    }
    if report is not None:
        await connector.put(f"{run_dir}/preflight.json", json.dumps(report_to_dict(report), indent=1).encode())
    await connector.put(f"{run_dir}/runner.py", runner_source(), mode=0o755)  # what ran, for the record
    await connector.put(f"{run_dir}/job.json", json.dumps(job, indent=1).encode())
    reply = await call_runner(connector, python, "start", run_dir)
    if not reply.ok or reply.data is None:
        return LaunchResult("failed", exitcodes.DRIFT, run_id=run_id, run_dir=run_dir, reason=reply.error, report=report)
    try:
        run = RunInfo.from_runner(checked_status(reply.data))
    except ReplyError as exc:
        return LaunchResult("failed", exitcodes.USAGE, run_id=run_id, run_dir=run_dir, report=report,
                            reason=f"the job runner's reply is malformed: {exc}")
    return LaunchResult("started", exitcodes.CLEAN, run_id=run_id, run_dir=run_dir, run=run, report=report,
                        breaking=breaking, forced=forced, notes=tuple(notes))
