"""CI-grade output: every format snapshotted, the line formats parsed by the patterns editors and
GitHub use, SARIF against the schema with rule help from the registry, and a piped log that keeps
every path and predicted error whole.

Golden files live in tests/golden/; after an intended change regenerate them with
`DRIFT_UPDATE_GOLDEN=1 python -m pytest -q tests/test_ci_output.py` and review the diff.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from drift import reports
from drift.findings import Finding, Fix, Location, Report, RuleKind, Severity
from drift.analysis.ruledocs import CHECKOUT_PAGES, builtin_registry
from drift.reports.sarif import to_sarif
from tests import report_samples as S
from tests.test_reports_sarif import sarif_validator  # noqa: F401 - the pinned OASIS schema fixture

GOLDEN = pathlib.Path(__file__).parent / "golden"
ROOT = pathlib.Path(__file__).resolve().parent.parent

# The shapes editors and problem matchers read: SublimeLinter-contrib-ruff's `file:line:col: message`,
# and the ruff/flake8 matcher with the rule code as its own group.
EDITOR = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<message>.+)$")
WITH_CODE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+[0-9]+) (?P<message>.*)$")
# GitHub's workflow command: ::level key=value,...::message (values escaped as actions/toolkit does)
WORKFLOW = re.compile(r"^::(?P<level>error|warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")


def _unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("DRIFT_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden {name}; run DRIFT_UPDATE_GOLDEN=1 python -m pytest -q {__file__}"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; if intended: DRIFT_UPDATE_GOLDEN=1"


def _silenced_report() -> Report:
    from drift.suppress import Policy, apply

    return apply(S.seed_report(), Policy(ignore=("DRIFT5",)))


FORMATS = {"terminal": "seed.txt", "concise": "seed.concise", "github": "seed.github", "markdown": "seed.md",
           "json": "seed.json", "junit": "seed.junit.xml", "html": "seed.html"}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_output_snapshot_per_format(fmt: str) -> None:
    text = reports.render(_silenced_report(), fmt, options=reports.Options(repo_root=None))
    text = re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated <time> UTC", text)  # html's clock
    _golden(FORMATS[fmt], text)


def test_sarif_snapshot() -> None:
    log = to_sarif([_silenced_report()], repo_root=None, docs_uri="https://drift.invalid/docs/rules/")
    _golden("seed.sarif", json.dumps(log, indent=2, ensure_ascii=False) + "\n")


def test_concise_lines_match_editor_and_ruff_patterns() -> None:
    report = S.seed_report()
    lines = reports.render(report, "concise").splitlines()
    assert lines[-1] == "Found 8 findings."
    body = lines[:-1]
    assert len(body) == len(report.findings)
    for line in body:
        assert EDITOR.match(line), line
    parsed = [WITH_CODE.match(line) for line in body]
    assert all(parsed), body
    got = {(m["file"], int(m["line"]), m["code"]) for m in parsed}
    assert got == {(f.consumer_site.path, f.consumer_site.line, f.rule_id) for f in report.findings}
    keyword = next(m for m in parsed if m["code"] == "DRIFT101")
    assert keyword["col"] == "1"  # the rule gave no column: the line's start
    assert S.KEYWORD_REMOVED.predicted_failure in keyword["message"]


def test_concise_uses_the_rules_column_when_known() -> None:
    located = dataclasses.replace(S.KEYWORD_REMOVED, consumer_site=dataclasses.replace(S.KEYWORD_REMOVED.consumer_site, col=13))
    line = reports.render(dataclasses.replace(S.clean_report(), findings=(located,)), "concise").splitlines()[0]
    assert WITH_CODE.match(line)["col"] == "13"


def test_github_annotations_match_the_workflow_command_form() -> None:
    # another symbol: a finding with RETURN_SHAPE's rule and symbol would share its annotation (one cause)
    odd = dataclasses.replace(S.RETURN_SHAPE, title="returns a, b: 100% changed\nnow", symbol="vllm.odd.f")
    report = dataclasses.replace(S.seed_report(), findings=(*S.SEED_FINDINGS, odd))
    lines = reports.render(report, "github").splitlines()
    assert lines[-1].startswith("Found 9 findings")
    levels = []
    for line in lines[:-1]:
        m = WORKFLOW.match(line)
        assert m, line
        props = dict(p.split("=", 1) for p in m["props"].split(","))
        assert set(props) == {"file", "line", "col", "title"}
        assert props["line"].isdigit() and props["col"].isdigit()
        levels.append(m["level"])
        message = _unescape(m["message"])
        if "100%" in message:  # escaping survived: the comma, colon, percent and newline came back
            assert message.startswith("returns a, b: 100% changed\nnow")
    assert levels.count("error") == 5 and levels.count("warning") == 3 and levels.count("notice") == 1


def _real_rule_findings() -> tuple[Finding, ...]:
    """Two DRIFT011 findings with different fixes: the rule's help must name neither."""
    def req(line: int, kw: str, col: int | None) -> Finding:
        return Finding(rule_id="DRIFT011", kind=RuleKind.REQUIRED_ADDED, severity=Severity.BREAKING,
                       title=f"`Scheduler` now requires `{kw}`", consumer_site=Location(S.GEN, line, snippet=f"Scheduler(x)  # {kw}", col=col),
                       predicted_failure=f"TypeError: missing 1 required positional argument: '{kw}'",
                       fix=Fix(f"pass {kw}=...", codemod="add_keyword", args={"keyword": kw}),
                       symbol=f"vllm.Scheduler.{kw}")
    return (req(148, "block_size", 26), req(194, "is_encoder_decoder", None))


def test_sarif_rules_from_the_registry_validate_and_carry_help(sarif_validator) -> None:  # noqa: F811
    report = dataclasses.replace(S.clean_report(), findings=_real_rule_findings())
    log = to_sarif([report], repo_root=None)
    sarif_validator.validate(log)
    run = log["runs"][0]
    (rule,) = run["tool"]["driver"]["rules"]
    doc = builtin_registry()["DRIFT011"]
    assert rule["fullDescription"]["text"].startswith(doc.summary)
    assert rule["help"]["markdown"] == (CHECKOUT_PAGES / "DRIFT011.md").read_text(encoding="utf-8")
    assert rule["helpUri"].endswith("docs/rules/DRIFT011.md")
    assert rule["defaultConfiguration"]["level"] == "error"
    text = json.dumps(rule)
    assert "block_size" not in text and "is_encoder_decoder" not in text  # never one finding's fix
    cols = [r["locations"][0]["physicalLocation"]["region"]["startColumn"] for r in run["results"]]
    assert cols == [26, 1]


def test_sarif_fingerprints_hold_no_line_numbers() -> None:
    findings = _real_rule_findings()
    moved = tuple(dataclasses.replace(f, consumer_site=dataclasses.replace(f.consumer_site, line=f.consumer_site.line + 7))
                  for f in findings)
    prints = []
    for found in (findings, moved):
        log = to_sarif([dataclasses.replace(S.clean_report(), findings=found)], repo_root=None)
        prints.append([r["partialFingerprints"] for r in log["runs"][0]["results"]])
        for fp in prints[-1]:
            for value in fp.values():
                assert ":148" not in value and ":194" not in value
    assert prints[0] == prints[1]


def test_sarif_says_how_many_were_silenced() -> None:
    props = to_sarif([_silenced_report()], repo_root=None)["runs"][0]["properties"]
    assert props["silenced"] == {"count": 1, "summary": "1 silenced (1 by --ignore)"}


PIPE_SCRIPT = """
from drift import reports
from tests import report_samples as S
reports.write(S.seed_report(), "terminal", None)
"""


def test_piped_log_keeps_every_path_and_predicted_error_whole() -> None:
    """The main job's report through a pipe (`| cat`), on a narrow COLUMNS: nothing cut, nothing folded."""
    env = dict(os.environ, COLUMNS="60", TERM="xterm-256color")
    proc = subprocess.run([sys.executable, "-c", PIPE_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)
    lines = proc.stdout.splitlines()
    assert "…" not in proc.stdout
    for f in S.SEED_FINDINGS:
        site = f"{f.consumer_site.path}:{f.consumer_site.line}"
        assert any(site in line for line in lines), site
        for loc in f.target_evidence[:1] + f.baseline_evidence:
            assert any(f"{loc.path}:{loc.line}" in line for line in lines), loc
        if f.predicted_failure:
            assert any(f.predicted_failure in line for line in lines), f.predicted_failure
        assert any(f.title in line for line in lines), f.title
    assert max(len(line) for line in lines) > 60  # whole lines, not wrapped to the 60 columns
