"""drift scan loads a --baseline release while the host probes (drift/scan.py), over a real sshd.

The baseline is opened in a thread as soon as the scan starts, so its fetch and hashing overlap
the host's probe; the report must be the one the metadata path gives (speculators 0.3.0 pins
vllm 0.11.0), and the metadata path says why it cannot overlap anything.
"""

from __future__ import annotations

import json

import pytest

from drift.cli import main

pytestmark = [pytest.mark.ssh, pytest.mark.corpus]


@pytest.fixture(scope="module")
def host_python(host_venv):
    return str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))


def _scan(capsys, sshd, *argv):
    code = main(["scan", sshd.spec, "-i", sshd.identity, "--known-hosts", sshd.known_hosts,
                 "-F", sshd.write_ssh_config(""), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_given_baseline_overlaps_the_probe_and_gives_the_same_report(sshd, host_python, capsys, corpus_src):
    corpus_src("vllm==0.11.0")
    code, out, err = _scan(capsys, sshd, "--python", host_python, "--json", "-v")
    assert code == 1, err
    assert "read after the reply, not while the host probes" in err
    from_metadata = json.loads(out)

    code2, out2, err2 = _scan(capsys, sshd, "--python", host_python, "--json", "-v", "--baseline", "vllm==0.11.0")
    assert code2 == 1, err2
    given = json.loads(out2)
    assert "not while the host probes" not in err2
    lines = err2.splitlines()
    # the baseline was being read before the probe's verdict came back
    assert any("baseline vllm==0.11.0" in ln for ln in lines), err2
    assert given["baseline"]["version"] == "0.11.0" and given["baseline"]["source"] == "given with --baseline"
    assert [f["key"] for f in given["findings"]] == [f["key"] for f in from_metadata["findings"]]


def test_a_bad_given_baseline_fails_the_host_cleanly(sshd, host_python, capsys):
    code, out, err = _scan(capsys, sshd, "--python", host_python, "--baseline", "vllm==0.0.0.0.1")
    assert code == 2, (out, err)
    assert "baseline" in (out + err) and "Traceback" not in err
