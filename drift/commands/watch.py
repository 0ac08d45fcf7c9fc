"""`drift watch [HOST] [RUN_ID]`: re-attach to a detached job, show progress, explain a failure."""

from __future__ import annotations

import argparse
import asyncio
import json
import re

from rich.console import Console

from drift import exitcodes
from drift.config import ConfigError
from drift.remote.connectors.base import ConnectorError
from drift.jobs.connect import (
    JobSettings, add_host_arguments, open_connector, settings_from_args,
)
from drift.jobs.watch import WatchResult, watch
from drift.reports._common import fix_text

RUN_ID = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{4}$")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "watch", help="follow a detached job: new log lines, progress, failure explained",
        description="Re-attach to a job started by `drift launch`. Shows only log lines not shown "
                    "before, a progress bar from the log, and on failure the drift finding that "
                    "explains it. Exit 0 when the job succeeded, 1 when it failed, was killed or "
                    "lost, 3 when the connection dropped (re-run to resume).",
    )
    p.add_argument("targets", nargs="*", metavar="[HOST] [RUN_ID]",
                   help="host (default: config or this machine) and run id (default: latest)")
    add_host_arguments(p)
    p.add_argument("--no-follow", dest="follow", action="store_false", help="show what is new and return")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    p.add_argument("--json", action="store_true", help="no log lines; print the outcome as JSON")
    p.set_defaults(func=run)


def split_targets(targets: list[str]) -> tuple[str | None, str] | str:
    if len(targets) > 2:
        return "expected at most HOST and RUN_ID"
    if len(targets) == 2:
        return targets[0], targets[1]
    if len(targets) == 1:
        word = targets[0]
        return (None, word) if RUN_ID.match(word) or word == "latest" else (word, "latest")
    return None, "latest"


def run(args: argparse.Namespace) -> int:
    split = split_targets(args.targets)
    from drift.commands.common import fail, fail_connector

    if isinstance(split, str):
        return fail(split, exitcodes.USAGE, hint="drift watch [options] [HOST] [RUN_ID]")
    host, run_id = split
    if args.interval <= 0:
        return fail("--interval must be positive", exitcodes.USAGE)
    try:
        settings = settings_from_args(args, host=host)
    except ConfigError as exc:
        return fail(str(exc), exitcodes.USAGE)
    console = Console(stderr=False, highlight=False)
    try:
        result = asyncio.run(_watch(settings, run_id, follow=args.follow, interval=args.interval,
                                    console=console, quiet=args.json))
    except ConnectorError as exc:
        return fail_connector(exc)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        render(result, console)
    return result.exit_code


async def _watch(settings: JobSettings, run_id: str, **kwargs) -> WatchResult:
    connector = await open_connector(settings)
    try:
        return await watch(connector, run_id, python=settings.python, run_dir_root=settings.config.run_dir,
                           patterns=settings.config.progress_patterns, **kwargs)
    finally:
        try:
            await connector.close()
        except (ConnectorError, OSError):
            pass


def render(result: WatchResult, console: Console) -> None:
    """The closing lines: progress reached, outcome, and what drift knows about a failure. What
    the host sent (run ids, details, the log's error line) goes through `terminal`: shown, not obeyed."""
    from drift.output import terminal

    err = Console(stderr=True, highlight=False)
    if result.error:
        err.print(terminal(f"drift: error: {result.error}"), markup=False, soft_wrap=True)
    if result.progress:
        console.print(terminal("progress: " + " · ".join(str(c) for c in result.progress)), markup=False, soft_wrap=True)
    run = result.run
    if run is None:
        return
    console.print(terminal(f"run {run.run_id}: {run.outcome}" + (f" ({run.detail})" if run.detail else "")), markup=False, soft_wrap=True)
    diag = result.diagnosis
    if diag is None or diag.error is None:
        return
    console.print(terminal(f"error: {diag.error}"), markup=False, soft_wrap=True)
    for f in diag.findings[:3]:
        console.print(f"explained by {f.rule_id} ({f.severity.value}): {f.title}", markup=False, soft_wrap=True)
        console.print(f"  at {f.consumer_site}" + (f" - predicted: {f.predicted_failure}" if f.predicted_failure else ""),
                      markup=False, soft_wrap=True)
        if f.fix:
            # the edit itself, never the codemod's name; the tier says whether `drift patch` writes it
            console.print(f"  fix: {fix_text(f.fix)}", markup=False, soft_wrap=True)
    if diag.known and not diag.findings:
        console.print(f"known vLLM drift: {diag.known.name}: {diag.known.explanation}", markup=False, soft_wrap=True)
        console.print(f"  fix: {diag.known.fix}; run `drift scan` on this host to find the call sites", markup=False, soft_wrap=True)
    elif not diag.explained:
        console.print("drift has no finding that explains this error", markup=False, soft_wrap=True)
