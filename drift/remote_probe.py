"""Run the stdlib probe inside a host's Python in one round trip and bring the facts back.

The probe bundle is sent on stdin to ``<python> -``, so nothing is written on the host and the
host's own interpreter (the one that has vLLM installed) does the reading. Failures of the
probe itself come back as a ProbeResult with a reason; only transport failures (unreachable,
auth, host key) stay ConnectorError, because the fleet runner classifies them per host.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from drift.connectors.base import Connector
from probes import bundle

__all__ = ["ProbeResult", "probe", "validate_python"]

_BARE_COMMAND = re.compile(r"^[A-Za-z0-9._+-]+$")
_ABS_PATH = re.compile(r"^/[A-Za-z0-9._+\-/]+$")


@dataclass(frozen=True)
class ProbeResult:
    status: str  # "ok" | "failed"
    facts: dict[str, Any] | None = None
    reason: str | None = None
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def missing(self) -> list[str]:
        """Packages asked for but not installed in that Python (e.g. ["vllm"])."""
        return list((self.facts or {}).get("missing") or [])


def validate_python(python: str) -> str | None:
    """Return why ``python`` is not an acceptable interpreter path, or None when it is.

    It reaches a remote shell (quoted, but still), so only an absolute path or a bare command
    name made of ordinary characters is accepted.
    """
    if not isinstance(python, str) or not python:
        return "python interpreter must be a non-empty string"
    if python.startswith("/"):
        if not _ABS_PATH.match(python) or "/../" in python + "/" or "//" in python:
            return f"bad python path {python!r}: use an absolute path of letters, digits and ._+-/"
        return None
    if not _BARE_COMMAND.match(python) or python in (".", "..") or python.startswith("-"):
        return (
            f"bad python {python!r}: give an absolute path (/opt/venv/bin/python) "
            "or a command name such as python3"
        )
    return None


def _tail(data: bytes, limit: int = 2000) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    return text[-limit:]


async def probe(
    connector: Connector,
    request: dict,
    *,
    python: str = "python3",
    timeout: float = 120,
) -> ProbeResult:
    """Probe the Python at ``python`` on ``connector``'s host for the packages in ``request``.

    Transport failures (ConnectorError: unreachable, auth, hostkey, timeout) propagate so a
    fleet runner can classify the host; everything about the probe itself is a ProbeResult.
    """
    bad = validate_python(python)
    if bad:
        return ProbeResult(status="failed", reason=bad)
    try:
        script = bundle.build_script(request)
    except (ValueError, TypeError, KeyError) as exc:
        return ProbeResult(status="failed", reason=f"bad probe request: {exc}")
    payload = script.encode("utf-8") if isinstance(script, str) else script

    result = await connector.run([python, "-"], stdin=payload, timeout=timeout)
    stderr = _tail(result.stderr)
    where = getattr(connector, "name", "host")
    if result.exit_status == 127 or (
        result.exit_status not in (0, None) and not result.stdout and "No such file" in stderr
    ):
        return ProbeResult(status="failed", reason=f"python not found on host: {python} ({where})", stderr=stderr)
    if result.exit_status == 126:
        return ProbeResult(status="failed", reason=f"python is not executable on host: {python} ({where})", stderr=stderr)
    if result.exit_status is None:
        return ProbeResult(status="failed", reason=f"probe was killed on {where} ({python})", stderr=stderr)

    try:
        facts = bundle.decode_output(result.stdout)
    except ValueError as exc:  # decode_output says what is wrong with the stream
        detail = f"; stderr: {stderr}" if stderr else ""
        return ProbeResult(
            status="failed",
            reason=f"probe output from {python} on {where} could not be read "
            f"(exit {result.exit_status}): {exc}{detail}",
            stderr=stderr,
        )
    if not isinstance(facts, dict):
        return ProbeResult(status="failed", reason=f"probe returned {type(facts).__name__}, not facts", stderr=stderr)
    if facts.get("error"):  # the probe ran but refused the request or crashed; it says why
        return ProbeResult(status="failed", reason=f"probe on {where}: {facts['error']}", stderr=stderr)
    if result.exit_status != 0 and not facts:
        return ProbeResult(status="failed", reason=f"probe exited {result.exit_status}: {stderr}", stderr=stderr)
    return ProbeResult(status="ok", facts=facts, stderr=stderr)

