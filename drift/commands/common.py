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
def progress(enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """A status line on stderr while long work runs (fetching, parsing); silent when piped."""
    console = stderr_console()
    if not enabled or not console.is_terminal:
        yield lambda _msg: None
        return
    with console.status("starting…") as status:
        yield lambda msg: status.update(msg)


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
