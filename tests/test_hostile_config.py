"""A repository's config does not run programs unasked.

`drift.toml` / `[tool.drift]` is part of the checkout, and a pull request can change it. A
`python:PATH` target runs PATH; an `ssh_config` may hold a ProxyCommand. Through the real CLI in a
subprocess (in a temp checkout): without `--trust-config` or DRIFT_TRUST_CONFIG=1 drift refuses
with exit 2 and the program never runs; with either, the setting is honoured (which is what
shows the refusal is what stopped it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def drift(cwd: Path, *argv: str, trust_env: bool = False):
    env = {k: v for k, v in os.environ.items() if k != "DRIFT_TRUST_CONFIG"}
    if trust_env:
        env["DRIFT_TRUST_CONFIG"] = "1"
    env["HOME"] = str(cwd / "home")  # no ~/.ssh/config of the machine running the tests
    res = subprocess.run([sys.executable, "-m", "drift.cli", *argv], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=180)
    assert "Traceback" not in res.stderr, res.stderr
    return res


def _marker_script(path: Path, marker: Path) -> None:
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    path.chmod(0o755)


@pytest.fixture
def checkout(tmp_path):
    repo = tmp_path / "repo"
    (repo / "home").mkdir(parents=True)
    (repo / "prpkg").mkdir()
    (repo / "prpkg" / "__init__.py").write_text("import vllm\n")
    return repo


@pytest.mark.parametrize("key", ["target", "baseline"])
def test_a_python_target_in_pyproject_does_not_run_under_a_plain_gate(checkout, key):
    marker = checkout / "RAN"
    _marker_script(checkout / "x.sh", marker)
    (checkout / "pyproject.toml").write_text(
        f'[project]\nname = "prpkg"\nversion = "0.1"\n[tool.drift]\n{key} = "python:./x.sh"\n')
    res = drift(checkout, "gate")
    assert res.returncode == 2, res.stderr
    assert "drift: error:" in res.stderr and "--trust-config" in res.stderr and "DRIFT_TRUST_CONFIG" in res.stderr
    assert not marker.exists()
    res = drift(checkout, "check", "prpkg")
    assert res.returncode == 2 and not marker.exists()


def test_a_trusted_config_is_honoured(checkout):
    marker = checkout / "RAN"
    _marker_script(checkout / "x.sh", marker)
    (checkout / "drift.toml").write_text('target = "python:./x.sh"\n')
    drift(checkout, "gate", trust_env=True)
    assert marker.exists()  # the environment variable CI sets on purpose
    marker.unlink()
    drift(checkout, "gate", "--trust-config")
    assert marker.exists()


def test_an_ssh_config_with_a_proxycommand_does_not_run(checkout):
    marker = checkout / "PROXY"
    (checkout / "sshcfg").write_text(f"Host *\n  ProxyCommand sh -c \"touch '{marker}'; exit 1\"\n")
    (checkout / "drift.toml").write_text(f'host = "gpu1"\nssh_config = "{checkout / "sshcfg"}"\n')
    for argv in (["runs"], ["scan"], ["watch", "--no-follow"]):
        res = drift(checkout, *argv, "--connect-timeout", "5")
        assert res.returncode == 2, (argv, res.stderr)
        assert "ssh_config" in res.stderr and "--trust-config" in res.stderr
        assert not marker.exists(), argv
    res = drift(checkout, "runs", "--connect-timeout", "5", "--trust-config")
    assert res.returncode == 3, res.stderr
    assert marker.exists()


def test_the_same_settings_on_the_command_line_need_no_trust(checkout, tmp_path):
    """A flag is the user's own choice: only a config file's settings need consent."""
    marker = checkout / "RAN"
    _marker_script(tmp_path / "x.sh", marker)
    res = drift(checkout, "snapshot", f"python:{tmp_path / 'x.sh'}")
    assert res.returncode != 0 and marker.exists()
