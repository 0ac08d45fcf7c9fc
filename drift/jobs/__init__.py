"""Detached jobs on a host: launch after a clean preflight, watch, list runs, stop.

`launch` takes its preflight as a callable (`drift launch` passes
`drift.pipeline.preflight.preflight_hook`, looked up at call time so a test can replace it):
this package never imports the scan pipeline, which sits above it.
"""

from __future__ import annotations

from drift.jobs.launch import LaunchResult, PreflightUnavailable, launch, new_run_id
from drift.jobs.runs import RunInfo, RunsResult, list_runs
from drift.jobs.stop import StopResult, stop_run
from drift.jobs.watch import WatchResult, watch

__all__ = [
    "LaunchResult", "PreflightUnavailable", "RunInfo", "RunsResult", "StopResult", "WatchResult",
    "launch", "list_runs", "new_run_id", "stop_run", "watch",
]
