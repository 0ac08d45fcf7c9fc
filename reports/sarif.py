"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Results sit on the **consumer's** lines (that is the code a reviewer can change); the target
and baseline evidence become relatedLocations, since those files live in an installed vLLM
and not in the repository. All targets go in one run so one upload covers a matrix.

A rule's description and help come from the rule registry (its docstring, via
drift.analysis.ruledocs), never from one of its findings: a finding's fix names *its* call's values,
and code scanning shows a rule's help on every alert of that rule. Fingerprints hold no line
numbers, so moving code does not close one alert and open another.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Mapping, Sequence
from typing import Any

from drift import __version__
from drift.findings import Finding, Location, Report, Severity
from drift.suppress import silenced_summary

from drift.reports._common import fix_text, header_notes, ordered, party, target_label

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {Severity.BREAKING: "error", Severity.RISKY: "warning", Severity.INFO: "note"}
SRCROOT = "%SRCROOT%"


def repo_relative(path: str, repo_root: str | None) -> str:
    """Consumer paths are relative to the package's parent; a repo may keep it under src/."""
    posix = path.replace(os.sep, "/")
    if repo_root is None:
        return posix.lstrip("/") if not os.path.isabs(path) else posix
    root = pathlib.Path(repo_root)
    if os.path.isabs(path):
        try:
            return pathlib.Path(path).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return posix
    if (root / path).exists():
        return posix
    for child in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")) if root.is_dir() else ():
        if (child / path).exists():
            return f"{child.name}/{posix}"
    return posix


def _physical(loc: Location, *, uri: str, base: str | None, column: bool = False) -> dict[str, Any]:
    artifact: dict[str, Any] = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    region: dict[str, Any] = {"startLine": loc.line}
    if column:
        region["startColumn"] = loc.col or 1
    if loc.use_line is not None and loc.use_line > loc.line:  # the statement, from where Python raises to the use
        region["endLine"] = loc.use_line
        if loc.use_col is not None:
            region["endColumn"] = loc.use_col
    if loc.snippet:
        region["snippet"] = {"text": loc.snippet}
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def _rule_entry(rule_id: str, doc, finding: Finding, base_uri: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": rule_id}
    if doc is not None:
        full = doc.summary + (f"\n\n{doc.body}" if doc.body else "")
        from drift.analysis.ruledocs import page

        entry.update({
            "name": doc.name,
            "shortDescription": {"text": doc.kind_message},
            "fullDescription": {"text": full},
            "help": {"text": full + f"\n\nSilence it on a line with `# drift: ignore[{rule_id}]`.",
                     "markdown": page(doc)},
            "defaultConfiguration": {"level": LEVEL[Severity(doc.severity)]},
            "properties": {"kind": doc.kind, "pack": doc.pack, "tags": ["api-drift", "vllm"]},
        })
        if base_uri:
            entry["helpUri"] = f"{base_uri}{rule_id}.md"
    else:  # a rule the registry does not hold here: its kind is all that is rule-wide
        entry.update({
            "name": finding.kind.name.title().replace("_", ""),
            "shortDescription": {"text": finding.kind.value},
            "fullDescription": {"text": f"{finding.kind.value} (rule {rule_id} is not installed here, so "
                                        "its own description is not available)"},
            "help": {"text": f"Silence it on a line with `# drift: ignore[{rule_id}]`."},
            "defaultConfiguration": {"level": LEVEL[finding.severity]},
            "properties": {"kind": finding.kind.name, "tags": ["api-drift"]},
        })
    return entry


def _rules(findings: Sequence[Finding], docs: Mapping[str, Any] | None, base_uri: str | None) -> list[dict[str, Any]]:
    if docs is None:
        from drift.analysis.ruledocs import builtin_registry

        docs = builtin_registry()
    seen: dict[str, dict[str, Any]] = {}
    for f in sorted(findings, key=lambda f: f.rule_id):
        if f.rule_id not in seen:
            seen[f.rule_id] = _rule_entry(f.rule_id, docs.get(f.rule_id), f, base_uri)
    return list(seen.values())


def _fixes(finding: Finding, *, consumer_root: str | None, uri: str, base: str | None) -> list[dict[str, Any]]:
    """A codemod finding's edit as a SARIF `fix`: the codemod run on the consumer's file as it
    is on this machine (drift.fixes.plan, the edit `drift patch` would write), turned into
    line replacements. None without the file, or when the codemod does not apply to it."""
    fix = finding.fix
    if fix is None or fix.codemod is None or not consumer_root:
        return []
    path = pathlib.Path(consumer_root) / finding.consumer_site.path
    try:
        before = path.read_bytes()
    except OSError:
        return []
    from drift.fixes.plan import plan
    from drift.fixes.style import line_length

    changes = plan({finding.consumer_site.path: before}, [finding], unsafe_fixes=True,
                   line_length=line_length(consumer_root)).changes
    if not changes:
        return []
    replacements = _replacements(changes[0].before.decode("utf-8"), changes[0].after.decode("utf-8"))
    if not replacements:
        return []
    artifact: dict[str, Any] = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    return [{"description": {"text": fix_text(fix)},
             "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}]}]


def _replacements(before: str, after: str) -> list[dict[str, Any]]:
    """Whole-line replacements turning `before` into `after` (regions end at column 1 of the
    line after the last one replaced; an insertion is an empty region)."""
    import difflib

    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 >= len(old) and old and not old[-1].endswith("\n"):
            return []  # an edit past a last line without a newline: no region can say where
        start = {"startLine": i1 + 1, "startColumn": 1}
        region = {**start, "endLine": i2 + 1, "endColumn": 1} if i2 > i1 else {**start, "endLine": i1 + 1, "endColumn": 1}
        out.append({"deletedRegion": region, "insertedContent": {"text": "".join(new[j1:j2])}})
    return out


def _result(finding: Finding, report: Report, *, rule_index: int, repo_root: str | None,
            consumer_root: str | None = None) -> dict[str, Any]:
    site = finding.consumer_site
    message = finding.title
    if finding.predicted_failure:
        message += f" — predicted: {finding.predicted_failure}"
    message += f" [{target_label(report)}]"
    related: list[dict[str, Any]] = []
    for label, locs, who in (
        ("target", finding.target_evidence, report.target),
        ("baseline", finding.baseline_evidence, report.baseline),
    ):
        for loc in locs:
            entry = _physical(loc, uri=loc.path.replace(os.sep, "/"), base=None)
            entry["id"] = len(related) + 1
            entry["message"] = {"text": f"{label} {party(who)}: {loc.path}:{loc.line}" + (f" ({loc.symbol})" if loc.symbol else "")}
            related.append(entry)
    result: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "ruleIndex": rule_index,
        "level": LEVEL[finding.severity],
        "kind": "fail",
        "message": {"text": message},
        "locations": [_physical(site, uri=repo_relative(site.path, repo_root), base=SRCROOT if repo_root else None,
                                column=True)],
        "partialFingerprints": {  # line-independent (drift.findings.Finding.fingerprint)
            "driftFingerprint/v1": finding.fingerprint,
            "driftTargetFingerprint/v1": f"{finding.fingerprint}@{party(report.target)}",
        },
        "properties": {
            "severity": finding.severity.value,
            "target": party(report.target),
            "targetVersion": report.target.get("version"),
            "baselineVersion": (report.baseline or {}).get("version"),
            "host": report.host,
            "fix": fix_text(finding.fix),
            "fixTier": finding.fix.tier if finding.fix else "manual",
        },
    }
    if finding.fix is not None and finding.fix.gated_tier is not None:
        result["properties"]["fixGatedTier"] = finding.fix.gated_tier  # its tier in a range consumer's branch
    if related:
        result["relatedLocations"] = related
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    fixes = _fixes(finding, consumer_root=consumer_root, uri=location["uri"], base=location.get("uriBaseId"))
    if fixes:
        result["fixes"] = fixes
    return result


def automation_id(reports: Sequence[Report]) -> str:
    """`drift/<consumer>/`: one code-scanning category per consumer, the same on every run (a
    new run replaces the last one's alerts, closing the fixed ones); `DRIFT_SARIF_CATEGORY`
    names another (several gate steps in one repository)."""
    given = os.environ.get("DRIFT_SARIF_CATEGORY", "").strip().strip("/")
    if given:
        return given + "/"
    consumer = (reports[0].consumer.get("name") or reports[0].consumer.get("spec")) if reports else None
    return f"drift/{consumer}/" if consumer else "drift/"


def to_sarif(reports: Sequence[Report], *, repo_root: str | None = None, rule_docs: Mapping[str, Any] | None = None,
             docs_uri: str | None | bool = True, consumer_root: str | None = None) -> dict[str, Any]:
    """One SARIF log, one run, every target's findings as results on the consumer's lines.

    `rule_docs` (drift.analysis.ruledocs.registry()) describes the rules; `docs_uri` is where the rule
    pages live (True: drift.analysis.ruledocs.docs_base_uri(), None/False: no helpUri).
    `consumer_root`: the consumer's files on this machine; a codemod finding then carries its
    edit as a SARIF `fix`.
    """
    if docs_uri is True:
        from drift.analysis.ruledocs import docs_base_uri

        docs_uri = docs_base_uri()
    all_findings = [f for r in reports for f in r.findings]
    rules = _rules(all_findings, rule_docs, docs_uri or None)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = [
        _result(f, report, rule_index=index[f.rule_id], repo_root=repo_root, consumer_root=consumer_root)
        for report in reports
        for f in ordered(report.findings)
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "drift",
                "version": __version__,
                "informationUri": "https://pypi.org/project/drift-vllm/",
                "rules": rules,
            }
        },
        "automationDetails": {"id": automation_id(reports)},
        "results": results,
        "columnKind": "unicodeCodePoints",
        "properties": {
            "consumer": party(reports[0].consumer) if reports else None,
            "targets": [target_label(r) for r in reports],
            "silenced": {"count": sum(len(r.silenced) for r in reports), "summary": silenced_summary(reports)},
        },
    }
    notes = list(dict.fromkeys(n for r in reports for n in header_notes(r)))
    if notes:  # where SARIF viewers show what a run wants its reader to know: the invocation's notifications
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "warning", "message": {"text": n}} for n in notes]}]
    if repo_root:
        uri = pathlib.Path(repo_root).resolve().as_uri().rstrip("/") + "/"
        run["originalUriBaseIds"] = {SRCROOT: {"uri": uri}}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
