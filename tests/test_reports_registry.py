"""The FORMATS registry: every --format renders, writes atomically, and bad names are clear."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from drift import reports
from tests import report_samples as S


def test_registry_lists_the_formats() -> None:
    assert reports.FORMAT_NAMES == ("terminal", "json", "markdown", "sarif", "junit", "html", "concise", "github")
    assert all(f.suffix.startswith(".") and f.description for f in reports.FORMATS.values())


@pytest.mark.parametrize("fmt", reports.FORMAT_NAMES)
def test_write_each_format_to_a_file(fmt: str, tmp_path) -> None:
    out = tmp_path / "nested" / f"drift{reports.FORMATS[fmt].suffix}"
    reports.write(S.matrix_reports(), fmt, out)
    text = out.read_text(encoding="utf-8")
    assert text and not list(out.parent.glob(".*"))  # no temp file left behind
    if fmt == "json":
        assert [d["schema"] for d in json.loads(text)] == ["drift.report/1"] * 3
    elif fmt == "sarif":
        assert json.loads(text)["version"] == "2.1.0"
    elif fmt == "junit":
        assert len(ET.fromstring(text.split("\n", 1)[1]).findall("testsuite")) == 3
    elif fmt == "html":
        assert text.startswith("<!DOCTYPE html>")
    elif fmt == "terminal":
        assert "\x1b[" not in text and "verdict: 5 breaking, 2 risky — do not launch" in text
    elif fmt == "markdown":
        assert "drift compatibility matrix" in text


def test_single_report_json_is_one_object() -> None:
    assert json.loads(reports.render(S.seed_report(), "json"))["schema"] == "drift.report/1"


def test_stdout_when_no_output(capsys) -> None:
    reports.write(S.seed_report(), "markdown", None)
    assert capsys.readouterr().out.startswith("❌ **drift: 5 breaking")
    reports.write(S.clean_report(), "terminal", "-")
    assert "verdict: clean" in capsys.readouterr().out


def test_unknown_format_and_empty_input_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown report format 'pdf'; choose one of: terminal, json"):
        reports.render(S.seed_report(), "pdf")
    with pytest.raises(ValueError, match="no reports"):
        reports.render([], "json")
