"""GitHub-flavoured Markdown for a PR comment or a workflow step summary.

A verdict line first (what a reviewer needs), then one table row per finding, then the long
form inside <details> so the comment stays short. Status always carries a word next to the
emoji so it reads the same in e-mail notifications and screen readers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from drift.findings import Finding, Report, Severity
from drift.output import markdown, markdown_code, visible
from drift.suppress import silenced_summary

from drift.reports._common import (
    counts, env_line, evidence_text, fix_text, header_notes, ordered, overall_verdict, party, verdict,
)
from drift.reports.groups import shared_causes
from drift.reports.matrix import build_matrix

BADGE = {
    Severity.BREAKING: "🔴 breaking",
    Severity.RISKY: "🟡 risky",
    Severity.INFO: "🔵 info",
}
CELL = {"ok": "✅ ok", "info": "🔵 info", "risky": "🟡 risky", "breaking": "🔴 breaking", "unchecked": "— not checked"}


def _cell(text: str) -> str:
    """drift's own wording (a rule's title, a fix) safe inside a table cell: no pipes, no newlines,
    no control characters. Text from outside goes through `drift.output.markdown` instead."""
    return visible(text.replace("\n", " ")).replace("\\", "\\\\").replace("|", "\\|")


def _code(text: str) -> str:
    return markdown_code(text, in_table=True)


def _party(info) -> str:
    """A consumer's or target's name and version, from its metadata: Markdown-escaped data."""
    return markdown(party(info))


def _party_commit(info) -> str:
    return markdown(party(info, with_commit=True))


def _symbol(name: str) -> str:
    """A dotted name as written (as the report always showed it); anything else is escaped data."""
    return name if re.fullmatch(r"[\w.]+", name) else markdown(name)


def _fence(text: str) -> list[str]:
    """A source line in a fenced block: one line, a fence longer than any backtick run in it."""
    body = visible(text)
    fence = "`" * max(3, max((len(r) for r in re.findall("`+", body)), default=0) + 1)
    return ["", f"  {fence}python", f"  {body}", f"  {fence}", ""]


def _verdict_line(report: Report) -> str:
    tally = counts(report.findings)
    icon = "❌" if tally[Severity.BREAKING] else "⚠️" if tally[Severity.RISKY] else "✅"
    return f"{icon} **drift: {verdict(report)}** — {_party(report.consumer)} on {_party_commit(report.target)}"


def _context(report: Report) -> str:
    parts = [f"consumer **{_party(report.consumer)}**", f"target **{_party_commit(report.target)}**"]
    if report.baseline:
        parts.append(f"baseline **{_party(report.baseline)}**")
    if report.host:
        parts.append(f"host {markdown_code(report.host)}")
    line = " · ".join(parts)
    env = markdown(env_line(report.env))
    return f"{line}  \n{env}" if env else line


def _details(finding: Finding) -> list[str]:
    site = finding.consumer_site
    lines = [f"#### `{finding.rule_id}` {visible(finding.title)}", ""]
    lines.append(f"- **{finding.severity.value}** — {finding.kind.value}")
    lines.append(f"- consumer: {markdown_code(f'{site.path}:{site.line}')}")
    if site.snippet:
        lines += _fence(site.snippet)
    for label, locs in (("target", finding.target_evidence), ("baseline", finding.baseline_evidence)):
        for loc in locs:
            extra = f" — {markdown_code(loc.snippet)}" if loc.snippet else (f" ({_symbol(loc.symbol)})" if loc.symbol else "")
            lines.append(f"- {label}: {markdown_code(f'{loc.path}:{loc.line}')}{extra}")
    if finding.predicted_failure:
        lines.append(f"- predicted failure: {markdown_code(finding.predicted_failure)}")
    if finding.details:
        lines.append(f"- {visible(finding.details)}")
    lines.append(f"- fix: {visible(fix_text(finding.fix, verbose=True))}")
    lines.append("")
    return lines


def to_markdown(report: Report) -> str:
    """One target: verdict, context, findings table, collapsible details."""
    out = [_verdict_line(report), "", _context(report), ""]
    notes = header_notes(report)
    if notes:
        out += [f"> ⚠️ {markdown(n)}  " for n in notes] + [""]
    if report.silenced:
        out += [f"_{silenced_summary(report)}; docs/config.md says how._", ""]
    findings = ordered(report.findings)
    causes = shared_causes(findings)
    if causes:
        out += ["| Findings | Shared cause |", "|---|---|"]
        out += [f"| {len(c.findings)} | {_cell(c.summary)} |" for c in causes] + [""]
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
                f"| {BADGE[f.severity]} | `{f.rule_id}` | {_code(f'{site.path}:{site.line}')} | {_cell(f.title)} "
                f"| {markdown(evidence)} | {fix} |"
            )
        out += ["", f"<details><summary>Details of {len(findings)} finding{'s' * (len(findings) != 1)}</summary>", ""]
        for f in findings:
            out += _details(f)
        out += ["</details>", ""]
    else:
        out += [f"No drift in the {len(report.uses)} uses checked.", ""]
    if report.notes:
        out += ["<details><summary>Notes</summary>", ""] + [f"- {markdown(n)}" for n in report.notes] + ["", "</details>", ""]
    return "\n".join(out)


def matrix_markdown(reports: Sequence[Report]) -> str:
    """Several targets: one row per consumer use that drifts somewhere, one column per target."""
    if not reports:
        return "drift: no targets checked\n"
    matrix = build_matrix(reports)
    first = reports[0]
    caveats = list(dict.fromkeys(n for r in reports for n in header_notes(r)))
    out = [
        f"**drift compatibility matrix** — {_party(first.consumer)}"
        + (f", written for {_party(first.baseline)}" if first.baseline else ""),
        "",
        f"Overall: {overall_verdict(reports)}" + (f" · {silenced_summary(reports)}" if silenced_summary(reports) else ""),
        "",
        *([f"> ⚠️ {markdown(n)}  " for n in caveats] + [""] if caveats else []),
        "| Target | Verdict |",
        "|---|---|",
    ]
    for column in matrix.columns:
        out.append(f"| {markdown(column.label)} | {_cell(verdict(column.report))} |")
    drifting = [row for row in matrix.rows if row.worst in ("breaking", "risky", "info")]
    out += ["", f"{len(matrix.rows)} uses checked, {len(drifting)} drift on at least one target.", ""]
    if drifting:
        out.append("| Consumer use | " + " | ".join(markdown(c.label) for c in matrix.columns) + " |")
        out.append("|---|" + "---|" * len(matrix.columns))
        for row in drifting:
            cells = []
            for cell in row.cells:
                rules = ", ".join(sorted({f.rule_id for f in cell.findings}))
                cells.append(CELL[cell.status] + (f" ({rules})" if rules else ""))
            out.append(f"| {_code(row.symbol)} @ {_code(f'{row.site.path}:{row.site.line}')} | " + " | ".join(cells) + " |")
        out.append("")
    out += ["<details><summary>Per-target details</summary>", ""]
    for report in reports:
        out += ["---", "", to_markdown(report)]
    out += ["</details>", ""]
    return "\n".join(out)
