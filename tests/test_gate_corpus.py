"""`drift gate` on real releases: speculators 0.3.0 (written for vllm 0.11.0) against 0.11.0 and 0.16.0.

Each report format is read back by something that is not drift: the official SARIF 2.1.0
schema, a real JUnit parser, the step-summary file GitHub Actions would show, and headless
Chromium for the HTML matrix. One two-target run (all formats at once) is shared by the
module so the file stays fast; the JSON report of that run is the reference every other
format is checked against.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from drift import exitcodes
from drift.cli import main
from drift.sources.errors import FetchError
from tests.test_reports_html import CHROMIUM, _artifacts, _chromium, _png_pixels
from tests.test_reports_sarif import sarif_validator  # noqa: F401  (module fixture: official schema)

pytestmark = pytest.mark.corpus

CONSUMER = "speculators==0.3.0"
OLD, NEW = "vllm==0.11.0", "vllm==0.16.0"
FORMATS = {"json": "gate.json", "sarif": "gate.sarif", "junit": "gate.xml", "markdown": "gate.md", "html": "gate.html"}
SUMMARY_BEFORE = "## earlier step\n\nkept as is\n"


@pytest.fixture(scope="module")
def releases(corpus_src) -> None:
    """Make sure the three releases are in the cache (fetched once with pip), or skip."""
    for spec in (CONSUMER, OLD, NEW):
        try:
            corpus_src(spec)
        except FetchError as exc:
            pytest.skip(f"cannot fetch {spec}: {exc}")


@dataclass(frozen=True)
class GateRun:
    code: int
    out: Path
    summary: str

    def text(self, fmt: str) -> str:
        return (self.out / FORMATS[fmt]).read_text(encoding="utf-8")

    def reports(self) -> list[dict]:
        return json.loads(self.text("json"))


@pytest.fixture(scope="module")
def matrix_run(releases, tmp_path_factory) -> GateRun:
    """One gate over both targets, every file format, with a GitHub step summary file."""
    out = tmp_path_factory.mktemp("gate")
    summary = out / "step-summary.md"
    summary.write_text(SUMMARY_BEFORE, encoding="utf-8")
    argv = ["gate", "--consumer", CONSUMER, "--target", OLD, "--target", NEW]
    for fmt, name in FORMATS.items():
        argv += ["--format", fmt, "-o", str(out / name)]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(out)  # SARIF paths are relative to the working directory (the checkout in CI)
        mp.setenv("GITHUB_STEP_SUMMARY", str(summary))
        code = main(argv)
    return GateRun(code, out, summary.read_text(encoding="utf-8"))


# --- exit codes -------------------------------------------------------------------------------


def test_written_for_release_passes(releases, capsys, monkeypatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert main(["gate", "--consumer", CONSUMER, "--target", OLD, "--json"]) == exitcodes.CLEAN
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "clean" and report["findings"] == []
    assert report["baseline"]["spec"] == OLD and "datagen" in report["baseline"]["source"]
    assert report["summary"]["uses_checked"] > 40


def test_newer_release_fails_with_terminal_report(releases, capsys, monkeypatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert main(["gate", "--consumer", CONSUMER, "--target", NEW]) == exitcodes.DRIFT
    out = capsys.readouterr().out
    assert "speculators 0.3.0" in out and "vllm 0.16.0" in out
    assert "do not launch" in out and "get_kv_cache_config_from_groups" in out


def test_two_targets_fail_and_json_holds_one_report_each(matrix_run: GateRun) -> None:
    assert matrix_run.code == exitcodes.DRIFT
    old, new = matrix_run.reports()
    assert (old["target"]["version"], new["target"]["version"]) == ("0.11.0", "0.16.0")
    assert old["exit_code"] == 0 and old["verdict"] == "clean"
    assert new["exit_code"] == 1 and new["summary"]["breaking"] >= 5
    rules = {f["rule_id"] for f in new["findings"]}
    assert {"DRIFT010", "DRIFT011", "DRIFT020", "DRIFT030"} <= rules
    assert old["summary"]["uses_checked"] == new["summary"]["uses_checked"] == len(new["uses"])


# --- Markdown: the matrix and the GitHub step summary -----------------------------------------


def test_markdown_matrix_has_a_column_per_target(matrix_run: GateRun) -> None:
    md = matrix_run.text("markdown")
    header = next(line for line in md.splitlines() if line.startswith("| Consumer use |"))
    assert [c.strip() for c in header.strip("|").split("|")] == ["Consumer use", "vllm 0.11.0", "vllm 0.16.0"]
    kv = next(line for line in md.splitlines() if "get_kv_cache_config_from_groups" in line and line.startswith("|"))
    assert "ok" in kv.split("|")[2] and "breaking (DRIFT010)" in kv.split("|")[3]
    assert "1 of 2 targets clean" in md


def test_step_summary_appends_the_verdict(matrix_run: GateRun) -> None:
    summary = matrix_run.summary
    assert summary.startswith(SUMMARY_BEFORE), "an earlier step's summary must be kept"
    added = summary[len(SUMMARY_BEFORE):]
    new = matrix_run.reports()[1]
    assert new["verdict"] in added  # "7 breaking, 3 risky — do not launch"
    assert "1 of 2 targets clean" in added and "| vllm 0.11.0 | clean |" in added


def test_step_summary_for_one_target(releases, tmp_path, monkeypatch, capsys) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["gate", "--consumer", CONSUMER, "--target", OLD, "-o", str(tmp_path / "t.txt")]) == 0
    text = summary.read_text(encoding="utf-8")
    assert "drift: clean" in text and "speculators 0.3.0 on vllm 0.11.0" in text


# --- SARIF ------------------------------------------------------------------------------------


def test_sarif_validates_against_official_schema(matrix_run: GateRun, sarif_validator) -> None:  # noqa: F811
    log = json.loads(matrix_run.text("sarif"))
    errors = sorted(sarif_validator.iter_errors(log), key=str)
    assert not errors, errors[0]


def test_sarif_results_sit_on_consumer_lines(matrix_run: GateRun) -> None:
    log = json.loads(matrix_run.text("sarif"))
    results = log["runs"][0]["results"]
    findings = {(r["target"]["version"], f["fingerprint"]): f for r in matrix_run.reports() for f in r["findings"]}
    assert len(results) == len(findings) > 0
    for result in results:  # fingerprints hold no line numbers, so the match is line-independent
        finding = findings[(result["properties"]["targetVersion"], result["partialFingerprints"]["driftFingerprint/v1"])]
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == finding["consumer_site"]["path"]
        assert loc["artifactLocation"]["uri"].startswith("speculators/data_generation/")
        assert loc["region"]["startLine"] == finding["consumer_site"]["line"]
        assert result["ruleId"] == finding["rule_id"]
        assert result["level"] == {"breaking": "error", "risky": "warning"}[finding["severity"]]
    assert {r["level"] for r in results} == {"error", "warning"}


# --- JUnit ------------------------------------------------------------------------------------


def test_junit_read_by_junitparser_matches_json(matrix_run: GateRun) -> None:
    from junitparser import Attr, Failure, IntAttr, JUnitXml, TestCase

    class SiteCase(TestCase):  # junitparser's documented way to read extra attributes
        file = Attr("file")
        line = IntAttr("line")

    xml = JUnitXml.fromfile(str(matrix_run.out / FORMATS["junit"]))
    suites = list(xml)
    reports = matrix_run.reports()
    assert len(suites) == len(reports) == 2
    for suite, report in zip(suites, reports):
        assert report["target"]["version"] in suite.name
        cases = list(suite.iterchildren(SiteCase))
        assert len(cases) == suite.tests == len(report["uses"])  # one test case per consumer use
        sites = {(u["site"]["path"], u["site"]["line"]) for u in report["uses"]}
        assert {(c.classname, c.line) for c in cases} == sites
        assert all(c.file == c.classname for c in cases)
        failed = [c for c in cases if c.is_failure]
        assert suite.failures == len(failed)
        breaking = [f for f in report["findings"] if f["severity"] == "breaking"]
        texts = "\n".join(r.text or "" for c in failed for r in c.result if isinstance(r, Failure))
        assert texts.count("[breaking]") == len(breaking) == report["summary"]["breaking"]
        for f in breaking:  # each breaking finding fails a case in its file at or above its line
            site = f["consumer_site"]
            assert any(c.classname == site["path"] and c.line <= site["line"] for c in failed), f["key"]
        if not breaking:
            assert failed == []
    assert xml.failures == sum(s.failures for s in suites) > 0


# --- HTML matrix ------------------------------------------------------------------------------


def _matrix_shape(html: str) -> tuple[list[tuple[str, str]], int, int]:
    """([(target label, column verdict)], use rows, status cells) of an HTML matrix page."""
    head = re.search(r"<thead>(.*?)</thead>", html, re.S).group(1)
    columns = [
        (label.strip(), verdict)
        for label, verdict in re.findall(r'<th scope="col">([^<]*)<span class="col-verdict">([^<]*)</span>', head)
    ]
    return columns, len(re.findall(r'<tr class="use-row', html)), len(re.findall(r'<td class="cell s-', html))


def _expected_columns(reports: list[dict]) -> list[tuple[str, str]]:
    return [(f"vllm {r['target']['version']}", r["verdict"]) for r in reports]


def test_html_matrix_has_both_columns(matrix_run: GateRun) -> None:
    reports = matrix_run.reports()
    columns, rows, cells = _matrix_shape(matrix_run.text("html"))
    assert columns == _expected_columns(reports) and [c[0] for c in columns] == ["vllm 0.11.0", "vllm 0.16.0"]
    assert rows == len(reports[0]["uses"]) and cells == rows * 2


browser = pytest.mark.skipif(CHROMIUM is None, reason="headless chromium not installed (apt-get install chromium)")


@browser
@pytest.mark.browser
def test_html_matrix_in_chromium(matrix_run: GateRun, tmp_path: Path) -> None:
    """Screenshot kept at artifacts/gate-matrix.png; the rendered DOM holds rows x columns."""
    page, png = matrix_run.out / FORMATS["html"], _artifacts() / "gate-matrix.png"
    png.unlink(missing_ok=True)
    proc = _chromium(page.as_uri(), tmp_path, f"--screenshot={png}", "--window-size=1400,900")
    assert png.exists(), proc.stderr[-2000:]
    width, height, sample = _png_pixels(png.read_bytes())
    assert (width, height) == (1400, 900) and len(set(sample)) > 20, "screenshot looks blank"
    (_artifacts() / "gate-matrix.html").write_bytes(page.read_bytes())

    dom = _chromium(page.as_uri(), tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    columns, rows, cells = _matrix_shape(dom.stdout)
    reports = matrix_run.reports()
    assert columns == _expected_columns(reports)
    assert rows == len(reports[0]["uses"]) and cells == 2 * rows
    breaking_uses = len(re.findall(r'data-status="breaking"', dom.stdout))
    assert 0 < breaking_uses <= reports[1]["summary"]["breaking"]
