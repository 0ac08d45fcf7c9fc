"""Run on this machine through the same interface as a remote host.

Commands are argv lists executed directly (no shell), so a path with spaces or `;` in it is
just a path. `put` writes a temp file in the target directory and renames it over the target,
so a reader never sees half a file.
"""

from __future__ import annotations

import asyncio
import os
import tempfile

from drift.connectors.base import ConnectorError, RunResult

__all__ = ["LocalConnector"]


class LocalConnector:
    """The Connector for the machine drift runs on."""

    name = "local"

    async def run(self, argv: list[str], *, stdin: bytes | None = None, timeout: float | None = None) -> RunResult:
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
            out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
            raise ConnectorError(
                f"command timed out after {timeout:g}s: {argv[0]}", category="unreachable"
            ) from None
        except asyncio.CancelledError:
            proc.kill()
            raise
        status = proc.returncode if proc.returncode is not None and proc.returncode >= 0 else None
        return RunResult(exit_status=status, stdout=out, stderr=err)

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
