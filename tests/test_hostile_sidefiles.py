"""Side files are read by bytes read, not by `st_size`: a device says 0 and never ends.

`accepted = "/dev/zero"` in a checkout's config, `--inventory /dev/zero` and `--limit @/dev/zero`
through the real CLI, in a subprocess whose address space is capped at 2 GB, so reading without
limit would end in a MemoryError traceback, not a pass: each must be one `drift: error:` and exit 2.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def drift(cwd, *argv):
    res = subprocess.run([sys.executable, "-m", "drift.cli", *argv], cwd=cwd, capture_output=True, text=True,
                         timeout=300, preexec_fn=_cap_memory, env=dict(os.environ, NO_COLOR="1"))
    assert "Traceback" not in res.stderr, res.stderr[-2000:]
    return res


@pytest.fixture
def checkout(tmp_path):
    (tmp_path / "vt" / "vllm").mkdir(parents=True)
    (tmp_path / "vt" / "vllm" / "__init__.py").write_text("def keep(a):\n    return a\n")
    (tmp_path / "repo" / "sidepkg").mkdir(parents=True)
    (tmp_path / "repo" / "sidepkg" / "__init__.py").write_text("from vllm import keep\n")
    return tmp_path


def test_an_accepted_file_that_is_a_device(checkout):
    (checkout / "repo" / "pyproject.toml").write_text(
        '[project]\nname = "sidepkg"\nversion = "0.1"\n[tool.drift]\naccepted = "/dev/zero"\n')
    res = drift(checkout / "repo", "gate", "-t", str(checkout / "vt"))
    assert res.returncode == 2 and "drift: error: accepted-findings file /dev/zero is larger than" in res.stderr
    res = drift(checkout / "repo", "check", ".", "-t", str(checkout / "vt"), "--accepted", "/dev/zero")
    assert res.returncode == 2 and "larger than" in res.stderr


def test_an_inventory_or_limit_file_that_is_a_device(tmp_path):
    res = drift(tmp_path, "scan", "--inventory", "/dev/zero")
    assert res.returncode == 2 and "drift: error: inventory /dev/zero is larger than 16 MB" in res.stderr
    (tmp_path / "hosts.ini").write_text("gpu1\n")
    res = drift(tmp_path, "scan", "--inventory", str(tmp_path / "hosts.ini"), "--limit", "@/dev/zero")
    assert res.returncode == 2 and "limit file /dev/zero is larger than" in res.stderr, res.stderr


def test_a_snapshot_longer_than_drift_reads(tmp_path):
    """A sparse file (no disk used) longer than the cap: refused from what was read."""
    from drift.sources.snapshot import SNAPSHOT_LIMIT, SnapshotError, load_snapshot

    big = tmp_path / "facts.json"
    with open(big, "wb") as fh:
        fh.truncate(SNAPSHOT_LIMIT + 1)
    with pytest.raises(SnapshotError, match="larger than"):
        load_snapshot(big, spec=str(big))
