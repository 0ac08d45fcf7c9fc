"""Run the stdlib probe inside a host's Python in one round trip and bring the facts back.

The probe bundle is sent on stdin to ``<python> -`` (drift.remote.connectors.script: no shell quoting,
the remote process group ended on timeout), so nothing is written on the host and the host's own
interpreter (the one that has vLLM installed) does the reading. The reply is bounded and checked
(drift.remote.reply) before anything reads it. Failures of the
probe itself come back as a ProbeResult with a reason; only transport failures (unreachable,
auth, host key) stay ConnectorError, because the fleet runner classifies them per host.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable

from drift.remote.connectors.base import Connector
from drift.remote.connectors.script import not_found, run_script, validate_python
from drift.remote.reply import ReplyError, clean_display, printable, validate_reply, wire_key
from drift.probes import bundle
from drift.probes.collect import gc_paused

__all__ = ["MAX_WIRE_BYTES", "ProbeResult", "probe", "validate_python"]

MAX_WIRE_BYTES = 32 * 1024 * 1024  # compressed reply as read from the channel (vLLM 0.16: ~3 MB)


@dataclass(frozen=True)
class ProbeResult:
    status: str  # "ok" | "failed"
    facts: dict[str, Any] | None = None
    reason: str | None = None
    stderr: str = ""
    wire_digest: str | None = None  # sha256 of the reply's facts line as received (bundle.decode_reply)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def missing(self) -> list[str]:
        """Packages asked for but not installed in that Python (e.g. ["vllm"])."""
        return list((self.facts or {}).get("missing") or [])


def _tail(data: bytes, limit: int = 2000) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    return printable(text[-limit:])  # the host's stderr reaches the user's terminal


async def probe(
    connector: Connector,
    request: dict,
    *,
    python: str = "python3",
    timeout: float = 120,
    max_wire_bytes: int = MAX_WIRE_BYTES,
    max_reply_bytes: int = bundle.MAX_REPLY_BYTES,
    validate: Callable[[Any, dict], None] = validate_reply,
) -> ProbeResult:
    """Probe the Python at ``python`` on ``connector``'s host for the packages in ``request``.

    Transport failures (ConnectorError: unreachable, auth, hostkey, timeout) propagate so a
    fleet runner can classify the host; everything about the probe itself, including a reply
    that is too big or not shaped like facts, is a failed ProbeResult. Each package's
    "digest" in the result is drift's own content key; the host's claim is "host_digest".
    `validate` checks the reply's shape (a second exchange, `more`, has its own).
    """
    bad = validate_python(python)
    if bad:
        return ProbeResult(status="failed", reason=bad)
    try:
        script = bundle.build_script(request)
    except (ValueError, TypeError, KeyError) as exc:
        return ProbeResult(status="failed", reason=f"bad probe request: {exc}")

    result = await run_script(connector, python, script, name="<drift-probe>", timeout=timeout,
                              limit=max_wire_bytes)
    stderr = _tail(result.stderr)
    where = getattr(connector, "name", "host")
    if result.truncated:
        return ProbeResult(status="failed", stderr=stderr,
                           reason=f"the reply from {python} on {where} is larger than "
                                  f"{max_wire_bytes // (1024 * 1024)} MB; refusing to read it")
    if not_found(result):
        return ProbeResult(status="failed", reason=f"python not found on host: {python} ({where})", stderr=stderr)
    if result.exit_status == 126:
        return ProbeResult(status="failed", reason=f"python is not executable on host: {python} ({where})", stderr=stderr)
    if result.exit_status is None:
        return ProbeResult(status="failed", reason=f"probe was killed on {where} ({python})", stderr=stderr)

    try:
        with gc_paused():  # ~10^5 acyclic containers: a collection mid-decode frees nothing
            facts, body = bundle.decode_reply(result.stdout, max_bytes=max_reply_bytes)
    except ValueError as exc:  # decode_output says what is wrong with the stream
        detail = f"; stderr: {stderr}" if stderr else ""
        return ProbeResult(
            status="failed",
            reason=f"probe output from {python} on {where} could not be read "
            f"(exit {result.exit_status}): {exc}{detail}",
            stderr=stderr,
        )
    try:
        validate(facts, request)
    except ReplyError as exc:
        return ProbeResult(status="failed", stderr=stderr,
                           reason=f"the reply from {python} on {where} is not probe facts: {exc}")
    if facts.get("error"):  # the probe ran but refused the request or crashed; it says why
        return ProbeResult(status="failed", reason=f"probe on {where}: {printable(facts['error'])}", stderr=stderr)
    if result.exit_status != 0:
        return ProbeResult(status="failed", reason=f"probe exited {result.exit_status}: {stderr}", stderr=stderr)
    if body is None:  # a one-line reply: keyed by its facts re-encoded (~0.35 s for 9 MB)
        body = hashlib.sha256(json.dumps({k: facts[k] for k in ("packages", "more") if k in facts},
                                         sort_keys=True, default=str).encode("utf-8", "surrogatepass")).hexdigest()
    for name, pkg in (facts.get("packages") or {}).items():
        if not pkg.get("unchanged"):
            pkg["host_digest"] = pkg["digest"]
            pkg["digest"] = wire_key(name, body)  # over the facts as received, before any cleaning
    clean_display(facts)
    return ProbeResult(status="ok", facts=facts, stderr=stderr, wire_digest=body)
