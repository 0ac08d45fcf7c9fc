"""Command-line entry point: one subcommand module per command in drift.commands.

Each module exposes `add_parser(subparsers)` which registers its parser and sets
`func=run`, where `run(args) -> int` returns an exit code from drift.exitcodes.
"""

from __future__ import annotations

import argparse
import gc
import os
import importlib
import sys

from drift import __version__, exitcodes

COMMANDS = ("snapshot", "diff", "check", "scan", "patch", "launch", "watch", "runs", "stop", "gate", "explain")

# Commands whose positionals (HOST, RUN_ID) and options may come in any order, as
# `drift watch HOST -F cfg RUN_ID` (argparse's intermixed parsing; a plain parse stops the
# positionals at the first option and then refuses the run id).
INTERMIXED = frozenset({"watch", "runs", "stop"})


class Parser(argparse.ArgumentParser):
    """argparse with drift's one error shape: `drift: error: …` and a hint, exit 2."""

    def error(self, message: str):  # type: ignore[override]
        sys.stderr.write(f"drift: error: {message}\n  hint: {self.prog} --help\n")
        raise SystemExit(exitcodes.USAGE)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that command's module is imported (each pulls in asyncssh,
    libcst or rich, which is most of a warm command's wall time)."""
    parser = Parser(
        prog="drift",
        description="Find what in vLLM's installed source breaks your code, before the model loads.",
    )
    parser.add_argument("--version", action="version", version=f"drift {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        if only is not None and name != only:
            sub.add_parser(name)  # listed, not loaded: argparse still knows the word
            continue
        try:
            module = importlib.import_module(f"drift.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"drift.commands.{name}":
                raise
            continue
        module.add_parser(sub)
    parser.commands = sub.choices  # name -> its parser, for the intermixed parse
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
    words = sys.argv[1:] if argv is None else list(argv)
    first = next((w for w in words if not w.startswith("-")), None)
    parser = build_parser(first if first in COMMANDS else None)
    if first in INTERMIXED and words and words[0] == first:
        args = parser.commands[first].parse_intermixed_args(words[1:])
        args.command = first
    else:
        args = parser.parse_args(words)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return exitcodes.USAGE
    was_enabled, threshold = gc.isenabled(), gc.get_threshold()
    _tune_gc(args.command)
    from drift.commands.common import OutputError, fail

    try:
        return int(args.func(args))
    except OutputError as exc:  # -o names a directory, an unwritable path: what, where, exit 2
        return fail(str(exc), exitcodes.USAGE)
    except KeyboardInterrupt:
        print("drift: interrupted", file=sys.stderr)
        return 130
    finally:  # callers that embed drift (tests, tools) get their collector back as it was
        gc.set_threshold(*threshold)
        if was_enabled:
            gc.enable()


def entry() -> None:
    """Console-script entry: run, flush, and leave without tearing down the heap.

    A diff holds millions of small objects; freeing them one by one at interpreter exit took
    longer than the diff itself. Everything drift writes is flushed or closed by then.
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
