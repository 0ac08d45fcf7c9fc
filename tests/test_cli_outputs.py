"""One CLI (issue 24, item 8): repeatable --format/-o on check, a clear error for an -o that
cannot be written, one exit code (3) for an index that does not answer, consumer or target.

The real CLI in a subprocess over small synthetic trees (a target before and after, a consumer
using it), so nothing here depends on PyPI.
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from tests.demo_cli import check_demo, demo_trees, run_drift


_drift = run_drift


@pytest.fixture
def trees(tmp_path) -> dict[str, str]:
    return demo_trees(tmp_path)


def _check(trees, *extra: str, cwd: Path) -> subprocess.CompletedProcess:
    return check_demo(trees, *extra, cwd=cwd)


def test_check_writes_every_format_it_is_given(trees, tmp_path) -> None:
    proc = _check(trees, "--format", "sarif", "-o", "out/a.sarif", "--format", "markdown", "-o", "out/a.md",
                  "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["breaking"] == 1  # the third format, on stdout
    sarif = json.loads((tmp_path / "out" / "a.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == 1
    assert "uses_demo/__init__.py" in (tmp_path / "out" / "a.md").read_text()


@pytest.mark.parametrize("where, why", [("adir", "Is a directory"), ("/proc/nonexistent/r.json", "No such file")])
def test_an_output_that_cannot_be_written_is_a_clear_error(trees, tmp_path, where, why) -> None:
    (tmp_path / "adir").mkdir()
    proc = _check(trees, "--format", "json", "-o", where, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("drift: error: cannot write the json report to ") and why in proc.stderr
    assert "Traceback" not in proc.stderr


def test_more_outputs_than_formats_is_refused_before_any_work(trees, tmp_path) -> None:
    proc = _check(trees, "-o", "a.json", "-o", "b.json", cwd=tmp_path)
    assert proc.returncode == 2 and "more -o/--output than --format" in proc.stderr
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "cache").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_index_is_exit_3_for_the_consumer_as_for_the_target(trees, tmp_path) -> None:
    down = {"PIP_INDEX_URL": f"http://127.0.0.1:{_closed_port()}/simple/", "PIP_RETRIES": "0", "PIP_TIMEOUT": "2"}
    consumer = _drift("check", "some-plugin==1.0", "-t", trees["target"], "--package", "demo", cwd=tmp_path,
                      env_extra=down)
    target = _drift("check", trees["consumer"], "-t", "demo==1.0", "--package", "demo", cwd=tmp_path, env_extra=down)
    for proc in (consumer, target):
        assert proc.returncode == 3, proc.stderr
        assert "cannot read the package index" in proc.stderr and "Traceback" not in proc.stderr
    assert consumer.stderr.startswith("drift: error: consumer:")
