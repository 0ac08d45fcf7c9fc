"""Fleets report every host, over real sshds: --json and --format sarif list unreachable and
failed hosts with their status (even when none answered), and the worst host decides the exit
code (3 > 2 > 1 > 0). And a scan says what it writes on the host."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from drift.cli import main

pytestmark = [pytest.mark.ssh]


def dead_spec() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"root@127.0.0.1:{s.getsockname()[1]}"


def ssh_args(server):
    return ["-i", server.identity, "--known-hosts", server.known_hosts, "-F", server.write_ssh_config("")]


def test_every_host_unreachable_still_gives_a_json_document(sshd, capsys):
    hosts = [dead_spec(), dead_spec()]
    code = main(["scan", *hosts, "--python", sys.executable, *ssh_args(sshd), "--json"])
    out, err = capsys.readouterr()
    assert code == 3
    doc = json.loads(out)
    assert doc["schema"] == "drift.fleet/1" and doc["exit_code"] == 3
    assert [(h["host"], h["status"]) for h in doc["hosts"]] == [(h, "unreachable") for h in hosts]
    assert all("refused" in h["reason"] for h in doc["hosts"])


def test_every_host_unreachable_still_gives_sarif(sshd, capsys, tmp_path):
    hosts = [dead_spec(), dead_spec()]
    out_file = tmp_path / "fleet.sarif"
    code = main(["scan", *hosts, "--python", sys.executable, *ssh_args(sshd), "--format", "sarif",
                 "-o", str(out_file)])
    assert code == 3
    run = json.loads(out_file.read_text())["runs"][0]
    assert run["invocations"][0]["executionSuccessful"] is False
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert [n["properties"]["host"] for n in notes] == hosts
    assert all(n["level"] == "error" and "unreachable" in n["message"]["text"] for n in notes)


@pytest.mark.corpus
def test_unreachable_outranks_drift_and_sarif_keeps_both(sshd, host_venv, corpus_src, capsys):
    corpus_src("vllm==0.11.0")
    python = str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))
    dead = dead_spec()
    code = main(["scan", sshd.spec, dead, "--python", python, *ssh_args(sshd), "--format", "sarif"])
    out, err = capsys.readouterr()
    assert code == 3
    run = json.loads(out)["runs"][0]
    assert any(r["ruleId"] == "DRIFT020" for r in run["results"])  # the drifting host's findings
    assert {h["host"]: h["status"] for h in run["properties"]["hosts"]} == {sshd.spec: "drift", dead: "unreachable"}


def test_scan_help_says_it_caches_on_the_host():
    out = subprocess.run([sys.executable, "-m", "drift.cli", "scan", "--help"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout
    text = " ".join(out.split())
    assert "read-only" not in text
    assert "caches parsed facts on each host in ~/.cache/drift/probe" in text and "--no-host-cache" in text


@pytest.mark.corpus
def test_first_scan_says_where_it_wrote_on_the_host(sshd, host_venv, corpus_src, capsys, tmp_path, monkeypatch):
    corpus_src("vllm==0.11.0")
    real = Path(os.path.expanduser("~/.cache/drift"))
    root = tmp_path / "cache"
    root.mkdir()
    for shared in ("sources", "probe"):
        (root / shared).symlink_to(real / shared)
    monkeypatch.setenv("DRIFT_CACHE", str(root))
    python = str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))
    argv = ["scan", sshd.spec, "--python", python, *ssh_args(sshd), "--json"]
    assert main(argv) == 1
    first = capsys.readouterr().err
    assert f"the probe caches parsed facts and its compiled code on {sshd.spec} in {Path('~/.cache/drift/probe').expanduser()}" in first
    assert "--no-host-cache" in first
    assert main(argv) == 1
    assert "caches parsed facts" not in capsys.readouterr().err  # said once
    assert main([*argv, "--no-host-cache"]) == 1
    assert "caches parsed facts" not in capsys.readouterr().err
