"""The `python -` payload (drift/remote/connectors/script.py) with the script as its own literal or as
base64, run by a real interpreter through the local connector: same output either way; the
probe bundle travels compressed (CPython reads a stdin script one byte per read(2))."""

from __future__ import annotations

import asyncio
import sys

from drift.remote.connectors.local import LocalConnector
from drift.remote.connectors.script import build_payload, run_script
from drift.probes import bundle


def _run(code: str, stdin: bytes = b"") -> bytes:
    result = asyncio.run(run_script(LocalConnector(), sys.executable, code, args=["a b", "'c'"], stdin=stdin))
    assert result.exit_status == 0, result.stderr
    return result.stdout


def test_plain_and_non_ascii_scripts_run_the_same():
    body = "import sys\nsys.stdout.write(repr((sys.argv[1:], sys.stdin.read(), %s)))\n"
    plain = _run(body % "'quote \\' and \\\\ backslash'", b"in")
    assert plain == repr((["a b", "'c'"], "in", "quote ' and \\ backslash")).encode()
    odd = _run(body % "'caf\u00e9 \\t tab'", "\u00fcber".encode())  # not plain ASCII: sent as base64
    assert odd.decode() == repr((["a b", "'c'"], "\u00fcber", "caf\u00e9 \t tab"))
    assert b"_CODE = 'print(1)\\n'\n" in build_payload("print(1)\n")  # its own literal: nothing added
    assert b"_CODE = base64.b64decode(" in build_payload("print('\u00e9')\n")


def test_the_probe_bundle_is_sent_compressed():
    script = bundle.build_script({"packages": ["x"], "cache_dir": None})
    sources = sum(len(s) for s in bundle.probe_sources().values())
    assert len(build_payload(script)) < sources * 0.5, (len(build_payload(script)), sources)
