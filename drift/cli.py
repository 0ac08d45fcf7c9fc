"""Command-line entry point: one subcommand module per command in drift.commands.

Each module exposes `add_parser(subparsers)` which registers its parser and sets
`func=run`, where `run(args) -> int` returns an exit code from drift.exitcodes.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from drift import __version__, exitcodes

COMMANDS = ("snapshot", "diff", "check", "scan", "patch", "launch", "watch", "runs", "gate")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drift",
        description="Find what in vLLM's installed source breaks your code, before the model loads.",
    )
    parser.add_argument("--version", action="version", version=f"drift {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"drift.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"drift.commands.{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return exitcodes.USAGE
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("drift: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
