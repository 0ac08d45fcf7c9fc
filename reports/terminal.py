"""The human report: who was compared, what breaks, where, why, and how to fix it.

Compact by default so a typical check (a handful of findings) fits one screen: four lines
per finding (title; consumer site with its source line; evidence; predicted failure and
fix). Nothing is ever cut: on a terminal a long line wraps under its own indentation, so
the layout stays; piped or written to a file every line is whole, so a CI log keeps every
path and predicted error. `verbose=True` adds every piece of evidence, the details, the
fix's arguments and the finding key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from drift.findings import Finding, Report, Severity
from drift.output import in_github_actions, terminal
from drift.suppress import silenced_summary

from drift.reports.groups import shared_causes
from drift.reports._common import counts, env_line, evidence_text, fix_text, header_notes, ordered, party, verdict

STYLE = {Severity.BREAKING: "bold red", Severity.RISKY: "bold yellow", Severity.INFO: "cyan"}
STATUS_STYLE = {"ok": "green", "drift": "bold red", "failed": "bold magenta", "unreachable": "yellow"}


def _line(console: Console, text: Text, *, verbose: bool = False, hang: int = 0, wrap: bool = False) -> None:
    """Print one logical line: whole when piped, wrapped under `hang` spaces on a terminal.

    Every control character in it is shown escaped (`_shown`): the line holds file names,
    versions, host names and source lines someone else wrote."""
    text = _shown(text)
    if not wrap:
        console.print(text, soft_wrap=True, crop=False)
        return
    width = console.width
    first = text.wrap(console, width, overflow="fold")[0] if text.plain else text
    console.print(_rstripped(first), soft_wrap=True, crop=False)
    rest = text[len(first.plain):]
    while rest.plain[:1].isspace():
        rest = rest[1:]
    if not rest.plain:
        return
    for part in rest.wrap(console, max(20, width - hang), overflow="fold"):
        console.print(Text(" " * hang) + _rstripped(part), soft_wrap=True, crop=False)


def _shown(text: Text) -> Text:
    """`text` with each control character replaced by its escape (`drift.output.terminal`),
    styles kept; under GitHub Actions a line never starts with `::` (the runner would obey it)."""
    plain = text.plain
    if terminal(plain) != plain:
        cuts = sorted({i for i, ch in enumerate(plain) if terminal(ch) != ch for i in (i, i + 1)})
        parts = text.divide(cuts)
        text = Text("").join(Text(terminal(p.plain), style=p.style or (p.spans[0].style if p.spans else ""))
                             if terminal(p.plain) != p.plain else p for p in parts)
    if in_github_actions() and text.plain.lstrip().startswith("::"):
        text = Text("\u200b") + text
    return text


def _rstripped(text: Text) -> Text:
    text = text.copy()
    text.rstrip()
    return text


def _header(report: Report, console: Console, *, verbose: bool, wrap: bool) -> None:
    head = Text.assemble(
        ("drift ", "bold"),
        (party(report.consumer), "bold"),
        " → ",
        (party(report.target, with_commit=True), "bold"),
        ("   baseline ", "dim"),
        party(report.baseline),
    )
    _line(console, head, hang=6, wrap=wrap)
    env = env_line(report.env)
    if report.host or env:
        host = Text.assemble(("host ", "dim"), (report.host or "local", "bold"))
        if env:
            host.append(" · " + env)
        _line(console, host, hang=5, wrap=wrap)
    checked = f"checked {len(report.uses)} uses" if report.uses else "uses not listed"
    n = len(report.findings)
    summary = Text(f"{checked} · {n} finding{'' if n == 1 else 's'}", style="dim")
    silenced = silenced_summary(report)
    if silenced:
        summary.append(f" · {silenced}", style="dim")
    if report.notes and not verbose:
        summary.append(f" · {len(report.notes)} note{'s' * (len(report.notes) != 1)} (-v)", style="dim")
    _line(console, summary, hang=2, wrap=wrap)
    for note in header_notes(report):
        _line(console, Text(f"! {note}", style="yellow"), hang=2, wrap=wrap)
    causes = shared_causes(report.findings)
    if causes:
        _line(console, Text(f"{len(causes)} shared cause{'s' * (len(causes) != 1)}:", style="bold"), hang=2, wrap=wrap)
        for cause in causes:
            _line(console, Text(f"  {len(cause.findings):>3} × {cause.summary}"), hang=8, wrap=wrap)
    if verbose:
        for note in report.notes:
            _line(console, Text(f"note: {note}", style="dim"), hang=6, wrap=wrap)


def _finding(finding: Finding, console: Console, *, verbose: bool, wrap: bool) -> None:
    style = STYLE[finding.severity]
    _line(console, Text.assemble(" ", (finding.rule_id, style), "  ", (finding.title, "bold")), hang=len(finding.rule_id) + 3,
          wrap=wrap)
    site = finding.consumer_site
    at = Text.assemble("   ", (f"{site.path}:{site.line}", "underline"))
    if site.snippet:
        at.append("  " + site.snippet, style="dim")
    _line(console, at, hang=5, wrap=wrap)
    target = finding.target_evidence
    if verbose or len(target) <= 1:
        target_txt = evidence_text(target)
    else:
        target_txt = f"{evidence_text(target[:1])} +{len(target) - 1}"
    _line(
        console,
        Text.assemble(("   target ", "dim"), target_txt, ("  baseline ", "dim"), evidence_text(finding.baseline_evidence)),
        hang=5, wrap=wrap,
    )
    fix = fix_text(finding.fix, verbose=verbose)
    failure = finding.predicted_failure or finding.kind.value
    _line(console, Text.assemble("   → ", (failure, style), ("  fix ", "dim"), (fix, "green")), hang=5, wrap=wrap)
    if verbose:
        if finding.details:
            _line(console, Text(f"     {finding.details}", style="dim"), hang=5, wrap=wrap)
        if finding.fix:
            args = ", ".join(f"{k}={v!r}" for k, v in sorted(finding.fix.args.items()))
            if args:
                _line(console, Text(f"     codemod: {finding.fix.codemod} ({args})"), hang=5, wrap=wrap)
        for loc in finding.target_evidence:
            if loc.snippet:
                _line(console, Text(f"     {loc}: {loc.snippet}", style="dim"), hang=7, wrap=wrap)
        _line(console, Text(f"     key {finding.key}", style="dim"), hang=5, wrap=wrap)
        _line(console, Text(f"     fingerprint {finding.fingerprint}", style="dim"), hang=5, wrap=wrap)


def render(report: Report, console: Console, *, verbose: bool = False, wrap: bool | None = None) -> None:
    """Print one report: header, findings worst first, then the verdict line.

    `wrap` defaults to whether the console is a terminal: wrapped there, whole lines otherwise.
    """
    wrap = console.is_terminal if wrap is None else wrap
    _header(report, console, verbose=verbose, wrap=wrap)
    findings = ordered(report.findings)
    tally = counts(findings)
    for severity in Severity:
        group = [f for f in findings if f.severity is severity]
        if not group:
            continue
        _line(console, Text(f"{severity.value.upper()} ({tally[severity]})", style=STYLE[severity]))
        for finding in group:
            _finding(finding, console, verbose=verbose, wrap=wrap)
    style = "bold red" if tally[Severity.BREAKING] else "bold yellow" if tally[Severity.RISKY] else "bold green"
    _line(console, Text.assemble(("verdict: ", "bold"), (verdict(report), style)), hang=9, wrap=wrap)


@dataclass(frozen=True)
class FleetRow:
    """One host in a fleet scan; status is ok, drift, failed or unreachable."""

    host: str
    status: str
    vllm: str | None = None
    breaking: int = 0
    detail: str = ""

    @classmethod
    def coerce(cls, row: "FleetRow | Mapping[str, Any]") -> "FleetRow":
        if isinstance(row, FleetRow):
            return row
        return cls(
            host=str(row["host"]),
            status=str(row["status"]),
            vllm=row.get("vllm"),
            breaking=int(row.get("breaking") or 0),
            detail=str(row.get("detail") or ""),
        )


def summary_table(rows: Iterable[FleetRow | Mapping[str, Any]]) -> Table:
    """A fleet at a glance: one line per host."""
    table = Table(title=None, show_edge=False, header_style="bold")
    table.add_column("host", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("vllm", no_wrap=True)
    table.add_column("breaking", justify="right")
    table.add_column("detail", overflow="fold")
    for raw in sorted((FleetRow.coerce(r) for r in rows), key=lambda r: r.host):
        # cells are Text, never markup: a host named `[link=…]x` in an inventory is those characters
        table.add_row(
            Text(terminal(raw.host)),
            Text(terminal(raw.status), style=STATUS_STYLE.get(raw.status, "")),
            Text(terminal(raw.vllm or "—")),
            str(raw.breaking) if raw.status in ("ok", "drift") else "—",
            Text(terminal(raw.detail)),
        )
    return table


def render_summary_table(rows: Iterable[FleetRow | Mapping[str, Any]], console: Console) -> None:
    console.print(summary_table(rows))
