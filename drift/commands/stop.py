"""`drift stop [HOST] RUN_ID`: end a detached job (its whole process group) started by `drift launch`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from drift import exitcodes
from drift.config import ConfigError
from drift.remote.connectors.base import ConnectorError
from drift.jobs.connect import JobSettings, add_host_arguments, open_connector, settings_from_args
from drift.jobs.stop import SIGNALS, StopResult, stop_run


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "stop", help="stop a detached job: signal its process group",
        description="Send SIGTERM (or --signal INT/KILL) to the process group of a job started by "
                    "`drift launch`: the job and every process it started. The runner records how it "
                    "ended (`drift runs`). Exit 0 when signalled or already ended, 2 for no such run, "
                    "3 when the host is unreachable.",
    )
    p.add_argument("targets", nargs="*", metavar="[HOST] RUN_ID", help="host (default: config or this machine) "
                   "and run id (`latest` for the newest)")
    add_host_arguments(p)
    p.add_argument("--signal", default="TERM", type=str.upper, choices=SIGNALS, help="signal to send (default TERM)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from drift.commands.common import fail, fail_connector
    from drift.commands.watch import RUN_ID

    words = list(args.targets)
    if not words or len(words) > 2:
        return fail("expected [HOST] RUN_ID", exitcodes.USAGE, hint="drift stop [options] [HOST] RUN_ID")
    if len(words) == 1 and not (RUN_ID.match(words[0]) or words[0] == "latest"):
        return fail(f"{words[0]!r} is not a run id", exitcodes.USAGE,
                    hint="drift runs [HOST] lists them; drift stop HOST RUN_ID")
    host, run_id = (None, words[0]) if len(words) == 1 else (words[0], words[1])
    try:
        settings = settings_from_args(args, host=host)
    except ConfigError as exc:
        return fail(str(exc), exitcodes.USAGE)
    try:
        result = asyncio.run(_stop(settings, run_id, args.signal))
    except ConnectorError as exc:
        return fail_connector(exc)
    if result.error:
        return fail(result.error, exitcodes.USAGE)
    if args.json:
        print(json.dumps({"signalled": result.signalled, "signal": result.signal,
                          "run": result.run.to_dict() if result.run else None}, indent=2))
        return exitcodes.CLEAN
    run_ = result.run
    name = run_.run_id if run_ else run_id
    if result.signalled:
        print(f"run {name}: SIG{result.signal} sent to its process group (pid {run_.pid if run_ else '?'})")
    else:
        print(f"run {name}: not running ({run_.outcome if run_ else 'unknown'}); nothing signalled", file=sys.stderr)
    return exitcodes.CLEAN


async def _stop(settings: JobSettings, run_id: str, signal: str) -> StopResult:
    connector = await open_connector(settings)
    try:
        return await stop_run(connector, run_id, python=settings.python, run_dir_root=settings.config.run_dir,
                              signal=signal)
    finally:
        try:
            await connector.close()
        except (ConnectorError, OSError):
            pass
