"""The demand-driven host probe over a real sshd: the host parses only what the consumer reaches,
drift asks again over the same connection for what it left out, and the findings are the
whole-package scan's. Hostile replies of the new shape are one clear error (exit 2).
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from drift.cli import main
from tests.sshd_fixtures import crafted_reply, real_reply

pytestmark = [pytest.mark.ssh]


def _findings(scan) -> list:
    assert scan.outcome is not None and scan.outcome.report is not None, scan.reason
    return sorted((f.rule_id, f.consumer_site.path, f.consumer_site.line, f.title)
                  for f in scan.outcome.report.findings)


def _scan(sshd, monkeypatch, cache: Path, **settings):
    """One scan_connector over a fresh SSH connection, with drift's cache at `cache`."""
    from drift.remote.connectors.ssh import connect
    from drift.pipeline.scan import ScanSettings, scan_connector
    from drift.model.store import _store_at

    monkeypatch.setenv("DRIFT_CACHE", str(cache))
    _store_at.cache_clear()

    async def run():
        conn = await connect(sshd.spec, **sshd.connect_kwargs(connect_timeout=10))
        try:
            return await scan_connector(conn, host=sshd.spec, settings=ScanSettings(**settings))
        finally:
            await conn.close()

    return asyncio.run(run())


def _cache_with(tmp_path: Path, name: str, releases: dict[str, Path]) -> Path:
    root = tmp_path / name
    (root / "sources").mkdir(parents=True)
    for rel, src in releases.items():
        (root / "sources" / rel).symlink_to(src)
    return root


@pytest.mark.corpus
def test_speculators_demand_scan_equals_whole_package_scan(sshd, host_venv, corpus_src, tmp_path, monkeypatch):
    python = str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))
    base = corpus_src("vllm==0.11.0")
    common = dict(python=python, baseline="vllm==0.11.0")
    whole = _scan(sshd, monkeypatch, _cache_with(tmp_path, "w", {"vllm-0.11.0": base}),
                  host_cache_dir=str(tmp_path / "hw"), demand=False, **common)
    dc = _cache_with(tmp_path, "d", {"vllm-0.11.0": base})
    demand = _scan(sshd, monkeypatch, dc, host_cache_dir=str(tmp_path / "hd"), **common)
    assert _findings(demand) == _findings(whole)
    stats = demand.probe_stats
    assert stats["parsed_on_host"] < 1359 // 2, stats  # a fraction of vLLM's modules
    # warm: the host answers "unchanged" and what the second exchanges added was stored
    warm = _scan(sshd, monkeypatch, dc, host_cache_dir=str(tmp_path / "hd"), **common)
    assert _findings(warm) == _findings(whole)
    assert warm.probe_stats["exchanges"] == 1, warm.probe_stats


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _target(version: str, models: str) -> dict[str, str]:
    files = {
        "tgt/__init__.py": "",
        "tgt/base.py": """
            class Model:
                def forward(self, x):
                    return x
            """,
        f"tgt-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: tgt\nVersion: {version}\n",
        f"tgt-{version}.dist-info/top_level.txt": "tgt\n",
    }
    for i in range(30):  # a family of model classes the consumer never names
        files[f"tgt/models/m{i:02d}.py"] = "from tgt.base import Model\n\n" + textwrap.dedent(models % {"i": i})
    files["tgt/models/__init__.py"] = ""
    return files


@pytest.fixture()
def synthetic_host(tmp_path):
    """A host interpreter whose site holds tgt 2.0 and a consumer `app`; tgt 1.0 here.

    The consumer binds a function calling `self.embed_tokens()` onto models; every model of 1.0
    defines it and 2.0 renamed it: drift's family rule (DRIFT040) reads those models in the
    target, which the host's closure (built from the consumer alone) does not reach, so the
    check needs a second exchange."""
    base, site = tmp_path / "base", tmp_path / "site"
    _write(base, _target("1.0", """
        class M%(i)d(Model):
            def embed_tokens(self, ids):
                return ids
        """))
    _write(site, _target("2.0", """
        class M%(i)d(Model):
            def embed_input_ids(self, ids):
                return ids
        """))
    _write(site, {
        "app/__init__.py": "",
        "app/mine.py": """
            import types

            from tgt.base import Model


            def patched_forward(self, ids):
                return self.embed_tokens(ids)


            def install(model: Model):
                model.forward = types.MethodType(patched_forward, model)
            """,
        "app-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: app\nVersion: 0.1\nRequires-Dist: tgt==1.0\n",
        "app-0.1.dist-info/top_level.txt": "app\n",
    })
    return _host_python(tmp_path, site), base


def _host_python(tmp_path, site) -> str:
    """A "host interpreter": this Python with the synthetic site-packages on its path."""
    python = tmp_path / "hostpython"
    python.write_text(f"#!/bin/sh\nPYTHONPATH='{site}' exec '{sys.executable}' \"$@\"\n")
    python.chmod(0o755)
    return str(python)


def test_a_consumer_the_closure_misses_gets_a_second_exchange_and_the_same_findings(
        sshd, synthetic_host, tmp_path, monkeypatch):
    python, base = synthetic_host
    common = dict(python=python, consumer="app", target="tgt", baseline=str(base))
    whole = _scan(sshd, monkeypatch, tmp_path / "cw", host_cache_dir=str(tmp_path / "hw"), demand=False, **common)
    # ahead=False: nothing asked while the first probe runs (tests/test_scan_ahead.py asks ahead)
    demand = _scan(sshd, monkeypatch, tmp_path / "cd", host_cache_dir=str(tmp_path / "hd"), ahead=False, **common)
    assert _findings(demand) == _findings(whole)
    assert _findings(whole), "the case must have findings to compare"
    assert demand.probe_stats["exchanges"] >= 2, demand.probe_stats
    assert demand.probe_stats["fetched"] > 0


# -- hostile replies of the demand shape ----------------------------------------------------------

DEMAND_REQUEST = {"packages": ["vllm"], "env_packages": ["speculators", "torch", "vllm"], "cache_dir": None,
                  "known": {}, "usage": {"packages": ["speculators"], "prefixes": ["vllm"]},
                  "demand": {"words": ["block_hashes"]}}


@pytest.fixture(scope="module")
def honest_demand(host_venv):
    return real_reply(str(host_venv(("vllm==0.16.0", "speculators==0.3.0"))), DEMAND_REQUEST)


@pytest.fixture
def cache(tmp_path, monkeypatch, corpus_src):
    corpus_src("vllm==0.11.0")
    real = Path(os.path.expanduser("~/.cache/drift"))
    root = tmp_path / "drift-cache"
    root.mkdir()
    (root / "sources").symlink_to(real / "sources")
    monkeypatch.setenv("DRIFT_CACHE", str(root))
    return root


def _cli(capsys, server, python):
    code = main(["scan", server.spec, "--python", python, "-i", server.identity, "--known-hosts",
                 server.known_hosts, "-F", server.write_ssh_config(""), "--baseline", "vllm==0.11.0", "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.corpus
@pytest.mark.parametrize("name, says", [
    ("shape path escapes", "not a plain relative path"),
    ("shape names a parsed module", "is both parsed and not parsed"),
    ("shape digest not hex", "not a sha256 hex digest"),
    ("answer names an absent module", "names a module the package does not have"),
    ("shape not a dict", "demand.shape: expected dict"),
])
def test_a_malformed_demand_reply_is_a_clear_error(name, says, sshd, honest_demand, hostile_python, cache, capsys):
    doc = copy.deepcopy(honest_demand)
    demand = doc["packages"]["vllm"]["demand"]
    some = next(iter(demand["shape"]))
    if name == "shape path escapes":
        demand["shape"][some][0] = "../../etc/passwd"
    elif name == "shape names a parsed module":
        demand["shape"][next(iter(doc["packages"]["vllm"]["modules"]))] = demand["shape"][some]
    elif name == "shape digest not hex":
        demand["shape"][some][1] = "/tmp/x"
    elif name == "answer names an absent module":
        demand["answers"][next(iter(demand["answers"]))] = ["vllm.no_such_module"]
    elif name == "shape not a dict":
        demand["shape"] = list(demand["shape"])
    code, out, err = _cli(capsys, sshd, hostile_python.replying(crafted_reply(doc)))
    assert code == 2, err
    assert says in err, err
    assert out == ""


def _two_replies(folder: Path, first: bytes, second: bytes) -> str:
    """A stand-in python answering `second` to a script that asks `more` (a follow-up, or one
    asked ahead while the first probe runs), `first` to any other (the probe, the usage read
    ahead: which of those two execs comes first is not fixed)."""
    (folder / "r1.bin").write_bytes(first)
    (folder / "r2.bin").write_bytes(second)
    path = folder / "two-replies"
    path.write_text(f"#!/bin/sh\nif grep -q '\"more\": {{' ; then exec cat '{folder}/r2.bin'; fi\n"
                    f"exec cat '{folder}/r1.bin'\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.corpus
@pytest.mark.parametrize("name, says", [
    ("a module never left unparsed", "was not a module left unparsed"),
    ("another digest", "changed during the scan"),
    ("content hash differs", "content hash differs from the first reply"),
    ("not an answer", "reply.more: expected dict"),
    ("nothing of the batch", "does not answer exactly the patterns asked"),  # the batch left out
])
def test_a_malformed_second_exchange_fails_that_host(name, says, sshd, honest_demand, tmp_path, cache, capsys):
    pkg = honest_demand["packages"]["vllm"]
    shape = pkg["demand"]["shape"]
    parsed = next(iter(pkg["modules"]))
    unparsed = next(n for n in shape if shape[n][1])
    more = {"digest": pkg["digest"], "modules": {}, "answers": {}}
    if name == "a module never left unparsed":
        more["modules"][parsed] = pkg["modules"][parsed]
    elif name == "another digest":
        more["digest"] = "0" * 64
    elif name == "content hash differs":
        more["modules"][unparsed] = dict(pkg["modules"][parsed], path=shape[unparsed][0], sha256="1" * 64)
    doc = {"schema": 1, "more": {"vllm": more}, "missing": [], "probe": {}}
    if name == "not an answer":
        doc = {"schema": 1, "more": [], "missing": []}
    # every module unparsed on the "host": the check must ask, and whatever it asks gets this
    first = copy.deepcopy(honest_demand)
    code, out, err = _cli(capsys, sshd, _two_replies(tmp_path, crafted_reply(first), crafted_reply(doc)))
    assert code == 2, err
    assert says in err, err


# -- late searches: collected in one run of the rules, fetched in one exchange --------------------

ATTRS = [f"state_{i}" for i in range(8)]


@pytest.fixture()
def late_search_host(tmp_path):
    """tgt 1.0 here and 2.0 on the host, both with a BlockPool whose `__init__` sets eight
    attributes that other modules read as `block_pool.state_N`; the consumer subclasses it with
    its own `__init__` (DRIFT075 then searches the target for each read: a pattern made from the
    class and attribute names, which the host cannot predict from the consumer), and binds a
    function calling `self.embed_tokens()` onto models, which 2.0 renamed (a finding to compare)."""
    base, site = tmp_path / "base", tmp_path / "site"
    init = "".join(f"        self.{a} = {i}\n" for i, a in enumerate(ATTRS))
    for root, version, method in ((base, "1.0", "embed_tokens"), (site, "2.0", "embed_input_ids")):
        files = _target(version, f"""
            class M%(i)d(Model):
                def {method}(self, ids):
                    return ids
            """)
        files["tgt/pool.py"] = "class BlockPool:\n    def __init__(self, n):\n" + init
        for i, a in enumerate(ATTRS):
            files[f"tgt/users/u{i}.py"] = f"def use(block_pool):\n    return block_pool.{a}\n"
        files["tgt/users/__init__.py"] = ""
        _write(root, files)
    _write(site, {
        "app/__init__.py": "",
        "app/mine.py": """
            import types

            from tgt.base import Model
            from tgt.pool import BlockPool


            class MyPool(BlockPool):
                def __init__(self, n):
                    self.mine = n


            def patched_forward(self, ids):
                return self.embed_tokens(ids)


            def install(model: Model):
                model.forward = types.MethodType(patched_forward, model)
            """,
        "app-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: app\nVersion: 0.1\nRequires-Dist: tgt==1.0\n",
        "app-0.1.dist-info/top_level.txt": "app\n",
    })
    return _host_python(tmp_path, site), base


def test_late_searches_are_fetched_in_one_exchange_with_the_same_findings(
        sshd, late_search_host, tmp_path, monkeypatch):
    import drift.pipeline.scan as scan_mod

    python, base = late_search_host
    common = dict(python=python, consumer="app", target="tgt", baseline=str(base))
    whole = _scan(sshd, monkeypatch, tmp_path / "cw", host_cache_dir=str(tmp_path / "hw"), demand=False, **common)
    batched = _scan(sshd, monkeypatch, tmp_path / "cb", host_cache_dir=str(tmp_path / "hb"), **common)
    with monkeypatch.context() as m:  # the rules asking as they read: one exchange per miss
        m.setattr(scan_mod, "COLLECT_ROUNDS", 0)
        as_read = _scan(sshd, monkeypatch, tmp_path / "ca", host_cache_dir=str(tmp_path / "ha"), **common)
    assert _findings(whole), "the case must have findings to compare"
    assert _findings(batched) == _findings(whole) == _findings(as_read)
    assert as_read.probe_stats["asked_needles"] >= len(ATTRS), as_read.probe_stats
    assert as_read.probe_stats["exchanges"] > len(ATTRS), as_read.probe_stats
    assert batched.probe_stats["asked_needles"] >= len(ATTRS), batched.probe_stats
    assert batched.probe_stats["exchanges"] <= 3, batched.probe_stats
    # warm: everything the exchanges added was stored; the host is asked nothing again
    warm = _scan(sshd, monkeypatch, tmp_path / "cb", host_cache_dir=str(tmp_path / "hb"), **common)
    assert _findings(warm) == _findings(whole)
    assert warm.probe_stats["exchanges"] == 1, warm.probe_stats
    # the stored package served these uses in full: the warm check reads it exactly (and the
    # answers the store keeps), no collecting run
    assert warm.probe_stats["check_exact"] is True and warm.probe_stats["check_runs"] == 1, warm.probe_stats
    assert batched.probe_stats["check_exact"] is False


def test_a_consumer_reaching_most_of_the_target_is_checked_whole_in_one_run(sshd, tmp_path, monkeypatch):
    """Past probes.closure.WHOLE_SHARE the host sends the whole package for a demand request:
    drift checks it as the whole-package scan does (same findings, no follow-up, no collecting
    run), and a second scan finds it unchanged."""
    base, site = tmp_path / "base", tmp_path / "site"
    for root, version, sig in ((base, "1.0", "x, mode=None"), (site, "2.0", "x")):
        _write(root, {
            "tgt/__init__.py": "",
            "tgt/api.py": f"def run({sig}):\n    return x\n",
            "tgt/util.py": "def helper():\n    return 1\n",
            f"tgt-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: tgt\nVersion: {version}\n",
            f"tgt-{version}.dist-info/top_level.txt": "tgt\n",
        })
    _write(site, {
        "app/__init__.py": "",
        "app/use.py": "from tgt.api import run\nfrom tgt.util import helper\n\nrun(helper(), mode='fast')\n",
        "app-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: app\nVersion: 0.1\nRequires-Dist: tgt==1.0\n",
        "app-0.1.dist-info/top_level.txt": "app\n",
    })
    common = dict(python=_host_python(tmp_path, site), consumer="app", target="tgt", baseline=str(base))
    whole = _scan(sshd, monkeypatch, tmp_path / "cw", host_cache_dir=str(tmp_path / "hw"), demand=False, **common)
    demand = _scan(sshd, monkeypatch, tmp_path / "cd", host_cache_dir=str(tmp_path / "hd"), **common)
    assert _findings(whole) and _findings(demand) == _findings(whole)
    assert "check_runs" not in (demand.probe_stats or {})  # checked as a whole package: one run, no rounds
    again = _scan(sshd, monkeypatch, tmp_path / "cd", host_cache_dir=str(tmp_path / "hd"), **common)
    assert _findings(again) == _findings(whole)
