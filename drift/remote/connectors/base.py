"""The one small interface every place drift acts on implements (pyinfra's connector idea).

`local` runs on this machine, `ssh` on a host over asyncssh; commands are argv lists and are
quoted with shlex.join before they reach a remote shell, never interpolated. drift's own remote
work goes through `script.run_script`, whose command line needs no quoting at all. `limit`
bounds what a command may send back (a host is untrusted input), and on a timeout or a
cancellation the command is ended, not left running.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class ConnectorError(Exception):
    """A host could not be reached or refused us; carries an exit-code category."""

    def __init__(self, message: str, *, category: str = "unreachable", hint: str | None = None):
        super().__init__(message)
        self.category = category  # "unreachable" | "auth" | "hostkey" | "usage"
        self.hint = hint


@dataclass(frozen=True)
class RunResult:
    exit_status: int | None  # None when the command was killed by a signal or the link dropped
    stdout: bytes
    stderr: bytes
    truncated: bool = False  # stdout went past the caller's limit: the rest was not read

    @property
    def ok(self) -> bool:
        return self.exit_status == 0


class Connector(Protocol):
    """Run a command, put a file, get a file. Async so fleets fan out on one loop."""

    name: str  # "local" or the host as the user wrote it

    async def run(self, argv: list[str], *, stdin: bytes | None = None, timeout: float | None = None,
                  limit: int | None = None) -> RunResult: ...

    async def put(self, path: str, data: bytes, *, mode: int = 0o644) -> None: ...

    async def get(self, path: str) -> bytes: ...

    async def close(self) -> None: ...


async def read_capped(stream, limit: int | None) -> tuple[bytes, bool]:
    """Read a stream to EOF, or stop once more than `limit` bytes came (then report truncation):
    a host's reply is untrusted, so it is never read without a bound."""
    parts, n = [], 0
    while True:
        chunk = await stream.read(1 << 16)
        if not chunk:
            return b"".join(parts), False
        parts.append(chunk)
        n += len(chunk)
        if limit is not None and n > limit:
            return b"".join(parts)[:limit], True


async def read_tail(stream, keep: int) -> bytes:
    """Drain a stream to EOF (so the writer never blocks), keeping the last `keep` bytes."""
    buf = bytearray()
    while True:
        chunk = await stream.read(1 << 16)
        if not chunk:
            return bytes(buf)
        buf += chunk
        if len(buf) > 2 * keep:
            del buf[:-keep]
