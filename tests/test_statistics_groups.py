"""--statistics, findings grouped by shared cause, HTML filters and capped GitHub annotations
(issue 24, item 6), over the real CLI on a synthetic `vllm.utils` split."""

from __future__ import annotations

import json
import os
import re

import pytest

from drift.cli import main
from tests.test_reports_html import CHROMIUM, _chromium

BEFORE_UTILS = '''\
def cdiv(a, b):
    return -(a // -b)


def round_up(x, y):
    return x


def get_ip():
    return "127.0.0.1"


def get_open_port():
    return 0
'''
MATH = "def cdiv(a, b):\n    return -(a // -b)\n\n\ndef round_up(x, y):\n    return x\n"
NET = "def get_ip():\n    return '127.0.0.1'\n\n\ndef get_open_port():\n    return 0\n"
USER = ("from vllm.utils import cdiv, get_ip\nfrom vllm.utils import round_up, get_open_port\n\n\n"
        "def f():\n    return cdiv(1, 2), get_ip(), round_up(1, 2), get_open_port()\n")


@pytest.fixture()
def split(tmp_path, monkeypatch):
    """vllm.utils (one module) split into vllm.utils.math_utils and vllm.utils.network_utils;
    three consumer files import four names each: 12 findings, one cause."""
    (tmp_path / "before" / "vllm").mkdir(parents=True)
    (tmp_path / "before" / "vllm" / "__init__.py").write_text("")
    (tmp_path / "before" / "vllm" / "utils.py").write_text(BEFORE_UTILS)
    (tmp_path / "after" / "vllm" / "utils").mkdir(parents=True)
    (tmp_path / "after" / "vllm" / "__init__.py").write_text("")
    (tmp_path / "after" / "vllm" / "utils" / "__init__.py").write_text("")
    (tmp_path / "after" / "vllm" / "utils" / "math_utils.py").write_text(MATH)
    (tmp_path / "after" / "vllm" / "utils" / "network_utils.py").write_text(NET)
    cons = tmp_path / "repo" / "kvtool"
    cons.mkdir(parents=True)
    (cons / "__init__.py").write_text("")
    for i in (1, 2, 3):
        (cons / f"m{i}.py").write_text(USER)
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return tmp_path


CAUSE = "`vllm.utils`: 12 imports → 2 new modules (vllm.utils.math_utils, vllm.utils.network_utils); 3 files"


def _run(split, capsys, *extra, cmd="check") -> tuple[int, str]:
    where = [str(split / "repo")] if cmd == "check" else ["-c", str(split / "repo")]
    code = main([cmd, *where, "-t", str(split / "after"), "-b", str(split / "before"), *extra])
    return code, capsys.readouterr().out


def test_statistics_per_rule_and_per_cause(split, capsys) -> None:
    code, out = _run(split, capsys, "--statistics")
    assert code == 1  # the same exit code as the report's
    lines = out.splitlines()
    assert lines[0].split("\t")[:2] == ["12", "DRIFT002"]
    assert f"12\t{CAUSE}" in lines
    assert "DRIFT002  `cdiv`" not in out  # counts instead of the findings
    code, out = _run(split, capsys, "--format", "json")
    fixable = sum(1 for f in json.loads(out)["findings"] if (f["fix"] or {}).get("codemod"))
    code, out = _run(split, capsys, "--statistics", "--format", "json")
    stats = json.loads(out)
    assert stats["rules"] == [{"rule": "DRIFT002", "count": 12, "fixable": fixable, "severity": "breaking",
                               "kind": "imported name moved"}]
    assert stats["causes"] == [{"cause": CAUSE, "count": 12, "rules": ["DRIFT002"]}]
    code, out = _run(split, capsys, "--statistics", cmd="gate")
    assert code == 1 and f"12\t{CAUSE}" in out.splitlines()


def test_terminal_and_markdown_group_the_shared_cause(split, capsys) -> None:
    code, out = _run(split, capsys)
    head = out.split("BREAKING (12)")[0]
    assert "1 shared cause:" in head and CAUSE in head
    assert out.count("DRIFT002  ") == 12  # every finding is still listed below
    code, out = _run(split, capsys, "--format", "markdown")
    assert f"| 12 | {CAUSE.replace('|', '')} |" in out
    assert out.index("Shared cause") < out.index("| Severity | Rule |")


def test_github_annotations_one_per_cause(split, capsys) -> None:
    code, out = _run(split, capsys, "--format", "github")
    errors = [line for line in out.splitlines() if line.startswith("::error ")]
    assert len(errors) == 1
    assert "same cause (" in errors[0] and "at 11 more sites: kvtool/m1.py:1, " in errors[0]


def test_github_annotations_are_capped_and_the_rest_is_said(tmp_path, monkeypatch, capsys) -> None:
    """12 breaking findings of 12 causes: GitHub shows 10 errors per step; the other 2 are counted."""
    n = 12
    for side, sig in (("before", "(a, b=None)"), ("after", "(a)")):
        (tmp_path / side / "vllm").mkdir(parents=True)
        (tmp_path / side / "vllm" / "__init__.py").write_text("")
        (tmp_path / side / "vllm" / "api.py").write_text("".join(f"def f{i}{sig}:\n    return a\n\n\n" for i in range(n)))
    (tmp_path / "repo" / "kvtool").mkdir(parents=True)
    (tmp_path / "repo" / "kvtool" / "__init__.py").write_text(
        f"from vllm.api import {', '.join(f'f{i}' for i in range(n))}\n\n\ndef run():\n"
        + "".join(f"    f{i}(1, b=2)\n" for i in range(n)))
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    code = main(["check", str(tmp_path / "repo"), "-t", str(tmp_path / "after"), "-b", str(tmp_path / "before"),
                 "--format", "github"])
    out = capsys.readouterr().out
    assert code == 1
    assert sum(line.startswith("::error ") for line in out.splitlines()) == 10
    assert "drift: 2 errors not annotated: GitHub shows 10 errors and 10 warnings per step" in out
    assert out.splitlines()[-1] == "Found 12 findings."


@pytest.mark.skipif(CHROMIUM is None and os.environ.get("CI") != "true", reason="headless chromium not installed")
@pytest.mark.browser
def test_html_filters_by_rule_file_and_text_in_a_real_browser(split, capsys, tmp_path) -> None:
    page = split / "report.html"
    code, _ = _run(split, capsys, "--format", "html", "-o", str(page))
    assert code == 1
    html = page.read_text()
    assert "Shared causes" in html and 'id="filter-rule"' in html and 'id="filter-text"' in html

    def shown(fragment: str) -> list[str]:
        proc = _chromium(page.as_uri() + fragment, tmp_path, "--dump-dom")
        assert proc.returncode == 0, proc.stderr[-2000:]
        rows = re.findall(r'<tr class="use-row([^"]*)"[^>]*data-file="([^"]*)"[^>]*>(.*?)</tr>', proc.stdout, flags=re.S)
        return [f"{path} {re.sub('<[^>]+>', '', body)[:60]}" for cls, path, body in rows if "filtered" not in cls
                and "hide" not in cls]

    everything = shown("")
    assert len(everything) == 12  # the 12 imports that drift (their clean calls start hidden)
    by_file = shown("#file=kvtool/m2.py")  # a filter shows clean uses too: 4 imports and 4 calls
    assert len(by_file) == 8 and all(r.startswith("kvtool/m2.py ") for r in by_file)
    by_text = shown("#q=network_utils")  # the text of the row: its finding names the new module
    assert len(by_text) == 6 and all(("get_ip" in r) != ("get_open_port" in r) for r in by_text)
    assert len(shown("#rule=DRIFT002")) == 12
    assert shown("#rule=DRIFT002&q=nothing-like-this") == []
