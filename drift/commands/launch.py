"""`drift launch [HOST] [-- COMMAND...]`: preflight, then run the job detached on the host."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from drift import exitcodes
from drift.config import ConfigError
from drift.remote.connectors.base import ConnectorError
from drift.jobs.connect import (
    JobSettings, add_host_arguments, open_connector, settings_from_args,
)
from drift.commands.common import fail, fail_connector
from drift.jobs.launch import LaunchResult, launch


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "launch", help="start a job detached on a host after a clean preflight",
        description="Check the consumer against the host's vLLM, refuse on breaking drift (unless "
                    "--force), then run COMMAND detached: it survives the SSH connection dropping. "
                    "Without COMMAND, launch.command from drift.toml is used.",
        usage="drift launch [options] [HOST] [-- COMMAND ...]",
    )
    add_host_arguments(p)
    p.add_argument("-c", "--consumer", default=None, metavar="CONSUMER",
                   help="the code the preflight checks, as installed on the host (default: consumer in drift.toml)")
    p.add_argument("--force", action="store_true", help="launch even if the preflight finds breaking drift")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("words", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(func=run, _parser=p)


def _split_words(args: argparse.Namespace) -> tuple[str | None, list[str]] | str:
    """HOST and COMMAND from `[HOST] [options] [-- COMMAND...]`; a message when ambiguous."""
    words = list(args.words)
    before, command = (words[: words.index("--")], words[words.index("--") + 1 :]) if "--" in words else (words, [])
    host = before[0] if before else None
    if host is not None and host.startswith("-"):
        return f"unexpected option {host!r} (options go before HOST)"
    if len(before) > 1:
        rest = args._parser.parse_args(before[1:])  # options written after HOST
        if rest.words:
            return "put the command after `--`: drift launch [HOST] -- COMMAND ..."
        for key, value in vars(rest).items():
            if key != "words" and value not in (None, False):
                setattr(args, key, value)
    return host, command


def run(args: argparse.Namespace) -> int:
    split = _split_words(args)
    if isinstance(split, str):
        return fail(split, exitcodes.USAGE, hint="drift launch [options] [HOST] -- COMMAND ...")
    host, command = split
    try:
        settings = settings_from_args(args, host=host)
    except ConfigError as exc:
        return fail(str(exc), exitcodes.USAGE)
    if args.consumer:
        import dataclasses

        settings = dataclasses.replace(settings, config=settings.config.override(consumer=args.consumer))
    argv = command or list(settings.config.launch_command)
    if not argv:
        return fail("no command to launch", exitcodes.USAGE,
                    hint="give one after `--`, or set launch.command in drift.toml (docs/config.md)")
    try:
        result = asyncio.run(_launch(settings, argv, force=args.force))
    except ConnectorError as exc:
        return fail_connector(exc)
    return _print(result, settings, as_json=args.json, args=args)


async def _launch(settings: JobSettings, argv: list[str], *, force: bool) -> LaunchResult:
    from drift.pipeline import preflight  # its hook looked up at call time: a test may replace it

    connector = await open_connector(settings)
    try:
        return await launch(
            connector, command=argv, python=settings.python, run_dir_root=settings.config.run_dir,
            preflight=lambda: preflight.preflight_hook(connector, settings), force=force,
        )
    finally:
        await connector.close()


def connection_flags(args: argparse.Namespace, settings: JobSettings) -> list[str]:
    """The flags that reach the same host and run directory again, for a command to paste."""
    import shlex

    out: list[str] = []
    for key in getattr(args, "identity", None) or ():
        out += ["-i", key]
    for flag, name in (("-J", "jump"), ("-p", "port"), ("-F", "ssh_config"), ("--known-hosts", "known_hosts"),
                       ("--python", "python"), ("--run-dir", "run_dir"), ("--config", "config"),
                       ("--connect-timeout", "connect_timeout")):
        value = getattr(args, name, None)
        if value not in (None, ""):
            out += [flag, str(value)]
    return [shlex.quote(word) for word in out]


def _print(result: LaunchResult, settings: JobSettings, *, as_json: bool, args: argparse.Namespace | None = None) -> int:
    from drift.output import terminal  # reasons, notes and ids come from the host: shown, not obeyed

    code = result.exit_code
    if result.status == "started" and result.run and result.run.finished and not result.run.succeeded:
        code = exitcodes.DRIFT  # it could not even start (command not found, ...)
    if as_json:
        print(json.dumps(dict(result.to_dict(), exit_code=code), indent=2))
        return code
    where = settings.host or "local"
    if result.status == "refused":
        print(terminal(f"drift: error: refused on {where}: {result.reason}"), file=sys.stderr)
        for f in result.breaking:
            print(terminal(f"  {f.rule_id} {f.title}") + "\n" + terminal(f"    at {f.consumer_site}"), file=sys.stderr)
            if f.predicted_failure:
                print(terminal(f"    will fail with: {f.predicted_failure}"), file=sys.stderr)
            if f.fix:
                print(terminal(f"    fix: {f.fix.description}"), file=sys.stderr)
        return code
    if result.status == "failed":
        print(terminal(f"drift: error: cannot start on {where}: {result.reason}"), file=sys.stderr)
        return code
    run = result.run
    for note in result.notes:
        print(terminal(f"note: {note}"), file=sys.stderr)
    if result.forced and result.breaking:
        print(terminal(f"warning: launched with --force despite {len(result.breaking)} breaking finding(s)"), file=sys.stderr)
    print(terminal(result.run_id))
    flags = connection_flags(args, settings) if args is not None else []
    host_arg = " ".join([*flags, *([settings.host] if settings.host else [])])
    host_arg += " " if host_arg else ""
    if run and run.finished and not run.succeeded:
        print(terminal(f"drift: error: the job did not start: {run.detail or run.outcome}"), file=sys.stderr)
    else:
        print(terminal(f"started on {where} (pid {run.pid if run else '?'}); log: {result.run_dir}/log") + "\n"
              + terminal(f"follow it with: drift watch {host_arg}{result.run_id}"), file=sys.stderr)
    return code
