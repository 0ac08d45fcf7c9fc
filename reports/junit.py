"""JUnit XML so CI test dashboards show drift like any failing test.

One test suite per target, one test case per consumer use drift checked: a use with a
breaking finding fails; a risky or info finding passes with a note in <system-out>, because
a dashboard full of red for maybes teaches people to ignore it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence

from drift.findings import Finding, Report, Severity
from drift.output import visible, xml

from drift.reports._common import evidence_text, fix_text, header_notes, party, target_label
from drift.reports.matrix import UseResult, use_results


def _finding_text(finding: Finding) -> str:
    site = finding.consumer_site
    lines = [
        f"[{finding.severity.value}] {finding.rule_id}: {visible(finding.title)}",
        f"  consumer: {visible(site.path)}:{site.line}" + (f"  {visible(site.snippet)}" if site.snippet else ""),
        f"  target evidence: {visible(evidence_text(finding.target_evidence))}",
        f"  baseline evidence: {visible(evidence_text(finding.baseline_evidence))}",
    ]
    if finding.predicted_failure:
        lines.append(f"  predicted failure: {visible(finding.predicted_failure)}")
    if finding.details:
        lines.append(f"  {visible(finding.details)}")
    lines.append(f"  fix: {visible(fix_text(finding.fix))}")
    return "\n".join(lines)


def _testcase(result: UseResult, suite: ET.Element, name: str) -> bool:
    """Append one test case; True when it failed."""
    case = ET.SubElement(
        suite,
        "testcase",
        {"classname": result.site.path, "name": name, "file": result.site.path, "line": str(result.site.line)},
    )
    breaking = [f for f in result.findings if f.severity is Severity.BREAKING]
    others = [f for f in result.findings if f.severity is not Severity.BREAKING]
    if breaking:
        # a rule's text may quote what the consumer wrote (a path, a name): shown, never obeyed
        message = visible(breaking[0].title if len(breaking) == 1 else
                          f"{len(breaking)} breaking: " + "; ".join(f.title for f in breaking))
        failure = ET.SubElement(
            case, "failure", {"message": message, "type": ",".join(dict.fromkeys(f.rule_id for f in breaking))}
        )
        failure.text = "\n\n".join(_finding_text(f) for f in breaking)
    if others:
        out = ET.SubElement(case, "system-out")
        out.text = "\n\n".join(_finding_text(f) for f in others)
    return bool(breaking)


def case_names(results: Sequence[UseResult]) -> list[str]:
    """Test names without line numbers (dashboards key history on them): `call vllm.x.f`, and
    `#2`, `#3` for the same use again in the same file, in file order."""
    seen: Counter[tuple[str, str]] = Counter()
    names = []
    for result in results:
        seen[(result.site.path, result.label)] += 1
        n = seen[(result.site.path, result.label)]
        names.append(result.label if n == 1 else f"{result.label} #{n}")
    return names


def _well_formed(root: ET.Element) -> None:
    """Every attribute (names, paths, versions: one line each) and text (drift's multi-line
    failure bodies) through `drift.output.xml`: a control character in a consumer's file name
    must not make the document ill-formed for the dashboard that parses it."""
    for element in root.iter():
        for key, value in element.attrib.items():
            element.set(key, xml(value))
        if element.text:
            element.text = xml(element.text, multiline=True)


def to_junit(reports: Sequence[Report]) -> str:
    """A <testsuites> document; the CI exit code still comes from Report.exit_code."""
    root = ET.Element("testsuites", {"name": "drift"})
    total = failures = 0
    for report in reports:
        results = use_results(report)
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": f"drift: {party(report.consumer)} on {target_label(report)}",
                "tests": str(len(results)),
                "failures": "0",
                "errors": "0",
                "skipped": "0",
            },
        )
        props = ET.SubElement(suite, "properties")
        for name, value in (
            ("consumer", party(report.consumer)),
            ("target", party(report.target, with_commit=True)),
            ("baseline", party(report.baseline)),
            ("host", report.host or ""),
        ):
            ET.SubElement(props, "property", {"name": name, "value": value})
        for note in header_notes(report):  # JUnit viewers list a suite's properties above its cases
            ET.SubElement(props, "property", {"name": "caveat", "value": note})
        failed = sum(_testcase(result, suite, name) for result, name in zip(results, case_names(results)))
        suite.set("failures", str(failed))
        total += len(results)
        failures += failed
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    _well_formed(root)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
