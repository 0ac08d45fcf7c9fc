"""Command-line entry point: one subcommand module per command in drift.commands.

Each module exposes `add_parser(subparsers)` which registers its parser and sets
`func=run`, where `run(args) -> int` returns an exit code from drift.exitcodes.
"""

from __future__ import annotations

import argparse
import gc
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


# Commands that only read facts build millions of acyclic objects and exit: the cyclic GC would
# re-walk them again and again (a warm diff spends 70% of its time there) and frees nothing.
_ACYCLIC = frozenset({"check", "diff", "gate", "snapshot"})


def _tune_gc(command: str | None) -> None:
    if command in _ACYCLIC:
        gc.disable()
    else:  # long-lived network commands keep the collector, just less eager
        gc.set_threshold(100_000, 20, 20)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return exitcodes.USAGE
    was_enabled, threshold = gc.isenabled(), gc.get_threshold()
    _tune_gc(args.command)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("drift: interrupted", file=sys.stderr)
        return 130
    finally:  # callers that embed drift (tests, tools) get their collector back as it was
        gc.set_threshold(*threshold)
        if was_enabled:
            gc.enable()


if __name__ == "__main__":
    sys.exit(main())
