"""Renderers of the one findings model (drift.findings.Report); none computes a finding.

`FORMATS` maps a `--format` name to its renderer so commands stay data-driven:
`parser.add_argument("--format", choices=FORMAT_NAMES)` then `reports.write(r, args.format, args.output)`.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from drift.findings import Report
from drift.output import in_github_actions, is_stdout, json_text, workflow_guard, write_text


@dataclass(frozen=True)
class Options:
    """Renderer knobs; each format reads the ones it understands."""

    verbose: bool = False
    repo_root: str | None = None
    title: str | None = None
    width: int = 120
    rule_docs: Any = None  # drift.analysis.ruledocs.registry() for SARIF; None = drift's own rules
    consumer_root: str | None = None  # the consumer's files on this machine: line formats print openable paths


def _terminal(reports: Sequence[Report], opts: Options, console: Any = None) -> str:
    from rich.console import Console

    from drift.reports.terminal import render

    buffer = io.StringIO()
    # a file gets full lines (nothing wraps, nothing is cut); a live terminal wraps
    out = console or Console(file=buffer, width=opts.width, no_color=True, highlight=False, emoji=False,
                             force_terminal=False)
    for i, report in enumerate(reports):
        if i:
            out.print()
        render(report, out, verbose=opts.verbose)
    return buffer.getvalue()


def _json(reports: Sequence[Report], opts: Options) -> str:
    from drift.reports.json_report import to_json, to_json_many

    return to_json(reports[0]) if len(reports) == 1 else to_json_many(reports)


def _markdown(reports: Sequence[Report], opts: Options) -> str:
    from drift.reports.markdown import matrix_markdown, to_markdown

    return to_markdown(reports[0]) if len(reports) == 1 else matrix_markdown(reports)


def _sarif(reports: Sequence[Report], opts: Options) -> str:
    from drift.reports.sarif import to_sarif

    return json_text(json.dumps(to_sarif(reports, repo_root=opts.repo_root, rule_docs=opts.rule_docs,
                                         consumer_root=opts.consumer_root), indent=2, ensure_ascii=False)) + "\n"


def _junit(reports: Sequence[Report], opts: Options) -> str:
    from drift.reports.junit import to_junit

    return to_junit(reports)


def _concise(reports: Sequence[Report], opts: Options) -> str:
    from drift.reports.lines import to_concise

    return to_concise(reports, repo_root=opts.repo_root, consumer_root=opts.consumer_root)


def _github(reports: Sequence[Report], opts: Options) -> str:
    from drift.reports.lines import to_github

    return to_github(reports, repo_root=opts.repo_root, consumer_root=opts.consumer_root)


def _html(reports: Sequence[Report], opts: Options) -> str:
    from drift.reports.html import render_matrix

    return render_matrix(reports, title=opts.title)


@dataclass(frozen=True)
class Format:
    name: str
    suffix: str
    render: Callable[[Sequence[Report], Options], str]
    description: str


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("terminal", ".txt", _terminal, "human report (rich); plain text when written to a file"),
        Format("json", ".json", _json, "drift.report/1 (an array of them for several targets)"),
        Format("markdown", ".md", _markdown, "PR comment / step summary; a matrix for several targets"),
        Format("sarif", ".sarif", _sarif, "SARIF 2.1.0 for code scanning, results on the consumer's lines"),
        Format("junit", ".xml", _junit, "JUnit XML, one test case per consumer use"),
        Format("html", ".html", _html, "self-contained compatibility matrix page"),
        Format("concise", ".txt", _concise, "one `path:line:col: RULE message` line per finding (editors, ruff/mypy matchers)"),
        Format("github", ".txt", _github, "GitHub Actions annotations (`::error file=…,line=…,col=…::…`)"),
    )
}
FORMAT_NAMES = tuple(FORMATS)


def _as_list(report_or_reports: Report | Sequence[Report]) -> list[Report]:
    reports = [report_or_reports] if isinstance(report_or_reports, Report) else list(report_or_reports)
    if not reports:
        raise ValueError("no reports to render")
    return reports


def render(report_or_reports: Report | Sequence[Report], fmt: str, *, options: Options | None = None) -> str:
    """The rendered document as text; ValueError names the valid formats on a bad one."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}; choose one of: {', '.join(FORMAT_NAMES)}")
    return FORMATS[fmt].render(_as_list(report_or_reports), options or Options())


def write(
    report_or_reports: Report | Sequence[Report],
    fmt: str,
    output: str | os.PathLike[str] | None = None,
    *,
    options: Options | None = None,
) -> None:
    """Render and write to `output` (`drift.output.write_text`), or to stdout when it is None or "-".

    The terminal format on stdout goes through a live rich Console (colour when a tty);
    everything else is written verbatim.
    """
    opts = options or Options()
    if fmt == "terminal" and output in (None, "-"):
        from rich.console import Console

        _terminal(_as_list(report_or_reports), opts, console=Console(highlight=False))
        return
    text = render(report_or_reports, fmt, options=opts)
    if output is None or is_stdout(output):
        if fmt != "github" and in_github_actions():  # the runner reads this log for `::` commands
            text = workflow_guard(text)
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_text(pathlib.Path(output), text)

