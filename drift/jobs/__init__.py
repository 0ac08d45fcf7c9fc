"""Detached jobs on a host: launch after a clean preflight, watch, list runs.

`preflight_hook` is the one seam between launching and scanning: `drift launch` calls
`drift.jobs.preflight_hook(connector, settings)` by attribute lookup at call time, so the scan
pipeline (or a test) can provide the Report without this package importing it up front.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drift.jobs.launch import LaunchResult, PreflightUnavailable, launch, new_run_id
from drift.jobs.runs import RunInfo, RunsResult, list_runs
from drift.jobs.watch import WatchResult, watch

if TYPE_CHECKING:
    from drift.remote.connectors.base import Connector
    from drift.findings import Report
    from drift.jobs.connect import JobSettings

__all__ = [
    "LaunchResult", "PreflightUnavailable", "RunInfo", "RunsResult", "WatchResult",
    "launch", "list_runs", "new_run_id", "preflight_hook", "watch",
]


async def preflight_hook(connector: "Connector", settings: "JobSettings") -> "Report | PreflightUnavailable":
    """The preflight for a launch: `drift scan` of the host the job will run on.

    Same defaults as `drift scan` (consumer `speculators`, target `vllm`, baseline from the
    consumer's metadata). A scan that cannot produce a report (vLLM or the consumer not
    installed for that interpreter, baseline not fetchable) is PreflightUnavailable: launch
    refuses unless --force. An unreachable host raises ConnectorError (exit 3).
    """
    from drift.pipeline.scan import ScanSettings, scan_connector

    cfg = settings.config
    target = cfg.target if cfg.target and cfg.target.isidentifier() else "vllm"
    scan = await scan_connector(
        connector, host=settings.host or "local",
        settings=ScanSettings(consumer=cfg.consumer or "speculators", target=target, baseline=cfg.baseline,
                              python=settings.python),
    )
    if scan.outcome is not None and scan.outcome.report is not None:
        return scan.outcome.report
    return PreflightUnavailable(scan.reason or "the scan produced no report")
