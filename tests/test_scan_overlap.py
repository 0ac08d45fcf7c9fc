"""drift scan loads a --baseline release while the host probes (drift/pipeline/scan.py), over a real sshd.

The baseline is opened in a thread as soon as the scan starts (tested through the local
connector, the very probe path a host takes), so its fetch and hashing overlap
the host's probe; the report must be the one the metadata path gives (speculators 0.3.0 pins
vllm 0.11.0), and the metadata path says why it cannot overlap anything.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

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


def _local_scan(host_python, baseline):
    from drift.remote.connectors.local import LocalConnector
    from drift.pipeline.scan import ScanSettings, scan_connector

    said: list[str] = []
    settings = ScanSettings(python=host_python, baseline=baseline, host_cache=False)
    scan = asyncio.run(scan_connector(LocalConnector(), host="local", settings=settings, say=said.append))
    return scan, said


def test_given_baseline_overlaps_the_probe_and_gives_the_same_report(host_python, corpus_src, tmp_path, monkeypatch):
    from drift.model.store import _store_at

    corpus_src("vllm==0.11.0")
    root = tmp_path / "drift-cache"  # a first scan of this host: drift has no record of it
    root.mkdir()
    (root / "sources").symlink_to(Path(os.path.expanduser("~/.cache/drift")) / "sources")
    monkeypatch.setenv("DRIFT_CACHE", str(root))
    _store_at.cache_clear()
    meta, said_meta = _local_scan(host_python, None)
    assert meta.outcome is not None and meta.outcome.report is not None, meta.reason
    # the pin in the consumer's metadata, read by a first small probe: fetched while the host probes
    assert any("read by a first small probe and fetched here meanwhile" in m for m in said_meta), said_meta
    assert meta.probe_stats["ahead_modules"] > 0, meta.probe_stats  # the family came ahead there too
    assert meta.outcome.report.baseline["source"] != "given with --baseline"

    given, said = _local_scan(host_python, "vllm==0.11.0")
    assert given.outcome is not None and given.outcome.report is not None, given.reason
    assert not any("not while the host probes" in m for m in said)
    assert any(m == "baseline vllm==0.11.0" for m in said), said  # said by the thread, not after the reply
    report = given.outcome.report
    assert report.baseline["version"] == "0.11.0" and report.baseline["source"] == "given with --baseline"
    key = lambda f: (f.rule_id, f.consumer_site.path, f.consumer_site.line, f.title)  # noqa: E731
    assert sorted(map(key, report.findings)) == sorted(map(key, meta.outcome.report.findings))
    assert len(report.breaking) >= 7


def test_a_bad_given_baseline_fails_the_host_cleanly(sshd, host_python, capsys):
    code, out, err = _scan(capsys, sshd, "--python", host_python, "--baseline", "vllm==0.0.0.0.1")
    assert code == 2, (out, err)
    assert "baseline" in (out + err) and "Traceback" not in err
