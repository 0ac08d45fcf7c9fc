"""drift scan over a real OpenSSH sshd, against a real venv holding vllm 0.16.0 + speculators 0.3.0."""

from __future__ import annotations

import json
import socket

import pytest

from drift.cli import main

pytestmark = [pytest.mark.ssh, pytest.mark.corpus]


@pytest.fixture(scope="module")
def host_python(host_venv):
    return str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))


def _ssh_args(sshd):
    return ["-i", sshd.identity, "--known-hosts", sshd.known_hosts, "-F", sshd.write_ssh_config("")]


def _scan(capsys, *argv):
    code = main(["scan", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_scan_reports_breaking_drift_on_host(sshd, host_python, capsys, corpus_src):
    corpus_src("vllm==0.11.0")
    code, out, err = _scan(capsys, sshd.spec, "--python", host_python, *_ssh_args(sshd), "--json")
    assert code == 1, err
    doc = json.loads(out)
    rules = {f["rule_id"] for f in doc["findings"] if f["severity"] == "breaking"}
    assert {"DRIFT020", "DRIFT030", "VLLM001", "DRIFT010", "DRIFT011", "DRIFT040"} <= rules
    assert doc["host"] == sshd.spec
    assert doc["target"]["version"] == "0.16.0"
    assert doc["baseline"]["version"] == "0.11.0"
    assert doc["env"]["python"]

    # a second scan of the unchanged host: the probe answers "unchanged", same verdict
    code2, out2, _ = _scan(capsys, sshd.spec, "--python", host_python, *_ssh_args(sshd), "--json")
    assert code2 == 1
    assert [f["key"] for f in json.loads(out2)["findings"]] == [f["key"] for f in doc["findings"]]


def test_unknown_host_key_is_refused_with_fingerprint(sshd, host_python, tmp_path, capsys):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    code, out, err = _scan(capsys, sshd.spec, "--python", host_python, "-i", sshd.identity,
                           "--known-hosts", str(empty), "-F", sshd.write_ssh_config(""))
    assert code == 3
    assert "SHA256:" in err and "Traceback" not in err


def test_missing_python_is_a_clear_input_error(sshd, capsys):
    code, out, err = _scan(capsys, sshd.spec, "--python", "/no/such/python3", *_ssh_args(sshd))
    assert code == 2
    assert "python" in err and "Traceback" not in err


def test_vllm_not_installed(sshd, host_venv, capsys):
    only_consumer = str(host_venv(("speculators==0.3.0",)))
    code, out, err = _scan(capsys, sshd.spec, "--python", only_consumer, *_ssh_args(sshd))
    assert code == 2
    assert "vllm is not installed" in err


def test_fleet_with_a_host_down(sshd, host_python, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead_port = s.getsockname()[1]
    dead = f"{sshd.user}@127.0.0.1:{dead_port}"
    code, out, err = _scan(capsys, sshd.spec, dead, "--python", host_python, *_ssh_args(sshd))
    assert code == 3  # unreachable wins over drift in the exit code
    assert "unreachable" in out and "drift" in out
