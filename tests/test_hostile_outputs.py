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
import threading
from pathlib import Path

import pytest

from tests.demo_cli import check_demo, demo_trees, run_drift


_drift = run_drift


@pytest.fixture
def trees(tmp_path) -> dict[str, str]:
    return demo_trees(tmp_path)


def _check(trees, *extra: str, cwd: Path) -> subprocess.CompletedProcess:
    return check_demo(trees, *extra, cwd=cwd)


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
