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
    from drift.connectors.base import Connector
    from drift.findings import Report
    from drift.jobs.connect import JobSettings

__all__ = [
    "LaunchResult", "PreflightUnavailable", "RunInfo", "RunsResult", "WatchResult",
    "launch", "list_runs", "new_run_id", "preflight_hook", "watch",
]


async def preflight_hook(connector: "Connector", settings: "JobSettings") -> "Report | PreflightUnavailable":
    """The preflight for a launch: drift's scan of the consumer against the host's vLLM.

    Returns PreflightUnavailable (launch then refuses unless --force) when no consumer is
    configured or the scan pipeline is not importable.
    """
    cfg = settings.config
    if not cfg.consumer:
        return PreflightUnavailable("no consumer configured (set `consumer` in drift.toml)")
    try:
        from drift.check import preflight  # type: ignore[attr-defined]
    except ImportError as exc:
        return PreflightUnavailable(f"the scan pipeline is not available: {exc}")
    return await preflight(connector, python=settings.python, consumer=cfg.consumer,
                           target=cfg.target, baseline=cfg.baseline)
