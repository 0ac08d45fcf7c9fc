"""Pieces every command shares: progress on stderr, error printing, report output options."""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

from rich.console import Console

import reports
from drift.findings import Report


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False)


@contextlib.contextmanager
def progress(enabled: bool = True, *, verbose: bool = False) -> Iterator[Callable[[str], None]]:
    """A status line on stderr while long work runs (fetching, parsing).

    Piped, a redrawn line would be noise, so only a fetch's steps (`drift.sources.progress.Step`)
    print, one line each; byte counts show only on a terminal. With `verbose`, the note of which
    way a release was fetched (`Note`) stays on screen, terminal or not.
    """
    console = stderr_console()
    if not enabled:
        yield lambda _msg: None
        return
    from drift.sources.progress import Note, Step

    if not console.is_terminal:
        def say_piped(msg: str) -> None:
            if isinstance(msg, Step) or (verbose and isinstance(msg, Note)):
                print(f"drift: {msg}", file=sys.stderr, flush=True)

        yield say_piped
        return
    with console.status("starting…") as status:
        def say(msg: str) -> None:
            if verbose and isinstance(msg, Note):
                console.print(f"drift: {msg}", markup=False, highlight=False)
            status.update(msg)

        yield say


def fail(message: str, code: int) -> int:
    """One clear line on stderr and the exit code; never a traceback."""
    print(f"drift: error: {message}", file=sys.stderr)
    return code


def add_output_options(parser, *, default: str = "terminal") -> None:
    parser.add_argument("--format", choices=reports.FORMAT_NAMES, default=None,
                        help=f"report format (default: {default})")
    parser.add_argument("-o", "--output", default=None, help="write the report to this file instead of stdout")
    parser.add_argument("--json", action="store_true", help="shorthand for --format json")
    parser.add_argument("-v", "--verbose", action="store_true", help="show every evidence line")


def emit(report_or_reports: Report | list[Report], args, *, default: str = "terminal", title: str | None = None) -> None:
    fmt = "json" if getattr(args, "json", False) else (args.format or default)
    reports.write(report_or_reports, fmt, args.output,
                  options=reports.Options(verbose=getattr(args, "verbose", False), title=title))
