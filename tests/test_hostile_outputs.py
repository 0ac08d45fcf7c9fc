"""One output writer (drift/output.py) for every -o, --write-accepted, snapshot and diff (issue 25):
a regular file is replaced atomically; a device, a FIFO, `-` or /dev/stdout is written through and
never replaced; a directory is `drift: error: ...` and exit 2, never a traceback.

The real CLI in a subprocess over small synthetic trees (a target before and after, a consumer
using it), so nothing here depends on PyPI.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest


def _drift(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "GITHUB_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, DRIFT_CACHE=str(cwd / "cache"))
    return subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", *argv], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture
def trees(tmp_path) -> dict[str, str]:
    for name, api in (("before", "def run(job, retries=3):\n    return job\n"),
                      ("after", "def run(job, *, retries=3):\n    return job\n")):
        (tmp_path / name / "demo").mkdir(parents=True)
        (tmp_path / name / "demo" / "__init__.py").write_text("")
        (tmp_path / name / "demo" / "api.py").write_text(api)
    (tmp_path / "consumer" / "uses_demo").mkdir(parents=True)
    (tmp_path / "consumer" / "uses_demo" / "__init__.py").write_text("from demo.api import run\n\nrun('x', 5)\n")
    return {"consumer": str(tmp_path / "consumer"), "target": str(tmp_path / "after"),
            "baseline": str(tmp_path / "before")}


def _check(trees, *extra: str, cwd: Path) -> subprocess.CompletedProcess:
    return _drift("check", trees["consumer"], "-t", trees["target"], "-b", trees["baseline"], "--package", "demo",
                  *extra, cwd=cwd)


def test_dev_null_stays_a_device(trees, tmp_path):
    before = os.stat("/dev/null")
    proc = _check(trees, "--format", "json", "-o", "/dev/null", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert not list(Path("/dev").glob(".null.*"))  # no temp file left beside it either


@pytest.mark.parametrize("where", ["/dev/stdout", "-"])
def test_stdout_by_name_receives_the_report(trees, tmp_path, where):
    proc = _check(trees, "--format", "json", "-o", where, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["breaking"] == 1


def test_a_fifo_receives_the_report_and_stays_a_fifo(trees, tmp_path):
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = _check(trees, "--format", "json", "-o", str(fifo), cwd=tmp_path)
    reader.join(60)
    assert proc.returncode == 1, proc.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(got[0])["summary"]["breaking"] == 1


def test_a_regular_file_is_replaced_whole_and_keeps_its_mode(trees, tmp_path):
    out = tmp_path / "report.json"
    out.write_text("old")
    out.chmod(0o640)
    proc = _check(trees, "--format", "json", "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(out.read_text())["summary"]["breaking"] == 1
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.glob(".report.json.*")] == []


@pytest.mark.parametrize("command", ["check", "write-accepted", "snapshot", "diff"])
def test_a_directory_is_a_clear_error_for_every_writer(trees, tmp_path, command):
    target = tmp_path / "adir"
    target.mkdir()
    if command == "check":
        proc = _check(trees, "--format", "json", "-o", str(target), cwd=tmp_path)
    elif command == "write-accepted":
        proc = _check(trees, "--write-accepted", str(target), cwd=tmp_path)
    elif command == "snapshot":
        proc = _drift("snapshot", trees["target"], "--package", "demo", "-o", str(target), cwd=tmp_path)
    else:
        proc = _drift("diff", trees["baseline"], trees["target"], "--package", "demo", "-o", str(target), cwd=tmp_path)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.startswith("drift: error: ") and "Is a directory" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert target.is_dir() and list(target.iterdir()) == []
