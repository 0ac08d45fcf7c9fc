"""GitHub-flavoured Markdown for a PR comment or a workflow step summary.

A verdict line first (what a reviewer needs), then one table row per finding, then the long
form inside <details> so the comment stays short. Status always carries a word next to the
emoji so it reads the same in e-mail notifications and screen readers.
"""

from __future__ import annotations

from collections.abc import Sequence

from drift.findings import Finding, Report, Severity
from drift.suppress import silenced_summary

from drift.reports._common import (
    counts, env_line, evidence_text, fix_text, header_notes, ordered, overall_verdict, party, verdict,
)
from drift.reports.matrix import build_matrix

BADGE = {
    Severity.BREAKING: "🔴 breaking",
    Severity.RISKY: "🟡 risky",
    Severity.INFO: "🔵 info",
}
CELL = {"ok": "✅ ok", "info": "🔵 info", "risky": "🟡 risky", "breaking": "🔴 breaking", "unchecked": "— not checked"}


def _cell(text: str) -> str:
    """Make text safe inside a table cell: no pipes, no newlines."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    if "`" in text:
        return f"`` {text} ``"
    return f"`{text}`"


def _verdict_line(report: Report) -> str:
    tally = counts(report.findings)
    icon = "❌" if tally[Severity.BREAKING] else "⚠️" if tally[Severity.RISKY] else "✅"
    return f"{icon} **drift: {verdict(report)}** — {party(report.consumer)} on {party(report.target, with_commit=True)}"


def _context(report: Report) -> str:
    parts = [f"consumer **{party(report.consumer)}**", f"target **{party(report.target, with_commit=True)}**"]
    if report.baseline:
        parts.append(f"baseline **{party(report.baseline)}**")
    if report.host:
        parts.append(f"host `{report.host}`")
    line = " · ".join(parts)
    env = env_line(report.env)
    return f"{line}  \n{env}" if env else line


def _details(finding: Finding) -> list[str]:
    site = finding.consumer_site
    lines = [f"#### `{finding.rule_id}` {finding.title}", ""]
    lines.append(f"- **{finding.severity.value}** — {finding.kind.value}")
    lines.append(f"- consumer: `{site.path}:{site.line}`")
    if site.snippet:
        lines += ["", "  ```python", f"  {site.snippet}", "  ```", ""]
    for label, locs in (("target", finding.target_evidence), ("baseline", finding.baseline_evidence)):
        for loc in locs:
            extra = f" — `{loc.snippet}`" if loc.snippet else (f" ({loc.symbol})" if loc.symbol else "")
            lines.append(f"- {label}: `{loc.path}:{loc.line}`{extra}")
    if finding.predicted_failure:
        lines.append(f"- predicted failure: `{finding.predicted_failure}`")
    if finding.details:
        lines.append(f"- {finding.details}")
    lines.append(f"- fix: {fix_text(finding.fix, verbose=True)}")
    lines.append("")
    return lines


def to_markdown(report: Report) -> str:
    """One target: verdict, context, findings table, collapsible details."""
    out = [_verdict_line(report), "", _context(report), ""]
    notes = header_notes(report)
    if notes:
        out += [f"> ⚠️ {_cell(n)}  " for n in notes] + [""]
    if report.silenced:
        out += [f"_{silenced_summary(report)}; docs/config.md says how._", ""]
    findings = ordered(report.findings)
    if findings:
        out += [
            "| Severity | Rule | Consumer site | Finding | Evidence (target / baseline) | Fix |",
            "|---|---|---|---|---|---|",
        ]
        for f in findings:
            site = f.consumer_site
            evidence = f"{evidence_text(f.target_evidence)} / {evidence_text(f.baseline_evidence)}"
            fix = _cell(fix_text(f.fix))
            out.append(
                f"| {BADGE[f.severity]} | `{f.rule_id}` | `{site.path}:{site.line}` | {_cell(f.title)} "
                f"| {_cell(evidence)} | {fix} |"
            )
        out += ["", f"<details><summary>Details of {len(findings)} finding{'s' * (len(findings) != 1)}</summary>", ""]
        for f in findings:
            out += _details(f)
        out += ["</details>", ""]
    else:
        out += [f"No drift in the {len(report.uses)} uses checked.", ""]
    if report.notes:
        out += ["<details><summary>Notes</summary>", ""] + [f"- {_cell(n)}" for n in report.notes] + ["", "</details>", ""]
    return "\n".join(out)


def matrix_markdown(reports: Sequence[Report]) -> str:
    """Several targets: one row per consumer use that drifts somewhere, one column per target."""
    if not reports:
        return "drift: no targets checked\n"
    matrix = build_matrix(reports)
    first = reports[0]
    caveats = list(dict.fromkeys(n for r in reports for n in header_notes(r)))
    out = [
        f"**drift compatibility matrix** — {party(first.consumer)}"
        + (f", written for {party(first.baseline)}" if first.baseline else ""),
        "",
        f"Overall: {overall_verdict(reports)}" + (f" · {silenced_summary(reports)}" if silenced_summary(reports) else ""),
        "",
        *([f"> ⚠️ {_cell(n)}  " for n in caveats] + [""] if caveats else []),
        "| Target | Verdict |",
        "|---|---|",
    ]
    for column in matrix.columns:
        out.append(f"| {_cell(column.label)} | {_cell(verdict(column.report))} |")
    drifting = [row for row in matrix.rows if row.worst in ("breaking", "risky", "info")]
    out += ["", f"{len(matrix.rows)} uses checked, {len(drifting)} drift on at least one target.", ""]
    if drifting:
        out.append("| Consumer use | " + " | ".join(_cell(c.label) for c in matrix.columns) + " |")
        out.append("|---|" + "---|" * len(matrix.columns))
        for row in drifting:
            cells = []
            for cell in row.cells:
                rules = ", ".join(sorted({f.rule_id for f in cell.findings}))
                cells.append(CELL[cell.status] + (f" ({rules})" if rules else ""))
            out.append(f"| {_code(row.symbol)} @ `{row.site.path}:{row.site.line}` | " + " | ".join(cells) + " |")
        out.append("")
    out += ["<details><summary>Per-target details</summary>", ""]
    for report in reports:
        out += ["---", "", to_markdown(report)]
    out += ["</details>", ""]
    return "\n".join(out)
