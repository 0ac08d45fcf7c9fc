"""`drift runs [HOST]`: the jobs on a host and what became of them (never `running` for a dead one)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from rich.console import Console
from rich.table import Table

from drift import exitcodes
from drift.config import ConfigError
from drift.connectors.base import ConnectorError
from drift.jobs.connect import (
    JobSettings, add_host_arguments, connector_error_code, describe_error, open_connector, settings_from_args,
)
from drift.jobs.runs import RunsResult, list_runs

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
    try:
        settings = settings_from_args(args, host=args.host)
    except ConfigError as exc:
        print(describe_error(exc), file=sys.stderr)
        return exitcodes.USAGE
    try:
        result = asyncio.run(_runs(settings))
    except ConnectorError as exc:
        print(describe_error(exc), file=sys.stderr)
        return connector_error_code(exc)
    if result.error:
        print(f"drift runs: {result.error}", file=sys.stderr)
        return exitcodes.USAGE
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
    if not result.runs:
        console.print(f"no runs under {result.root} on {host}", markup=False)
        return
    table = Table(title=f"runs on {host} ({result.root})", title_justify="left")
    for col in ("run id", "state", "pid", "started", "finished", "forced"):
        table.add_column(col, no_wrap=col != "state")
    table.add_column("command", overflow="fold", ratio=1)
    for r in result.runs:
        state = r.outcome + (f"\n{r.detail}" if r.detail else "")
        table.add_row(r.run_id, f"[{STYLE.get(r.state, '')}]{_esc(state)}[/]", str(r.pid or ""),
                      r.started_at or "", r.finished_at or "", "yes" if r.forced else "",
                      _esc(" ".join(r.command)))
    console.print(table)


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)
