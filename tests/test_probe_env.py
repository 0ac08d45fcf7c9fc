"""The env block: versions, commits, torch CUDA and GPUs read without importing anything heavy."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from drift.probes import environment as env_mod
from drift.probes.distinfo import commit_of, dist_for, parse_metadata


def _dist(root: Path, name: str, version: str, *, top: str | None = None, direct_url: dict | None = None) -> Path:
    d = root / f"{name}-{version}.dist-info"
    d.mkdir(parents=True)
    (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                "Requires-Dist: numpy\n\nRequires-Dist: not-a-header\n")
    if top:
        (d / "top_level.txt").write_text(top + "\n")
    if direct_url is not None:
        (d / "direct_url.json").write_text(json.dumps(direct_url))
    return d


def test_parse_metadata_stops_at_body():
    info = parse_metadata("Name: a\nVersion: 1\nRequires-Dist: b>=2\n\nRequires-Dist: c\n")
    assert info == {"dist": "a", "version": "1", "requires": ["b>=2"]}


def test_commit_from_direct_url_and_local_version(tmp_path):
    d = _dist(tmp_path, "vllm", "0.16.1.dev5+g1a2b3c4d.cu128",
              direct_url={"url": "https://github.com/x/y", "vcs_info": {"vcs": "git", "commit_id": "abcdef0123"}})
    assert commit_of(str(d), "0.16.1.dev5+g1a2b3c4d.cu128") == "abcdef0123"
    assert commit_of(None, "0.16.1.dev5+g1a2b3c4d.cu128") == "1a2b3c4d"
    assert commit_of(None, "0.16.0") is None
    assert commit_of(None, "2.9.0+cu128") is None


def test_dist_for_matches_top_level_and_name(tmp_path):
    _dist(tmp_path, "python_dateutil", "2.9", top="dateutil")
    _dist(tmp_path, "vllm", "0.16.0")
    assert dist_for(str(tmp_path), "dateutil", use_importlib=False)["dist"] == "python_dateutil"
    info = dist_for(str(tmp_path), "vllm", use_importlib=False)
    assert info["version"] == "0.16.0" and info["requires"] == ["numpy"]
    assert dist_for(str(tmp_path), "nothing", use_importlib=False)["version"] is None


def test_tree_environment_reads_torch_cuda_as_text(tmp_path):
    _dist(tmp_path, "torch", "2.9.0+cu128", top="torch")
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "version.py").write_text(
        "from typing import Optional\n__version__ = '2.9.0+cu128'\ncuda: Optional[str] = '12.8'\n"
        "raise SystemExit('importing torch/version.py is not allowed in the probe')\n")
    _dist(tmp_path, "vllm", "0.16.1.dev5+g1a2b3c4d")
    env = env_mod.tree_environment(str(tmp_path), ["torch", "vllm", "absent"])
    assert env["packages"]["torch"] == {"version": "2.9.0+cu128", "location": str(tmp_path), "cuda": "12.8"}
    assert env["packages"]["vllm"]["commit"] == "1a2b3c4d"
    assert "absent" not in env["packages"]


def test_torch_cuda_none_for_cpu_build(tmp_path):
    (tmp_path / "version.py").write_text("__version__ = '2.9.0+cpu'\ncuda = None\n")
    assert env_mod.torch_cuda(str(tmp_path)) is None
    assert env_mod.torch_cuda(str(tmp_path / "nope")) is None


def _fake_smi(tmp_path: Path, body: str) -> None:
    exe = tmp_path / "bin" / "nvidia-smi"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)


def test_gpus_from_nvidia_smi(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert env_mod.gpus() is None  # not on PATH
    _fake_smi(tmp_path, "echo 'NVIDIA B200, 183359 MiB, 580.82'\necho 'NVIDIA B200, 183359 MiB, 580.82'\n")
    assert env_mod.gpus() == [{"name": "NVIDIA B200", "memory": "183359 MiB", "driver": "580.82"}] * 2
    _fake_smi(tmp_path, "echo 'NVIDIA-SMI has failed' >&2\nexit 9\n")
    assert env_mod.gpus() is None


def test_environment_of_this_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    env = env_mod.environment(["pytest", "surely_absent_pkg"])
    assert env["python"].count(".") == 2 and env["executable"]
    assert env["platform"].startswith(os.uname().sysname)
    assert env["gpus"] is None
    assert env["packages"]["pytest"]["version"]
    assert "surely_absent_pkg" not in env["packages"]
