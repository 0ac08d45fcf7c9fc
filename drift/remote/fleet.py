"""Run one job on many hosts with bounded concurrency; every host gets an outcome.

A fixed pool of `forks` workers pulls hosts from an iterator, so neither tasks nor connections
grow with the fleet (the default 8 stays under sshd's default MaxStartups of 10 unauthenticated
connections). A host that is down, refuses us or crashes the job is recorded and the others go
on: results, not exceptions, leave this module.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from drift.remote.connectors.base import ConnectorError

__all__ = ["HostOutcome", "STATUSES", "fleet_exit_code", "iter_fleet", "render_summary", "run_fleet",
           "summary_counts"]

H = TypeVar("H")
T = TypeVar("T")
STATUSES = ("ok", "drift", "failed", "unreachable")


@dataclass(frozen=True)
class HostOutcome(Generic[H, T]):
    host: H
    name: str
    status: str  # one of STATUSES
    value: T | None = None
    reason: str | None = None
    category: str | None = None  # ConnectorError category when the host could not be used
    hint: str | None = None
    elapsed_s: float = 0.0
    index: int = 0  # position in the input, so results can be reported in inventory order


def _host_name(host: Any) -> str:
    for attr in ("name", "spec"):
        value = getattr(host, attr, None)
        if isinstance(value, str):
            return value
    return str(host)


def _default_status(value: Any) -> str:
    status = getattr(value, "status", None)
    if isinstance(status, str) and status in STATUSES:
        return status
    return "ok"


async def _one(
    index: int,
    host: H,
    job: Callable[[H], Awaitable[T]],
    *,
    classify: Callable[[T], str],
    timeout: float | None,
) -> HostOutcome[H, T]:
    name, start = _host_name(host), time.monotonic()

    def done(**kw: Any) -> HostOutcome[H, T]:
        return HostOutcome(host=host, name=name, index=index, elapsed_s=time.monotonic() - start, **kw)

    try:
        value = await asyncio.wait_for(job(host), timeout) if timeout else await job(host)
    except ConnectorError as exc:
        status = "failed" if exc.category == "usage" else "unreachable"
        return done(status=status, reason=str(exc), category=exc.category, hint=exc.hint)
    except asyncio.TimeoutError:
        return done(status="unreachable", reason=f"{name}: no answer within {timeout:g}s", category="unreachable")
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # one host's bug must not stop the fleet; it is reported instead
        return done(status="failed", reason=f"{type(exc).__name__}: {exc}")
    status = classify(value)
    if status not in STATUSES:
        return done(status="failed", value=value, reason=f"job reported unknown status {status!r}")
    reason = getattr(value, "reason", None) if status != "ok" else None
    return done(status=status, value=value, reason=reason if isinstance(reason, str) else None)


async def iter_fleet(
    hosts: Iterable[H],
    job: Callable[[H], Awaitable[T]],
    *,
    forks: int = 8,
    classify: Callable[[T], str] | None = None,
    timeout: float | None = None,
) -> AsyncIterator[HostOutcome[H, T]]:
    """Yield outcomes as hosts finish (for progress); at most `forks` jobs run at once."""
    if forks < 1:
        raise ValueError("forks must be at least 1")
    classify_fn = classify or _default_status
    source = iter(enumerate(hosts))
    queue: asyncio.Queue[HostOutcome[H, T] | None] = asyncio.Queue()

    async def worker() -> None:
        try:
            for index, host in source:  # shared iterator: each host is taken exactly once
                queue.put_nowait(await _one(index, host, job, classify=classify_fn, timeout=timeout))
        finally:
            queue.put_nowait(None)

    workers = [asyncio.create_task(worker()) for _ in range(forks)]
    try:
        running = len(workers)
        while running:
            item = await queue.get()
            if item is None:
                running -= 1
            else:
                yield item
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


async def run_fleet(
    hosts: Iterable[H],
    job: Callable[[H], Awaitable[T]],
    *,
    forks: int = 8,
    classify: Callable[[T], str] | None = None,
    timeout: float | None = None,
    on_done: Callable[[HostOutcome[H, T]], None] | None = None,
) -> list[HostOutcome[H, T]]:
    """Run `job` on every host; outcomes come back in input order, one per host."""
    outcomes: list[HostOutcome[H, T]] = []
    async for outcome in iter_fleet(hosts, job, forks=forks, classify=classify, timeout=timeout):
        if on_done is not None:
            on_done(outcome)
        outcomes.append(outcome)
    outcomes.sort(key=lambda o: o.index)
    return outcomes


def summary_counts(outcomes: Iterable[HostOutcome[Any, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    return counts


def fleet_exit_code(outcomes: Iterable[HostOutcome[Any, Any]]) -> int:
    """The worst host decides: unreachable or refused (3) > failed (2) > drift (1) > clean (0).

    A host drift could not reach or could not check is worse news than drift on another: the
    fleet's verdict is unknown for it, so a gate must not read "only drift" as the whole story."""
    from drift import exitcodes

    counts = summary_counts(outcomes)
    if counts.get("unreachable"):
        return exitcodes.UNREACHABLE
    if counts.get("failed"):
        return exitcodes.USAGE
    if counts.get("drift"):
        return exitcodes.DRIFT
    return exitcodes.CLEAN


_STYLE = {"ok": "green", "drift": "yellow", "failed": "red", "unreachable": "magenta"}


def render_summary(outcomes: list[HostOutcome[Any, Any]], *, title: str = "fleet") -> Any:
    """A rich Table of per-host status (the lead may move this to reports/)."""
    from rich.table import Table

    counts = summary_counts(outcomes)
    caption = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    table = Table(title=title, caption=caption or "no hosts")
    table.add_column("host")
    table.add_column("status")
    table.add_column("time", justify="right")
    table.add_column("detail", overflow="fold")
    for o in outcomes:
        detail = o.reason or ""
        if o.hint:
            detail = f"{detail} (hint: {o.hint})" if detail else o.hint
        table.add_row(o.name, f"[{_STYLE.get(o.status, 'white')}]{o.status}[/]", f"{o.elapsed_s:.1f}s", detail)
    return table
