"""drift's key of a host package (drift/remote/probe.py, drift/remote/reply.py `wire_key`): a hash of
the reply's facts line as received. Two hosts with the same facts share it whatever the rest of
their replies says (a fleet of one vLLM keeps one stored copy); different facts never do; a
one-line reply (not the bundle's) is keyed by re-encoding its facts. Through the local
connector and stand-in interpreters that print a reply."""

from __future__ import annotations

import asyncio
import json
import zlib

from drift.remote.connectors.local import LocalConnector
from drift.probes.bundle import MAGIC
from drift.remote.probe import probe

PKG = {"name": "t", "dist": "t", "version": "1", "root": "/x", "digest": "d" * 64, "requires": [], "errors": [],
       "modules": {"t": {"path": "t/__init__.py", "sha256": "a" * 64, "is_package": True, "error": None,
                         "all": None, "imports": {}, "names": {}, "functions": {}, "classes": {}}}}


def _stand_in(tmp_path, name: str, reply: bytes) -> str:
    (tmp_path / f"{name}.bin").write_bytes(reply)
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\ncat >/dev/null\nexec cat '{tmp_path}/{name}.bin'\n")
    path.chmod(0o755)
    return str(path)


def _key(python: str) -> str:
    res = asyncio.run(probe(LocalConnector(), {"packages": ["t"]}, python=python, validate=lambda d, r: None))
    assert res.ok, res.reason
    return res.facts["packages"]["t"]["digest"]


def _two_lines(head: dict, body: dict) -> bytes:
    return MAGIC + zlib.compress(json.dumps(head).encode() + b"\n" + json.dumps(body).encode())


def test_equal_facts_share_a_key_and_different_facts_never_do(tmp_path):
    body = {"packages": {"t": PKG}}
    a = _key(_stand_in(tmp_path, "a", _two_lines({"schema": 1, "probe": {"elapsed_s": 1.5}, "missing": []}, body)))
    b = _key(_stand_in(tmp_path, "b", _two_lines({"schema": 1, "probe": {"elapsed_s": 9.0}, "missing": []}, body)))
    other = json.loads(json.dumps(body))
    other["packages"]["t"]["modules"]["t"]["classes"] = {"C": {"name": "C", "line": 1, "bases": [], "methods": {}}}
    c = _key(_stand_in(tmp_path, "c", _two_lines({"schema": 1, "missing": []}, other)))
    one = _key(_stand_in(tmp_path, "d", MAGIC + zlib.compress(json.dumps({"schema": 1, "missing": [], **body}).encode())))
    assert a == b  # another host's timing, same facts: one stored copy
    assert len({a, c, one}) == 3 and all(k != PKG["digest"] for k in (a, c, one))  # never the host's claim


def test_a_facts_line_that_is_not_facts_is_refused(tmp_path):
    bad = _two_lines({"schema": 1, "missing": []}, {"packages": {"t": PKG}, "env": {}})
    res = asyncio.run(probe(LocalConnector(), {"packages": ["t"]}, python=_stand_in(tmp_path, "e", bad),
                            validate=lambda d, r: None))
    assert not res.ok and "facts line" in res.reason, res.reason
