"""Silencing findings: by comment, by flag, by config, by accepted file (code moved included).

Real components end to end: a synthetic "vllm" before/after pair and a consumer tree on disk,
`drift check` run through drift.cli.main, the JSON report read back.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from drift import exitcodes
from drift.cli import main

BEFORE = """\
def f(a, b=None):
    return a


def g():
    return 1


def h(x=None):
    return x
"""
AFTER = """\
def f(a):
    return a


def h(x=True):
    return x
"""
CONSUMER = """\
from vllm.api import f, g, h


def run():
    f(1, b=2)
    h()
    return None  # g is only imported: the import's DRIFT001 is its one finding (any use would add DRIFT005)
"""


@pytest.fixture()
def trees(tmp_path, monkeypatch):
    for side, text in (("before", BEFORE), ("after", AFTER)):
        pkg = tmp_path / side / "vllm"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "api.py").write_text(text)
    cons = tmp_path / "repo" / "kvtool"
    cons.mkdir(parents=True)
    (cons / "__init__.py").write_text(CONSUMER)
    monkeypatch.chdir(tmp_path / "repo")  # no drift.toml above: only what each test writes
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _check(trees, capsys, *extra) -> tuple[int, dict]:
    argv = ["check", str(trees / "repo"), "-t", str(trees / "after"), "-b", str(trees / "before"), "--format", "json",
            *extra]
    code = main(argv)
    out = capsys.readouterr().out
    return code, json.loads(out)


def _rules(doc) -> list[str]:
    return sorted(f["rule_id"] for f in doc["findings"])


def _by(doc) -> dict[str, str]:
    return {s["rule_id"]: s["by"] for s in doc["silenced"]}


def test_unsilenced_baseline(trees, capsys) -> None:
    code, doc = _check(trees, capsys)
    assert code == exitcodes.DRIFT
    assert _rules(doc) == ["DRIFT001", "DRIFT010", "DRIFT050"] and doc["silenced"] == []


def test_comment_on_the_consumer_line(trees, capsys) -> None:
    path = trees / "repo" / "kvtool" / "__init__.py"
    path.write_text(CONSUMER.replace("    f(1, b=2)\n", "    f(1, b=2)  # drift: ignore[DRIFT010]\n")
                    .replace("    h()\n", "    h()  # drift: ignore[DRIFT0]  (a prefix)\n"))
    code, doc = _check(trees, capsys)
    assert _rules(doc) == ["DRIFT001"]
    assert _by(doc) == {"DRIFT010": "comment", "DRIFT050": "comment"}
    assert doc["summary"]["silenced"] == 2 and code == exitcodes.DRIFT
    # a comment for another rule silences nothing; --no-inline-ignores turns comments off
    path.write_text(CONSUMER.replace("    f(1, b=2)\n", "    f(1, b=2)  # drift: ignore[VLLM001]\n"))
    assert "DRIFT010" in _rules(_check(trees, capsys)[1])
    path.write_text(CONSUMER.replace("    f(1, b=2)\n", "    f(1, b=2)  # drift: ignore\n"))
    assert "DRIFT010" not in _rules(_check(trees, capsys)[1])
    assert "DRIFT010" in _rules(_check(trees, capsys, "--no-inline-ignores")[1])


def test_a_comment_inside_a_string_is_not_a_comment(trees, capsys) -> None:
    (trees / "repo" / "kvtool" / "__init__.py").write_text(
        CONSUMER.replace("    f(1, b=2)\n", "    f(1, b='# drift: ignore[DRIFT010]')\n"))
    assert "DRIFT010" in _rules(_check(trees, capsys)[1])


def test_select_and_ignore_with_ids_and_prefixes(trees, capsys) -> None:
    code, doc = _check(trees, capsys, "--ignore", "DRIFT0")
    assert _rules(doc) == [] and code == exitcodes.CLEAN
    assert set(_by(doc).values()) == {"--ignore"}
    _, doc = _check(trees, capsys, "--select", "DRIFT001,DRIFT05")
    assert _rules(doc) == ["DRIFT001", "DRIFT050"] and _by(doc) == {"DRIFT010": "--select"}
    # the more specific code wins, as in ruff
    _, doc = _check(trees, capsys, "--select", "DRIFT010", "--ignore", "DRIFT")
    assert _rules(doc) == ["DRIFT010"]


def test_bad_rule_code_is_a_usage_error(trees, capsys) -> None:
    code = main(["check", str(trees / "repo"), "-t", str(trees / "after"), "--ignore", "drift-0!"])
    err = capsys.readouterr().err
    assert code == exitcodes.USAGE and err.startswith("drift: error: --ignore: 'drift-0!' is not a rule id")


def test_config_ignore_and_per_file_ignores(trees, capsys) -> None:
    (trees / "repo" / "pyproject.toml").write_text(
        '[tool.drift]\nignore = ["DRIFT001"]\n\n[tool.drift.per-file-ignores]\n"kvtool/*.py" = ["DRIFT05"]\n')
    code, doc = _check(trees, capsys)
    assert _rules(doc) == ["DRIFT010"]
    assert _by(doc) == {"DRIFT001": "config ignore", "DRIFT050": "per-file-ignores"}
    # a glob that matches no consumer file silences nothing
    (trees / "repo" / "pyproject.toml").write_text('[tool.drift.per_file_ignores]\n"tests/*" = ["DRIFT"]\n')
    assert len(_check(trees, capsys)[1]["findings"]) == 3


def test_fail_on_risky(trees, capsys) -> None:
    code, _ = _check(trees, capsys, "--ignore", "DRIFT001,DRIFT010")
    assert code == exitcodes.CLEAN  # a risky finding alone passes by default
    code, doc = _check(trees, capsys, "--ignore", "DRIFT001,DRIFT010", "--fail-on", "risky")
    assert code == exitcodes.DRIFT and doc["exit_code"] == 1 and doc["fail_on"] == "risky"


def test_accepted_file_survives_code_moving_and_reports_only_new(trees, capsys) -> None:
    accepted = trees / "repo" / "drift-accepted.json"
    code, doc = _check(trees, capsys, "--write-accepted", str(accepted))
    assert code == exitcodes.CLEAN and _rules(doc) == []
    assert set(_by(doc).values()) == {"accepted"}
    recorded = json.loads(accepted.read_text())
    assert recorded["schema"] == "drift.accepted/1" and len(recorded["findings"]) == 3
    assert all("line" not in e for e in recorded["findings"])
    # the code moves down a few lines (and is re-indented): still accepted
    src = trees / "repo" / "kvtool" / "__init__.py"
    src.write_text('"""docs"""\n\nimport os\n\n' + CONSUMER.replace("    f(1, b=2)\n", "    if True:\n        f(1,  b=2)\n"))
    code, doc = _check(trees, capsys, "--accepted", str(accepted))
    assert code == exitcodes.CLEAN and _rules(doc) == [] and len(doc["silenced"]) == 3
    # a new use of the same drift is new: reported
    src.write_text(src.read_text() + "\n\ndef again():\n    return f(2, b=3)\n")
    code, doc = _check(trees, capsys, "--accepted", str(accepted))
    assert code == exitcodes.DRIFT and _rules(doc) == ["DRIFT010"]
    # the same file named in the config, relative to it
    (trees / "repo" / "drift.toml").write_text('accepted = "drift-accepted.json"\n')
    assert _rules(_check(trees, capsys)[1]) == ["DRIFT010"]


def test_missing_accepted_file_is_a_clear_error(trees, capsys) -> None:
    code = main(["check", str(trees / "repo"), "-t", str(trees / "after"), "--accepted", "nope.json"])
    err = capsys.readouterr().err
    assert code == exitcodes.USAGE and "nope.json does not exist" in err


def test_terminal_and_concise_say_what_was_silenced(trees, capsys) -> None:
    base = ["check", str(trees / "repo"), "-t", str(trees / "after"), "-b", str(trees / "before"), "--ignore", "DRIFT05"]
    main(base)
    assert "1 silenced (1 by --ignore)" in capsys.readouterr().out
    main([*base, "--format", "concise"])
    assert capsys.readouterr().out.splitlines()[-1] == "Found 2 findings; 1 silenced (1 by --ignore)."


def test_gate_prints_annotations_under_github_actions(trees, capsys, monkeypatch) -> None:
    summary = trees / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code = main(["gate", "-t", str(trees / "after"), "-b", str(trees / "before"), "--ignore", "DRIFT001",
                 "--format", "sarif", "-o", str(trees / "drift.sarif")])
    out = capsys.readouterr().out
    assert code == exitcodes.DRIFT
    lines = [ln for ln in out.splitlines() if ln.startswith("::")]
    assert [ln.split(" ", 1)[0] for ln in lines] == ["::error", "::warning"]
    assert "file=kvtool/__init__.py,line=5," in lines[0]  # relative to the checkout: GitHub resolves it
    assert "1 silenced (1 by --ignore)" in summary.read_text()
    monkeypatch.delenv("GITHUB_ACTIONS")
    main(["gate", "-t", str(trees / "after"), "-b", str(trees / "before"), "--format", "sarif", "-o",
          str(trees / "drift.sarif")])
    assert "::error" not in capsys.readouterr().out
