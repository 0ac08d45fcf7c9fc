"""The preflight of `drift launch`: `drift scan` of the host the job will run on.

`drift launch` looks `preflight_hook` up here at call time and hands it to `drift.jobs.launch`,
so the jobs package never imports the scan pipeline above it (and a test can replace the hook).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drift.jobs.launch import PreflightUnavailable
from drift.pipeline.scan import ScanSettings, scan_connector

if TYPE_CHECKING:
    from drift.findings import Report
    from drift.jobs.connect import JobSettings
    from drift.remote.connectors.base import Connector


async def preflight_hook(connector: "Connector", settings: "JobSettings") -> "Report | PreflightUnavailable":
    """The preflight for a launch: `drift scan` of the host the job will run on.

    Same defaults as `drift scan` (consumer `speculators`, target `vllm`, baseline from the
    consumer's metadata). A scan that cannot produce a report (vLLM or the consumer not
    installed for that interpreter, baseline not fetchable) is PreflightUnavailable: launch
    refuses unless --force. An unreachable host raises ConnectorError (exit 3).
    """
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
