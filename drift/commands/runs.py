"""`drift runs [HOST]`: the jobs on a host and what became of them (never `running` for a dead one)."""

from __future__ import annotations

import argparse
import asyncio
import json

from rich import box
from rich.console import Console
from rich.table import Table

from drift import exitcodes
from drift.config import ConfigError
from drift.output import markup
from drift.remote.connectors.base import ConnectorError
from drift.jobs.connect import (
    JobSettings, add_host_arguments, open_connector, settings_from_args,
)
from drift.jobs.runs import RunInfo, RunsResult, list_runs

HEAD = ("run id", "state", "pid", "started (UTC)")
STYLE = {"running": "cyan", "exited": "green", "killed": "red", "lost": "yellow"}


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("runs", help="list the jobs launched on a host",
                              description="List runs under the run directory with their real state: "
                                          "running, exited N, killed (signal) or lost.")
    p.add_argument("host", nargs="?", help="host (default: config or this machine)")
    add_host_arguments(p)
    p.add_argument("--json", action="store_true", help="print the runs as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from drift.commands.common import fail, fail_connector

    try:
        settings = settings_from_args(args, host=args.host)
    except ConfigError as exc:
        return fail(str(exc), exitcodes.USAGE)
    try:
        result = asyncio.run(_runs(settings))
    except ConnectorError as exc:
        return fail_connector(exc)
    if result.error:
        return fail(result.error, exitcodes.USAGE)
    if args.json:
        print(json.dumps({"host": settings.host or "local", "root": result.root,
                          "runs": [r.to_dict() for r in result.runs]}, indent=2))
        return exitcodes.CLEAN
    render(result, Console(highlight=False), host=settings.host or "local")
    return exitcodes.CLEAN


async def _runs(settings: JobSettings) -> RunsResult:
    connector = await open_connector(settings)
    try:
        return await list_runs(connector, python=settings.python, run_dir_root=settings.config.run_dir)
    finally:
        await connector.close()


def render(result: RunsResult, console: Console, *, host: str) -> None:
    """The runs a host's runner listed: its ids, commands and details are the host's text, so
    every line goes through `terminal` (shown, not obeyed), every table cell through `_esc`."""
    from drift.output import terminal

    if not result.runs:
        console.print(terminal(f"no runs under {result.root} on {host}"), markup=False)
        return
    cells = [(r.run_id, _state(r), str(r.pid or ""), _short(r.started_at)) for r in result.runs]
    widths = [max(len(name), *(len(c[i]) for c in cells)) for i, name in enumerate(HEAD)]
    if not console.is_terminal:  # piped: whole lines, every command in full
        console.print(terminal(f"runs on {host} ({result.root})"), markup=False, soft_wrap=True)
        console.print("  ".join(n.ljust(w) for n, w in zip(HEAD, widths)) + "  command", markup=False, soft_wrap=True)
        for r, row in zip(result.runs, cells):
            console.print(terminal("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + " ".join(r.command)),
                          markup=False, soft_wrap=True)
        for r in result.runs:
            if r.detail:
                console.print(terminal(f"  {r.run_id}: {r.detail}"), markup=False, soft_wrap=True)
        return
    table = Table(title=f"runs on {host} ({result.root})", title_justify="left", box=box.SIMPLE_HEAD)
    for name, width in zip(HEAD, widths):
        table.add_column(name, no_wrap=True, width=width)
    # the command always shows: on a narrow terminal it wraps in its column, piped it is whole
    table.add_column("command", overflow="fold", ratio=1)
    for r, (run_id, state, pid, started) in zip(result.runs, cells):
        table.add_row(markup(run_id), f"[{STYLE.get(r.state, '')}]{markup(state)}[/]", markup(pid), markup(started),
                      markup(" ".join(r.command)))
    console.print(table)
    for r in result.runs:
        if r.detail:
            console.print(terminal(f"  {r.run_id}: {r.detail}"), markup=False, soft_wrap=True)


def _state(run: RunInfo) -> str:
    return run.outcome + (" (forced)" if run.forced else "")


def _short(stamp: str | None) -> str:
    """`2026-11-29T10:15:00Z` -> `11-29 10:15:00` (UTC), so the table fits a terminal."""
    return stamp[5:19].replace("T", " ") if stamp and len(stamp) >= 19 else (stamp or "")
