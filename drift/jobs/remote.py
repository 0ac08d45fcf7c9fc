"""Calls into runner.py on the host: the script travels on stdin, the answer is one JSON line.

Why stdin: nothing needs to be installed on the GPU host, a path with `~` in it is expanded by
the host's Python, and every call is a single round trip. The mode and its arguments (run dirs
from flags or drift.toml) travel inside the stdin payload too (drift.remote.connectors.script): the
command line is `<python> -`, so no login shell (fish, tcsh, a forced command) ever parses them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from drift.inputs import JsonError, loads_bounded
from drift.remote.connectors.base import Connector
from drift.remote.connectors.script import not_found, run_script

REPLY_LIMIT = 16 * 1024 * 1024  # one JSON line; `poll` carries at most its MAX log bytes, base64

__all__ = ["RunnerReply", "call_runner", "runner_source"]


@cache
def runner_source() -> bytes:
    return (Path(__file__).with_name("runner.py")).read_bytes()


@dataclass(frozen=True)
class RunnerReply:
    """The runner's JSON answer, or why there is none (`error`), with a category for exit codes."""

    data: dict[str, Any] | None
    error: str | None = None
    missing: bool = False  # the named run does not exist

    @property
    def ok(self) -> bool:
        return self.error is None


async def call_runner(connector: Connector, python: str, mode: str, *args: str, timeout: float | None = 60) -> RunnerReply:
    """Run one runner mode on the connector's host. ConnectorError (link down) propagates."""
    result = await run_script(connector, python, runner_source(), args=[mode, *args], name="<drift-runner>",
                              timeout=timeout, limit=REPLY_LIMIT)
    if result.truncated:
        return RunnerReply(None, f"the job runner on {connector.name} sent more than {REPLY_LIMIT} bytes")
    text = result.stdout.decode("utf-8", "replace").strip()
    last = text.splitlines()[-1] if text else ""
    try:
        data = loads_bounded(last, what=f"the job runner's reply from {connector.name}") if last else None
    except JsonError as exc:  # nested 100k deep, a 5,000-digit offset: refused, never a traceback
        return RunnerReply(None, str(exc))
    if not isinstance(data, dict):
        err = result.stderr.decode("utf-8", "replace").strip()
        if not_found(result):
            return RunnerReply(None, f"{python!r} was not found on {connector.name}: {err.splitlines()[-1] if err else ''}".rstrip(": "))
        detail = err.splitlines()[-1] if err else f"exit status {result.exit_status}"
        return RunnerReply(None, f"the job runner failed on {connector.name} with {python}: {detail}")
    if "error" in data and len(data) == 1:
        return RunnerReply(None, str(data["error"]), missing=result.exit_status == 4)
    return RunnerReply(data)
