"""The human report: who was compared, what breaks, where, why, and how to fix it.

Compact by default so a typical check (a handful of findings) fits one screen: four lines
per finding (title; consumer site with its source line; evidence; predicted failure and
fix), long lines cut with an ellipsis. `verbose=True` wraps instead and adds every piece of
evidence, the details, the fix's arguments and the finding key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from drift.findings import Finding, Report, Severity

from reports._common import counts, env_line, evidence_text, fix_text, ordered, party, verdict

STYLE = {Severity.BREAKING: "bold red", Severity.RISKY: "bold yellow", Severity.INFO: "cyan"}
STATUS_STYLE = {"ok": "green", "drift": "bold red", "failed": "bold magenta", "unreachable": "yellow"}


def _line(console: Console, text: Text, *, verbose: bool) -> None:
    if verbose:
        console.print(text, soft_wrap=True)  # the terminal wraps; paths stay copyable
    else:
        console.print(text, no_wrap=True, overflow="ellipsis", crop=True)


def _header(report: Report, console: Console, *, verbose: bool) -> None:
    head = Text.assemble(
        ("drift ", "bold"),
        (party(report.consumer), "bold"),
        " → ",
        (party(report.target, with_commit=True), "bold"),
        ("   baseline ", "dim"),
        party(report.baseline),
    )
    _line(console, head, verbose=verbose)
    env = env_line(report.env)
    if report.host or env:
        host = Text.assemble(("host ", "dim"), (report.host or "local", "bold"))
        if env:
            host.append(" · " + env)
        _line(console, host, verbose=verbose)
    checked = f"checked {len(report.uses)} uses" if report.uses else "uses not listed"
    n = len(report.findings)
    summary = Text(f"{checked} · {n} finding{'' if n == 1 else 's'}", style="dim")
    if report.notes and not verbose:
        summary.append(f" · {len(report.notes)} note{'s' * (len(report.notes) != 1)} (-v)", style="dim")
    _line(console, summary, verbose=verbose)
    if verbose:
        for note in report.notes:
            _line(console, Text(f"note: {note}", style="dim"), verbose=True)


def _finding(finding: Finding, console: Console, *, verbose: bool) -> None:
    style = STYLE[finding.severity]
    _line(console, Text.assemble(" ", (finding.rule_id, style), "  ", (finding.title, "bold")), verbose=verbose)
    site = finding.consumer_site
    at = Text.assemble("   ", (f"{site.path}:{site.line}", "underline"))
    if site.snippet:
        at.append("  " + site.snippet, style="dim")
    _line(console, at, verbose=verbose)
    target = finding.target_evidence
    if verbose or len(target) <= 1:
        target_txt = evidence_text(target)
    else:
        target_txt = f"{evidence_text(target[:1])} +{len(target) - 1}"
    _line(
        console,
        Text.assemble(("   target ", "dim"), target_txt, ("  baseline ", "dim"), evidence_text(finding.baseline_evidence)),
        verbose=verbose,
    )
    fix = fix_text(finding.fix)
    failure = finding.predicted_failure or finding.kind.value
    if not verbose:
        if len(fix) > 48:
            fix = fix[:47] + "…"
        room = max(20, console.width - len(fix) - 14)
        if len(failure) > room:
            failure = failure[: room - 1] + "…"
    _line(console, Text.assemble("   → ", (failure, style), ("  fix ", "dim"), (fix, "green")), verbose=verbose)
    if verbose:
        if finding.details:
            _line(console, Text(f"     {finding.details}", style="dim"), verbose=True)
        if finding.fix:
            args = ", ".join(f"{k}={v!r}" for k, v in sorted(finding.fix.args.items()))
            _line(console, Text(f"     fix: {finding.fix.description}" + (f" ({args})" if args else "")), verbose=True)
        for loc in finding.target_evidence:
            if loc.snippet:
                _line(console, Text(f"     {loc}: {loc.snippet}", style="dim"), verbose=True)
        _line(console, Text(f"     key {finding.key}", style="dim"), verbose=True)


def render(report: Report, console: Console, *, verbose: bool = False) -> None:
    """Print one report: header, findings worst first, then the verdict line."""
    _header(report, console, verbose=verbose)
    findings = ordered(report.findings)
    tally = counts(findings)
    for severity in Severity:
        group = [f for f in findings if f.severity is severity]
        if not group:
            continue
        console.print(Text(f"{severity.value.upper()} ({tally[severity]})", style=STYLE[severity]))
        for finding in group:
            _finding(finding, console, verbose=verbose)
    style = "bold red" if tally[Severity.BREAKING] else "bold yellow" if tally[Severity.RISKY] else "bold green"
    console.print(Text.assemble(("verdict: ", "bold"), (verdict(report), style)))


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
    table.add_column("detail", overflow="ellipsis")
    for raw in sorted((FleetRow.coerce(r) for r in rows), key=lambda r: r.host):
        table.add_row(
            raw.host,
            Text(raw.status, style=STATUS_STYLE.get(raw.status, "")),
            raw.vllm or "—",
            str(raw.breaking) if raw.status in ("ok", "drift") else "—",
            raw.detail,
        )
    return table


def render_summary_table(rows: Iterable[FleetRow | Mapping[str, Any]], console: Console) -> None:
    console.print(summary_table(rows))
