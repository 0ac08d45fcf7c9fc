"""The head start of a cold demand scan never holds it back (drift/pipeline/scan.py `_ahead`, drift/pipeline/lowprio.py):
the family asked ahead is computed before the baseline warm-up, the warm-up runs in a forked child
of low priority, and a reply (a whole package at once; a demand one once the family is in) stops
it at its next read (`drift.model.demand.stoppable`). The two probes a cold scan starts at once read
the consumer's usage once between them (a lock on the host's usage cache)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time

import pytest

from drift.pipeline import lowprio
from drift.model.demand import Stopped, package_facts, stoppable
from drift.model.index import word
from tests.test_scan_demand import _findings, _host_python, _scan, _target, _write


def test_a_stopped_reader_raises_at_its_next_read_and_others_read_on(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "class A:\n    def run(self):\n        return 1\n"})
    modules = package_facts(str(tmp_path), "pkg", cache=None)["modules"]
    stop = threading.Event()
    with stoppable(stop):
        assert modules.mentioning(word("run")) == ["pkg.a"]
        stop.set()
        for read in (lambda: modules["pkg"], lambda: modules.outline("pkg.a"), lambda: modules.mentioning(word("A"))):
            with pytest.raises(Stopped):
                read()
    assert modules["pkg.a"]["classes"]["A"]["name"] == "A"  # outside the block (another thread, the check): reads
    assert not issubclass(Stopped, Exception)  # the rule engine's per-rule `except Exception` lets it through


def test_a_child_computes_at_low_priority_and_a_stop_ends_it():
    def report(_stop):
        with open("/proc/self/autogroup") as fh:
            group = fh.read()
        return [os.getpriority(os.PRIO_PROCESS, 0), group, os.getsid(0) == os.getpid()]

    ok, (nice, group, leader) = lowprio.run_in_child(report, stop=threading.Event(), nice=7)
    assert ok and nice >= 7 and leader
    assert "nice 7" in group

    stop = threading.Event()

    def forever(child_stop):
        with stoppable(child_stop):
            while True:  # a warm-up reading modules until told to stop
                if child_stop.is_set():
                    raise Stopped()
                time.sleep(0.01)

    threading.Timer(0.3, stop.set).start()
    t0 = time.monotonic()
    assert lowprio.run_in_child(forever, stop=stop) == (False, None)
    assert time.monotonic() - t0 < lowprio.STOP_GRACE + 5  # ended by SIGTERM, not by the grace's SIGKILL


def test_a_child_whose_parent_is_gone_stops():
    gone = lowprio._ChildStop(parent=os.getppid() + 10 ** 6)  # no such parent: as after drift is killed
    assert gone.is_set()
    mine = lowprio._ChildStop(parent=os.getppid())
    assert not mine.is_set()
    mine.set()
    assert mine.is_set()


def test_the_two_probes_read_the_consumers_usage_once(tmp_path, monkeypatch):
    """The second probe to ask waits on the lock and reads what the first saved."""
    from drift.probes import consumer_scan

    _write(tmp_path / "site", {"app/__init__.py": "", "app/mine.py": "from tgt.base import Model\n"})
    cache = tmp_path / "cache"
    path = consumer_scan._cache_file(str(cache), str(tmp_path / "site"), "app", ["tgt"])
    held = consumer_scan._lock(path)  # the first probe, reading
    assert held is not None
    reads, out = [], {}
    real = consumer_scan._read_all
    monkeypatch.setattr(consumer_scan, "_read_all", lambda jobs, *a, **k: reads.append(sorted(jobs)) or real(jobs, *a, **k))

    def second():
        out["usage"] = consumer_scan.consumer_usage(str(tmp_path / "site"), "app", ["tgt"], use_importlib=False,
                                                    cache_dir=str(cache))

    waiter = threading.Thread(target=second)
    waiter.start()
    time.sleep(0.3)
    assert waiter.is_alive() and "usage" not in out  # waiting for the lock
    got = consumer_scan._consumer_usage(str(tmp_path / "site"), "app", ["tgt"], False, 5_000_000, path)
    os.close(held)  # the first is done: its cache is saved
    waiter.join(30)
    assert out["usage"]["modules"] == got["modules"]
    assert reads == [["app/mine.py"], []]  # the second read nothing itself


def test_a_probe_asked_to_be_nice_lowers_its_sessions_weight(tmp_path):
    code = ("import json, sys; sys.path.insert(0, %r)\n"
            "from drift.probes.main import run\n"
            "run({'packages': [], 'env_packages': [], 'cache_dir': None, 'known': {}, 'nice': 5})\n"
            "print(open('/proc/self/autogroup').read())\n") % os.path.dirname(os.path.dirname(__file__))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         start_new_session=True)  # a session of its own, as an SSH channel is
    assert out.returncode == 0, out.stderr
    assert "nice 5" in out.stdout


@pytest.mark.ssh
def test_a_whole_reply_stops_the_warm_up_and_gives_the_whole_findings(sshd, tmp_path, monkeypatch):  # noqa: F811
    """A consumer reaching most of the target gets it whole; a warm-up still running then (a
    whole check's worth for vllm-omni) is stopped, and the scan does not wait for it."""
    import drift.pipeline.scan as scan_mod

    base, site = tmp_path / "base", tmp_path / "site"
    models = "class M%(i)d(Model):\n    def embed_tokens(self, ids):\n        return ids\n"
    _write(base, _target("1.0", models))
    _write(site, _target("2.0", models.replace("embed_tokens", "embed_input_ids")))
    _write(site, {"app/__init__.py": "",
                  "app/mine.py": "".join(f"from tgt.models.m{i:02d} import M{i}\n" for i in range(30))
                  + "\n\ndef build():\n    return M0().embed_tokens([1])\n",
                  "app-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: app\nVersion: 0.1\n",
                  "app-0.1.dist-info/top_level.txt": "app\n"})
    python = _host_python(tmp_path, site)
    marks = tmp_path / "marks"
    marks.mkdir()

    def slow_warm_up(host, settings, use, baseline, stop=None):  # runs in the forked child
        (marks / "started").write_text("")
        modules = baseline.facts["packages"]["tgt"]["modules"]
        try:
            with stoppable(stop):
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    modules.mentioning(word("Model"))  # a read of the baseline: stopped here
                    time.sleep(0.01)
        finally:
            (marks / "ended").write_text("")
        return True

    common = dict(python=python, consumer="app", target="tgt", baseline=str(base))
    whole = _scan(sshd, monkeypatch, tmp_path / "cw", host_cache_dir=str(tmp_path / "hw"), demand=False, **common)
    monkeypatch.setattr(scan_mod, "_warm_baseline", slow_warm_up)
    real_probe = scan_mod.probe

    async def first_probe_after_the_warm_up_starts(connector, request, **kw):  # no race with a tiny host
        if request.get("packages") and "demand" in request:
            for _ in range(3000):
                if (marks / "started").exists():
                    break
                await asyncio.sleep(0.01)
        return await real_probe(connector, request, **kw)

    monkeypatch.setattr(scan_mod, "probe", first_probe_after_the_warm_up_starts)
    t0 = time.monotonic()
    demand = _scan(sshd, monkeypatch, tmp_path / "cd", host_cache_dir=str(tmp_path / "hd"), **common)
    took = time.monotonic() - t0
    assert _findings(whole) and _findings(demand) == _findings(whole)
    assert "exchanges" not in (demand.probe_stats or {})  # the whole package: no demand block
    assert (marks / "started").exists() and (marks / "ended").exists()
    assert took < 60, took  # not the warm-up's two minutes


def test_a_stopped_warm_up_waiting_for_another_hosts_does_not_wait_on(monkeypatch):
    """Hosts of a fleet warm the shared baseline one at a time; a host whose reply came while
    it waited for another's warm-up gives up waiting at once."""
    import drift.pipeline.scan as scan_mod

    ran = []
    monkeypatch.setattr(scan_mod, "run_in_child", lambda *a, **k: ran.append(1))
    stop = threading.Event()
    scan_mod._WARMING.acquire()  # another host's warm-up, running
    try:
        waiter = threading.Thread(target=scan_mod._warm_baseline_low, args=("h", None, {}, None, stop))
        waiter.start()
        time.sleep(0.2)
        assert waiter.is_alive()
        stop.set()
        waiter.join(5)
        assert not waiter.is_alive() and ran == []
    finally:
        scan_mod._WARMING.release()
    free = threading.Event()
    scan_mod._warm_baseline_low("h", None, {}, None, free)  # the lock free: the warm-up runs
    assert ran == [1] and scan_mod._WARMING.acquire(blocking=False)
    scan_mod._WARMING.release()


def test_a_lock_never_had_reads_unlocked(tmp_path):
    """A lock another reader holds past the wait (a network filesystem's hung lock) is given
    up: the read goes on unlocked rather than waiting for ever."""
    from drift.probes import consumer_scan

    path = str(tmp_path / "usage-x.marshal")
    held = consumer_scan._lock(path)
    t0 = time.monotonic()
    assert consumer_scan._lock(path, wait=0.2) is None
    assert 0.2 <= time.monotonic() - t0 < 5
    os.close(held)
    again = consumer_scan._lock(path, wait=0.2)
    assert again is not None
    os.close(again)
