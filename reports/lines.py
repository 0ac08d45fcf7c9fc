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


def annotation(finding: Finding, report: Report, *, repo_root: str | None = None, several: bool = False,
               consumer_root: str | None = None) -> str:
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
    return f"::{GITHUB_LEVEL[finding.severity]} {body}::" + "%0A".join(workflow_data(p) for p in parts)


def to_github(reports: Sequence[Report], *, repo_root: str | None = None, consumer_root: str | None = None) -> str:
    several = len(reports) > 1
    lines = [f"::notice title=drift::{workflow_data(n)}" for n in _caveats(reports)]
    lines += [annotation(f, r, repo_root=repo_root, several=several, consumer_root=consumer_root)
              for r in reports for f in ordered(r.findings)]
    lines.append(_footer(reports))
    return "\n".join(lines) + "\n"
