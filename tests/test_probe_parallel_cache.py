"""Forked parse workers and the chunked facts cache give exactly the facts of a serial, uncached run."""

from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path

import pytest

from drift.probes.collect import collect_package, gc_paused
from drift.probes.main import collect_tree

SYNTH = Path(__file__).parent / "synth"


def _module_source(i: int) -> str:
    return (
        "import os\n"
        "from .m%d import helper as h\n\n"
        "LIMIT = %d\n\n\n"
        "class Thing%d:\n"
        "    def __init__(self, size: int = %d, *, name=None):\n"
        "        self.size = size\n"
        "        self.name = None\n\n"
        "    def run(self, request):\n"
        "        assert request.tokens is not None\n"
        "        if self.size > LIMIT:\n"
        "            raise ValueError(f\"too big: {self.size}\")\n"
        "        return Config(block_size=self.size, name=self.name)\n"
    ) % ((i + 1) % 40, i, i, i)


@pytest.fixture
def many(tmp_path) -> Path:
    """40 modules (over the parallel threshold), one with a syntax error, plus the synth package."""
    root = tmp_path / "site"
    shutil.copytree(SYNTH / "v1", root)
    pkg = root / "widgetlib" / "many"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for i in range(40):
        (pkg / ("m%d.py" % i)).write_text(_module_source(i) * (1 + i % 5))
    (pkg / "broken.py").write_text("def f(:\n")
    return root


def _facts(doc):
    return json.dumps(doc["packages"]["widgetlib"]["modules"])


def test_default_workers_equal_serial(many):
    serial = collect_package(many, "widgetlib", cache_dir=None, workers=1)
    parallel = collect_package(many, "widgetlib", cache_dir=None)
    assert json.dumps(parallel) == json.dumps(serial)
    assert parallel["modules"]["widgetlib.many.broken"]["error"].startswith("SyntaxError")


def test_cache_from_worker_replies_survives_partial_changes(many, tmp_path):
    cache = str(tmp_path / "cache")
    fresh = collect_tree(many, ["widgetlib"], cache_dir=None, workers=1)
    cold = collect_tree(many, ["widgetlib"], cache_dir=cache, workers=2)
    assert _facts(cold) == _facts(fresh)
    warm = collect_tree(many, ["widgetlib"], cache_dir=cache, workers=2)
    assert warm["probe"]["parsed"] == 0 and _facts(warm) == _facts(fresh)

    changed = many / "widgetlib" / "many" / "m7.py"
    changed.write_text(changed.read_text() + "\n\ndef added(x):\n    return x\n")
    (many / "widgetlib" / "many" / "m3.py").unlink()
    fresh = collect_tree(many, ["widgetlib"], cache_dir=None, workers=1)
    partial = collect_tree(many, ["widgetlib"], cache_dir=cache, workers=2)
    assert partial["probe"]["parsed"] == 1
    assert _facts(partial) == _facts(fresh)
    assert "added" in partial["packages"]["widgetlib"]["modules"]["widgetlib.many.m7"]["functions"]
    again = collect_tree(many, ["widgetlib"], cache_dir=cache, workers=2)
    assert again["probe"]["parsed"] == 0 and _facts(again) == _facts(fresh)


def test_gc_state_and_callers_frozen_objects_are_left_alone(many):
    assert gc.isenabled()
    collect_package(many, "widgetlib", cache_dir=None)
    assert gc.isenabled()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        collect_package(many, "widgetlib", cache_dir=None)
        assert gc.get_freeze_count() == frozen and gc.isenabled()
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        collect_package(many, "widgetlib", cache_dir=None)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_gc_paused_restores_the_collector_and_promotes_what_was_made():
    """drift decodes a host's reply and parses modules inside `gc_paused`: no collection runs
    within, the collector is on again after (off stays off), and what was made is in the
    oldest generation, so the first allocation after does not traverse it."""
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        made = [{"k": [i]} for i in range(1000)]
    assert gc.isenabled()
    young = {id(o) for o in gc.get_objects(generation=0)}
    assert not any(id(x) in young for x in made)
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_hosts_reply_is_decoded_with_the_collector_paused(monkeypatch):
    import asyncio

    from drift.remote import probe as remote_probe
    from drift.remote.connectors.base import RunResult

    seen = []
    real = remote_probe.bundle.decode_reply

    def spy(data, **kw):
        seen.append(gc.isenabled())
        return real(data, **kw)

    async def fake_run(connector, python, script, **kw):
        import json
        import zlib
        doc = {"schema": 1, "probe": {}, "env": {}, "missing": []}
        return RunResult(0, remote_probe.bundle.MAGIC + zlib.compress(
            json.dumps(doc).encode() + b"\n" + json.dumps({"packages": {}}).encode()), b"")

    monkeypatch.setattr(remote_probe.bundle, "decode_reply", spy)
    monkeypatch.setattr(remote_probe, "run_script", fake_run)
    res = asyncio.run(remote_probe.probe(object(), {"packages": [], "env_packages": []}))
    assert res.ok, res.reason
    assert seen == [False] and gc.isenabled()
