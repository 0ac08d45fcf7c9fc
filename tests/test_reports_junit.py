"""JUnit XML: one suite per target, one case per use; breaking fails, risky only notes."""

from __future__ import annotations

import pathlib
import xml.etree.ElementTree as ET

import pytest

from drift.findings import Severity
from drift.reports.junit import to_junit
from drift.reports.matrix import use_results
from tests import report_samples as S


def _expected(report):
    results = use_results(report)
    failing = [r for r in results if any(f.severity is Severity.BREAKING for f in r.findings)]
    return results, failing


def test_suites_cases_and_failures_match_the_model() -> None:
    reports = S.matrix_reports()
    root = ET.fromstring(to_junit(reports))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == len(reports)
    total_tests = total_failures = 0
    for suite, report in zip(suites, reports):
        results, failing = _expected(report)
        cases = suite.findall("testcase")
        assert len(cases) == int(suite.get("tests")) == len(results)
        assert len([c for c in cases if c.find("failure") is not None]) == int(suite.get("failures")) == len(failing)
        assert report.target["version"] in suite.get("name")
        total_tests += len(results)
        total_failures += len(failing)
    assert int(root.get("tests")) == total_tests and int(root.get("failures")) == total_failures
    # every use checked is a case, plus the one finding at a site no use covers
    assert len(suites[2].findall("testcase")) == len(S.USES) + 1


def test_case_names_failure_content_and_risky_notes() -> None:
    suite = ET.fromstring(to_junit([S.seed_report()])).find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    call = cases["call vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups"]
    assert call.get("classname") == S.GEN
    failure = call.find("failure")
    assert failure.get("type") == "DRIFT101"
    assert failure.get("message") == S.KEYWORD_REMOVED.title
    for piece in ("vllm/v1/core/kv_cache_utils.py:1069", "vllm/v1/core/kv_cache_utils.py:1004",
                  "unexpected keyword argument 'kv_cache_specs'", "unsafe (--unsafe-fixes): drop the keyword"):
        assert piece in failure.text
    risky = cases["method vllm.v1.executor.multiproc_executor.MultiprocExecutor.collective_rpc #2"]
    assert risky.find("failure") is None
    assert "DRIFT301" in risky.find("system-out").text
    clean = cases["import vllm.sampling_params.SamplingParams"]
    assert list(clean) == []
    assert not any(ch.isdigit() for name in cases for ch in name.replace("#2", "").split(".")[-1])
    assert all(f"line {c.get('line')}" not in name for name, c in cases.items())


def test_real_junit_parser_agrees(tmp_path: pathlib.Path) -> None:
    junitparser = pytest.importorskip("junitparser", reason="junitparser (pyproject test extra) is not installed")
    path = tmp_path / "drift.xml"
    reports = S.matrix_reports()
    path.write_text(to_junit(reports), encoding="utf-8")
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert len(suites) == len(reports)
    for suite, report in zip(suites, reports):
        results, failing = _expected(report)
        cases = list(suite)
        assert suite.tests == len(cases) == len(results)
        failed = [c for c in cases if any(isinstance(r, junitparser.Failure) for r in c.result)]
        assert suite.failures == len(failed) == len(failing)
        for case in failed:
            assert case.result[0].type and case.result[0].message


def test_text_a_rule_quotes_from_the_consumer_is_shown_not_obeyed() -> None:
    """A rule's title, failure, details or fix may quote what the consumer wrote (a file name, an
    install's place): a carriage return or an ESC there is written escaped, as the site's path is."""
    from dataclasses import replace

    from drift.findings import Fix

    report = S.seed_report()
    hostile = replace(S.KEYWORD_REMOVED, title="gone at evil\rname.py\x1b[2J", details="see\rhere",
                      predicted_failure="TypeError\x1b]0;x\x07", fix=Fix("drop it\r", manual_reason="x\r"))
    report = replace(report, findings=tuple(hostile if f is S.KEYWORD_REMOVED else f for f in report.findings))
    text = to_junit([report])
    assert "\r" not in text and "\x1b" not in text and "\x07" not in text
    failure = ET.fromstring(text).find(".//failure[@type='DRIFT101']")
    assert failure.get("message") == "gone at evil\\x0dname.py\\x1b[2J"
    assert "see\\x0dhere" in failure.text and "TypeError\\x1b]0;x\\x07" in failure.text
