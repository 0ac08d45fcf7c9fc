"""Pair findings with the consumer uses they concern, and lay reports out as a matrix.

JUnit (one test case per use), the Markdown matrix and the HTML matrix all need the same
answer to "which finding belongs to which use"; it lives here once. A rule may place a
finding on a keyword line inside a multi-line call, so a finding attaches to the nearest
use at or above its line in the same file whose symbol is compatible with the finding's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from drift.findings import Finding, Location, Report, UseChecked

from drift.reports._common import ordered, target_label, worst


@dataclass(frozen=True)
class UseResult:
    """One consumer use (or a finding at a site no use covers) with the findings at it."""

    symbol: str
    site: Location
    what: str
    findings: tuple[Finding, ...] = ()

    @property
    def label(self) -> str:
        """`call vllm.x.f`: no line number, so a test's history survives code moving."""
        return f"{self.what} {self.symbol}"


def _compatible(use_symbol: str, finding_symbol: str | None) -> bool:
    if finding_symbol is None:
        return False
    return (
        use_symbol == finding_symbol
        or finding_symbol.startswith(use_symbol + ".")
        or use_symbol.startswith(finding_symbol + ".")
    )


def _home(finding: Finding, uses: Sequence[UseChecked]) -> int | None:
    """Index of the use a finding belongs to, or None when no use covers it."""
    site = finding.consumer_site
    same_file = [(i, u) for i, u in enumerate(uses) if u.site.path == site.path]
    above = [(u.site.line, i) for i, u in same_file if u.site.line <= site.line and _compatible(u.symbol, finding.symbol)]
    if above:
        return max(above)[1]
    exact = [i for i, u in same_file if u.site.line == site.line]
    return exact[0] if exact else None


def use_results(report: Report) -> list[UseResult]:
    """Every use checked, each with its findings, plus one entry per uncovered finding site."""
    uses = sorted(report.uses, key=lambda u: (u.site.path, u.site.line, u.symbol, u.what))
    attached: dict[int, list[Finding]] = {}
    orphans: dict[tuple[str, int, str], list[Finding]] = {}
    for finding in ordered(report.findings):
        home = _home(finding, uses)
        if home is not None:
            attached.setdefault(home, []).append(finding)
        else:
            site = finding.consumer_site
            orphans.setdefault((site.path, site.line, finding.symbol or finding.rule_id), []).append(finding)
    results = [
        UseResult(symbol=u.symbol, site=u.site, what=u.what, findings=tuple(attached.get(i, ())))
        for i, u in enumerate(uses)
    ]
    for (path, line, symbol), found in orphans.items():
        site = found[0].consumer_site
        results.append(UseResult(symbol=symbol, site=Location(path, line, snippet=site.snippet), what="finding", findings=tuple(found)))
    results.sort(key=lambda r: (r.site.path, r.site.line, r.symbol))
    return results


@dataclass(frozen=True)
class Cell:
    status: str  # "ok", "info", "risky", "breaking", or "unchecked"
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class Column:
    label: str
    report: Report
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    symbol: str
    site: Location
    cells: tuple[Cell, ...]

    @property
    def label(self) -> str:
        return f"{self.symbol} @ {self.site.path}:{self.site.line}"

    @property
    def worst(self) -> str:
        order = ("breaking", "risky", "info", "ok", "unchecked")
        return min((c.status for c in self.cells), key=order.index, default="ok")


@dataclass(frozen=True)
class Matrix:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]


def _status(found: Sequence[Finding]) -> str:
    sev = worst(found)
    return "ok" if sev is None else sev.value


def build_matrix(reports: Sequence[Report]) -> Matrix:
    """Rows are consumer uses (symbol @ site), columns are targets, cells are the worst finding."""
    per_report: list[dict[tuple[str, int, str], UseResult]] = []
    order: dict[tuple[str, int, str], Location] = {}
    real_uses: set[tuple[str, int, str]] = set()
    for report in reports:
        table = {(r.site.path, r.site.line, r.symbol): r for r in use_results(report)}
        per_report.append(table)
        real_uses.update((u.site.path, u.site.line, u.symbol) for u in report.uses)
        for key, result in table.items():
            order.setdefault(key, result.site)
    keys = sorted(order)
    rows = []
    for key in keys:
        cells = []
        for report, table in zip(reports, per_report):
            found = table.get(key)
            if found is not None:
                cells.append(Cell(_status(found.findings), found.findings))
            else:
                # "unchecked" only when another target checked this use and this one did not;
                # a report without a use list, or a site no report lists, speaks by findings.
                cells.append(Cell("unchecked" if report.uses and key in real_uses else "ok"))
        rows.append(Row(symbol=key[2], site=order[key], cells=tuple(cells)))
    columns = []
    for i, report in enumerate(reports):
        tally = {s: 0 for s in ("breaking", "risky", "info", "ok", "unchecked")}
        for row in rows:
            tally[row.cells[i].status] += 1
        columns.append(Column(label=target_label(report), report=report, counts=tally))
    return Matrix(columns=tuple(columns), rows=tuple(rows))

