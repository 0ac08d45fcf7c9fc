"""Re-attach to a detached job: new log lines, a progress bar, and on failure the finding.

Why poll: the job must not depend on the watcher, so there is nothing to attach to but files.
Each poll is one bounded read (`max_bytes`) from the last offset; the offset of the last
complete line is stored locally per host and run, so a watch that lost its connection (or was
interrupted) resumes where it stopped and shows only what is new.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from drift import exitcodes
from drift.output import in_github_actions, terminal, workflow_guard
from drift.remote.connectors.base import Connector, ConnectorError
from drift.findings import Finding
from drift.jobs.failures import Diagnosis, diagnose
from drift.jobs.progress import Counter, LineSplitter, ProgressTracker
from drift.jobs.remote import call_runner
from drift.jobs.replies import ReplyError, checked_poll, checked_status, safe_run_id
from drift.jobs.runs import RunInfo

__all__ = ["OffsetStore", "WatchResult", "default_state_dir", "link_errors", "watch"]

TAIL_BYTES = 65536


def default_state_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "drift" / "runs"


def link_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean the connection is gone (the ssh connector should wrap them all)."""
    errors: list[type[BaseException]] = [ConnectorError, OSError, asyncio.TimeoutError, EOFError]
    try:
        import asyncssh

        errors.append(asyncssh.Error)
    except ImportError:  # pragma: no cover - asyncssh is a dependency
        pass
    return tuple(errors)


@dataclass(frozen=True)
class OffsetStore:
    """`<state_dir>/<host>/<run_id>.offset`: how far this machine has shown a run's log."""

    state_dir: Path
    host: str

    def path(self, run_id: str) -> Path:
        """Always a file directly in this host's folder: a run id that is not a plain name
        (a hostile runner's `../../x`) raises ReplyError before any path is made of it."""
        host = re.sub(r"[^A-Za-z0-9._@-]", "_", self.host).lstrip(".") or "_"
        return self.state_dir / host / f"{safe_run_id(run_id)}.offset"

    def load(self, run_id: str) -> int:
        try:
            return max(0, int(self.path(run_id).read_text().strip()))
        except (OSError, ValueError):
            return 0

    def save(self, run_id: str, offset: int) -> bool:
        """False when the cache is not writable: the watch goes on, only resuming is lost."""
        path = self.path(run_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(f"{offset}\n")
            os.replace(tmp, path)
        except OSError:
            return False
        return True


@dataclass(frozen=True)
class WatchResult:
    exit_code: int
    run: RunInfo | None = None
    progress: tuple[Counter, ...] = ()
    diagnosis: Diagnosis | None = None
    offset: int = 0
    error: str | None = None
    lines: tuple[str, ...] = field(default=(), repr=False)  # what was shown, for --json and tests

    def to_dict(self) -> dict[str, Any]:
        diag = self.diagnosis
        return {
            "exit_code": self.exit_code, "error": self.error, "offset": self.offset,
            "run": self.run.to_dict() if self.run else None,
            "progress": [{"label": c.label, "done": c.done, "total": c.total} for c in self.progress],
            "failure": None if diag is None else {
                "error": diag.error, "known": diag.known.name if diag.known else None,
                "explanation": diag.known.explanation if diag.known else None,
                "findings": [f.to_dict() for f in diag.findings],
            },
        }


def exit_code_for(run: RunInfo) -> int:
    return exitcodes.CLEAN if run.succeeded or not run.finished else exitcodes.DRIFT


class _Display:
    """Log lines above a live bar on a terminal; plain lines (no bar) otherwise; nothing for JSON."""

    def __init__(self, console: Console, *, quiet: bool, tracker: ProgressTracker) -> None:
        self.console, self.quiet, self.tracker = console, quiet, tracker
        self.live = console.is_terminal and not quiet
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=console, transient=True) if self.live else None
        self.tasks: dict[str, Any] = {}
        self.shown: list[str] = []

    def __enter__(self) -> "_Display":
        if self.bar:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar:
            self.bar.stop()

    def line(self, segments: list[str], final: str) -> None:
        for seg in segments:
            self.tracker.feed(seg)
        self._update()
        if self.live and self.tracker.matches(final):
            return  # the bar already shows it
        self.shown.append(final)
        if not self.quiet:
            # a job's log is someone else's output: its escape sequences are shown, not obeyed, and
            # under GitHub Actions a remote job's `::` line is not a command to this runner
            shown = terminal(final.expandtabs())
            self.console.print(Text(workflow_guard(shown) if in_github_actions() else shown), soft_wrap=True)

    def partial(self, segments: list[str]) -> None:
        for seg in segments:
            self.tracker.feed(seg)
        self._update()

    def _update(self) -> None:
        if not self.bar:
            return
        for c in self.tracker.counters:
            if c.label not in self.tasks:
                self.tasks[c.label] = self.bar.add_task(c.label, total=c.total)
            self.bar.update(self.tasks[c.label], completed=c.done, total=c.total)


async def watch(
    connector: Connector,
    run_id: str,
    *,
    python: str,
    run_dir_root: str,
    follow: bool = True,
    interval: float = 1.0,
    max_bytes: int = 65536,
    state_dir: Path | None = None,
    console: Console | None = None,
    quiet: bool = False,
    patterns: Mapping[str, str] | None = None,
) -> WatchResult:
    """Follow run `run_id` ("latest" allowed) until it ends (or once, without `follow`)."""
    console = console or Console()
    tracker = ProgressTracker(patterns)
    store = OffsetStore(state_dir or default_state_dir(), connector.name)
    splitter = LineSplitter()
    run: RunInfo | None = None
    resolved = run_id if run_id != "latest" else None
    if resolved is not None and not _plain(resolved):
        return WatchResult(exitcodes.USAGE, error=f"the run id {run_id!r} is not a plain name")
    offset = store.load(resolved) if resolved else 0
    with _Display(console, quiet=quiet, tracker=tracker) as display:
        try:
            if resolved is None:
                first = await call_runner(connector, python, "poll", run_dir_root, run_id, "0", "0")
                if not first.ok or first.data is None:
                    return _missing(first.error, run_id, connector.name, first.missing)
                resolved = safe_run_id(checked_status(first.data.get("status"))["run_id"])
                offset = store.load(resolved)
            base = read_pos = offset  # base: where the splitter started; read_pos: next byte to fetch
            while True:
                reply = await call_runner(connector, python, "poll", run_dir_root, resolved, str(read_pos), str(max_bytes))
                if not reply.ok or reply.data is None:
                    return _missing(reply.error, resolved, connector.name, reply.missing)
                data = reply.data
                got, read_pos, size, reset, blob = checked_poll(data, asked=read_pos, max_bytes=max_bytes)
                if data["status"]["run_id"] != resolved:
                    raise ReplyError(f"asked for run {resolved}, the reply is about {data['status']['run_id']!r}")
                run = RunInfo.from_runner(data["status"])
                if reset:  # the log is shorter than our offset: it was replaced
                    base, splitter = got, LineSplitter()
                for segments, final in splitter.feed(blob):
                    display.line(segments, final)
                display.partial(splitter.pending())
                at_end = read_pos >= size
                if run.finished and at_end:
                    for segments, final in splitter.flush():
                        display.line(segments, final)
                store.save(resolved, base + splitter.committed)
                if at_end and (run.finished or not follow):
                    break
                if at_end:
                    await asyncio.sleep(interval)
        except ReplyError as exc:
            return WatchResult(exitcodes.USAGE, run=run, progress=tracker.counters,
                               offset=store.load(resolved) if resolved else 0,
                               error=f"{connector.name}: the job runner's reply is malformed: {exc}",
                               lines=tuple(display.shown))
        except link_errors() as exc:
            saved = store.load(resolved) if resolved else 0
            message = (f"lost the connection to {connector.name} while watching {resolved or run_id}: {exc}; "
                       f"the job keeps running. Re-run `drift watch` to resume from byte {saved}.")
            return WatchResult(exitcodes.UNREACHABLE, run=run, progress=tracker.counters, offset=saved,
                               error=message, lines=tuple(display.shown))
    diagnosis = None
    if run.finished and not run.succeeded:
        try:
            diagnosis = await _diagnose(connector, python=python, run_dir_root=run_dir_root, run=run)
        except link_errors():
            diagnosis = None
    return WatchResult(exit_code_for(run), run=run, progress=tracker.counters, diagnosis=diagnosis,
                       offset=store.load(resolved), lines=tuple(display.shown))


def _plain(run_id: str) -> bool:
    try:
        safe_run_id(run_id)
    except ReplyError:
        return False
    return True


def _missing(error: str | None, run_id: str, host: str, missing: bool) -> WatchResult:
    if missing:
        return WatchResult(exitcodes.USAGE, error=f"no run {run_id} on {host} ({error})")
    return WatchResult(exitcodes.USAGE, error=error or "the job runner gave no answer")


async def _diagnose(connector: Connector, *, python: str, run_dir_root: str, run: RunInfo) -> Diagnosis | None:
    reply = await call_runner(connector, python, "tail", run_dir_root, run.run_id, str(TAIL_BYTES))
    if not reply.ok or reply.data is None:
        return None
    try:
        _, _, _, _, blob = checked_poll(reply.data, asked=None, max_bytes=TAIL_BYTES)
    except ReplyError:
        return None
    text = blob.decode("utf-8", "replace")
    return diagnose(text, await load_findings(connector, run))


async def load_findings(connector: Connector, run: RunInfo) -> tuple[Finding, ...]:
    """The preflight findings stored at launch; none when the run was launched without one."""
    if not run.run_dir:
        return ()
    try:
        raw = await connector.get(f"{run.run_dir}/preflight.json")
    except ConnectorError:
        return ()
    try:
        data = json.loads(raw)
        return tuple(Finding.from_dict(d) for d in data.get("findings", ()))
    except (ValueError, KeyError, TypeError, AttributeError):
        return ()
