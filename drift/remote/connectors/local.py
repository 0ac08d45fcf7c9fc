"""Run on this machine through the same interface as a remote host.

Commands are argv lists executed directly (no shell), so a path with spaces or `;` in it is
just a path. `put` writes a temp file in the target directory and renames it over the target,
so a reader never sees half a file.
"""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile

from drift.remote.connectors.base import ConnectorError, RunResult
from drift.remote.connectors.base import read_capped as _capped, read_tail as _tail

STDERR_LIMIT = 256_000  # bytes of stderr kept

__all__ = ["LocalConnector"]


class LocalConnector:
    """The Connector for the machine drift runs on."""

    name = "local"

    async def run(self, argv: list[str], *, stdin: bytes | None = None, timeout: float | None = None,
                  limit: int | None = None) -> RunResult:
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ConnectorError("command must be a non-empty list of strings", category="usage")
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            # Same shape as a remote shell's "command not found" so callers handle one case.
            return RunResult(exit_status=127, stdout=b"", stderr=f"{argv[0]}: No such file or directory: {exc}\n".encode())
        except PermissionError as exc:
            return RunResult(exit_status=126, stdout=b"", stderr=f"{argv[0]}: Permission denied: {exc}\n".encode())
        try:
            out, err, truncated = await asyncio.wait_for(_communicate(proc, stdin, limit), timeout)
        except asyncio.TimeoutError:
            await _end(proc)
            raise ConnectorError(
                f"command timed out after {timeout:g}s: {argv[0]}", category="unreachable"
            ) from None
        except BaseException:  # cancelled (Ctrl-C) or anything else: leave nothing running
            await asyncio.shield(_end(proc))
            raise
        status = proc.returncode if proc.returncode is not None and proc.returncode >= 0 else None
        return RunResult(exit_status=status, stdout=out, stderr=err, truncated=truncated)

    async def put(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        await asyncio.to_thread(_atomic_write, path, data, mode)

    async def get(self, path: str) -> bytes:
        try:
            return await asyncio.to_thread(_read, path)
        except OSError as exc:
            raise ConnectorError(f"cannot read {path}: {exc.strerror or exc}", category="usage") from None

    async def close(self) -> None:
        return None

    async def __aenter__(self) -> "LocalConnector":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _communicate(proc, stdin: bytes | None, limit: int | None) -> tuple[bytes, bytes, bool]:
    async def feed() -> None:
        if proc.stdin is None:
            return
        try:
            if stdin:
                proc.stdin.write(stdin)
                await proc.stdin.drain()
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the command did not read all of it; its output says why

    feeder = asyncio.ensure_future(feed())
    err_task = asyncio.ensure_future(_tail(proc.stderr, STDERR_LIMIT))
    try:
        out, truncated = await _capped(proc.stdout, limit)
        if truncated:
            await _end(proc)
        err = await err_task
        await feeder
    finally:
        for task in (feeder, err_task):
            task.cancel()
    if not truncated:
        await proc.wait()
    return out, err[-STDERR_LIMIT:], truncated


async def _end(proc) -> None:
    """End the command's whole process group: TERM (drift's bootstrap passes it on to the
    script's own group), then KILL after a grace period."""
    for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        if proc.returncode is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            await asyncio.wait_for(proc.wait(), grace)
            return
        except asyncio.TimeoutError:
            continue


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _atomic_write(path: str, data: bytes, mode: int) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except OSError as exc:
        raise ConnectorError(f"cannot write {path}: {exc.strerror or exc}", category="usage") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise ConnectorError(f"cannot write {path}: {exc.strerror or exc}", category="usage") from None
