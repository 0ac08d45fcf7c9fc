"""One line per finding, in the forms editors and CI problem matchers already parse.

`concise` is `path:line:col: RULE message`, as ruff and mypy print it, so an editor's
"jump to error" and a regex problem matcher work unchanged. `github` is GitHub Actions'
workflow-command form (`::error file=…,line=…,col=…,title=…::message`), which the runner
turns into annotations on the pull request's diff. Neither wraps nor truncates: one finding,
one line, however long.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from drift.findings import Finding, Report, Severity
from drift.output import terminal, workflow_data, workflow_property
from drift.suppress import silenced_summary

from drift.reports._common import fix_text, header_notes, ordered, target_label
from drift.reports.sarif import repo_relative

GITHUB_LEVEL = {Severity.BREAKING: "error", Severity.RISKY: "warning", Severity.INFO: "notice"}


def _message(finding: Finding, report: Report, *, several: bool) -> str:
    text = f"{finding.title} [{finding.severity.value}]"
    if finding.predicted_failure:
        text += f" predicted: {finding.predicted_failure}"
    text += f"; fix: {fix_text(finding.fix)}"
    if several:
        text += f" (on {target_label(report)})"
    return terminal(" ".join(text.split()))  # one physical line, whatever a rule put in its strings


def _path(path: str, repo_root: str | None, consumer_root: str | None) -> str:
    """A path an editor opens from the working directory: the consumer's file under its root
    when that is on this machine (relative to repo_root when inside it), else as reported."""
    if consumer_root:
        local = Path(consumer_root) / path
        if local.is_file():
            if repo_root:
                try:
                    return local.resolve().relative_to(Path(repo_root).resolve()).as_posix()
                except ValueError:
                    pass
            return str(local)
    return repo_relative(path, repo_root)


def _shown_path(path: str) -> str:
    """The path as a line's first field: controls escaped, and never starting with `:` or a
    space (a runner reading the log would take `::x` for a workflow command)."""
    path = terminal(path)
    return f"./{path}" if path[:1] in (":", " ", "\t") or path[:1].isspace() else path


def _column(finding: Finding) -> int:
    return finding.consumer_site.col or 1


def _caveats(reports: Sequence[Report]) -> list[str]:
    """The header notes of every report once each (a gate's targets share most of them)."""
    return list(dict.fromkeys(terminal(" ".join(n.split())) for r in reports for n in header_notes(r)))


def _footer(reports: Sequence[Report]) -> str:
    n = sum(len(r.findings) for r in reports)
    text = f"Found {n} finding{'s' * (n != 1)}"
    silenced = silenced_summary(reports)
    return text + (f"; {silenced}." if silenced else ".")


def to_concise(reports: Sequence[Report], *, repo_root: str | None = None, consumer_root: str | None = None) -> str:
    several = len(reports) > 1
    lines = [f"note: {n}" for n in _caveats(reports)]  # first, as a header: they change how to read the rest
    for report in reports:
        for f in ordered(report.findings):
            path = _shown_path(_path(f.consumer_site.path, repo_root, consumer_root))
            lines.append(f"{path}:{f.consumer_site.line}:{_column(f)}: {f.rule_id} {_message(f, report, several=several)}")
    lines.append(_footer(reports))
    return "\n".join(lines) + "\n"


GITHUB_CAP = 10  # annotations GitHub shows per step and level (errors, warnings; notices alike)


def annotation(finding: Finding, report: Report, *, repo_root: str | None = None, several: bool = False,
               consumer_root: str | None = None, also: Sequence[Finding] = (), cause: str | None = None) -> str:
    site = finding.consumer_site
    props = {
        "file": _path(site.path, repo_root, consumer_root),
        "line": str(site.line),
        "col": str(_column(finding)),
        "title": f"{finding.rule_id} {finding.kind.value}",
    }
    body = ",".join(f"{k}={workflow_property(v)}" for k, v in props.items())
    parts = [finding.title]
    if finding.predicted_failure:
        parts.append(f"predicted: {finding.predicted_failure}")
    parts.append(f"fix: {fix_text(finding.fix)}")
    if several:
        parts.append(f"on {target_label(report)}")
    if also:
        sites = [f"{f.consumer_site.path}:{f.consumer_site.line}" for f in also]
        shown = ", ".join(sites[:20]) + (f", and {len(sites) - 20} more" if len(sites) > 20 else "")
        parts.append(f"same cause ({cause}) at {len(sites)} more site{'s' * (len(sites) != 1)}: {shown}")
    return f"::{GITHUB_LEVEL[finding.severity]} {body}::" + "%0A".join(workflow_data(p) for p in parts)


def _grouped(report: Report) -> list[tuple[Finding, list[Finding], str | None]]:
    """(first finding, the others of its cause, the cause) in report order: one annotation per
    cause, on its worst and first site, so 82 imports of one split module are one annotation."""
    from drift.reports.groups import cause_key, shared_causes

    causes = {c.key: c for c in shared_causes(report.findings)}
    seen: set[tuple[str, ...]] = set()
    out = []
    for f in ordered(report.findings):
        key = cause_key(f)
        if key in causes:
            if key in seen:
                continue
            seen.add(key)
            rest = [g for g in ordered(causes[key].findings) if g is not f]
            out.append((f, rest, causes[key].summary))
        else:
            out.append((f, [], None))
    return out


def to_github(reports: Sequence[Report], *, repo_root: str | None = None, consumer_root: str | None = None) -> str:
    several = len(reports) > 1
    lines = [f"::notice title=drift::{workflow_data(n)}" for n in _caveats(reports)][:GITHUB_CAP]
    shown = {"notice": len(lines), "warning": 0, "error": 0}
    left = {"notice": 0, "warning": 0, "error": 0}
    for r in reports:
        for f, rest, cause in _grouped(r):
            level = GITHUB_LEVEL[f.severity]
            if shown[level] >= GITHUB_CAP:  # GitHub would drop it without a word: say so below instead
                left[level] += 1 + len(rest)
                continue
            shown[level] += 1
            lines.append(annotation(f, r, repo_root=repo_root, several=several, consumer_root=consumer_root,
                                    also=rest, cause=cause))
    if any(left.values()):
        parts = ", ".join(f"{n} {lv}{'s' * (n != 1)}" for lv, n in left.items() if n)
        lines.append(f"drift: {parts} not annotated: GitHub shows {GITHUB_CAP} errors and {GITHUB_CAP} warnings per "
                     "step; every finding is in the step summary, the SARIF upload and the report")
    lines.append(_footer(reports))
    return "\n".join(lines) + "\n"
