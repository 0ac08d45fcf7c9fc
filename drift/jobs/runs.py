"""What jobs exist on a host and what really became of them.

The state comes from the host's runner, which checks the recorded pid against the kernel's
start time and boot id: a job that died without a recorded end is `lost`, never `running`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drift.remote.connectors.base import Connector
from drift.jobs.remote import call_runner
from drift.jobs.replies import ReplyError, checked_status

__all__ = ["RunInfo", "RunsResult", "list_runs"]


@dataclass(frozen=True)
class RunInfo:
    run_id: str
    state: str  # "running" | "exited" | "killed" | "lost"
    exit_code: int | None = None
    signal: int | None = None
    pid: int | None = None
    started_at: str | None = None
    finished_at: str | None = None
    command: tuple[str, ...] = ()
    forced: bool = False
    detail: str | None = None
    run_dir: str | None = None

    @classmethod
    def from_runner(cls, data: dict[str, Any]) -> "RunInfo":
        return cls(
            run_id=str(data.get("run_id")),
            state=str(data.get("state")),
            exit_code=data.get("exit_code"),
            signal=data.get("signal"),
            pid=data.get("pid"),
            started_at=data.get("started_at"),
            finished_at=data.get("finished_at"),
            command=tuple(data.get("command") or ()),
            forced=bool(data.get("forced")),
            detail=data.get("detail") or data.get("error"),
            run_dir=data.get("run_dir"),
        )

    @property
    def finished(self) -> bool:
        return self.state != "running"

    @property
    def succeeded(self) -> bool:
        return self.state == "exited" and self.exit_code == 0

    @property
    def outcome(self) -> str:
        """One phrase for a table cell: `running`, `exited 0`, `killed (SIGKILL)`, `lost`."""
        if self.state == "exited":
            return f"exited {self.exit_code}"
        if self.state == "killed":
            return f"killed ({_signame(self.signal)})"
        return self.state

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "state": self.state, "outcome": self.outcome, "exit_code": self.exit_code,
            "signal": self.signal, "pid": self.pid, "started_at": self.started_at,
            "finished_at": self.finished_at, "command": list(self.command), "forced": self.forced,
            "detail": self.detail, "run_dir": self.run_dir,
        }


def _signame(num: int | None) -> str:
    import signal

    try:
        return signal.Signals(num).name if num is not None else "signal ?"
    except ValueError:
        return f"signal {num}"


@dataclass(frozen=True)
class RunsResult:
    runs: tuple[RunInfo, ...]
    root: str | None = None
    error: str | None = None


async def list_runs(connector: Connector, *, python: str, run_dir_root: str) -> RunsResult:
    """Every run under the root on the connector's host, oldest first."""
    reply = await call_runner(connector, python, "list", run_dir_root)
    if not reply.ok or reply.data is None:
        return RunsResult((), error=reply.error)
    raw, root = reply.data.get("runs", ()), reply.data.get("root")
    try:
        if not isinstance(raw, list) or (root is not None and not isinstance(root, str)):
            raise ReplyError("`runs` is not a list or `root` not a string")
        runs = tuple(RunInfo.from_runner(checked_status(r)) for r in raw)
    except ReplyError as exc:
        return RunsResult((), error=f"{connector.name}: the job runner's reply is malformed: {exc}")
    return RunsResult(runs, root=root)
