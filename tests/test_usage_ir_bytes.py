"""The consumer's IR kept as bytes in the usage cache (probes/consumer_scan.py `_stored_ir`).

Only the solver reads the IR, and a warm check reads its solution back, so drift's own check gets
each module's IR as the cache's marshal bytes and decodes it only to solve. What must hold: the
IR decoded from those bytes is the IR the probe extracted; a host (which answers in JSON) still
gets dicts, record for record as before; a cache written before this layout is read and rewritten
once; and the branch guards are read without decoding, so a binding written only for another
version is still left out of the solution."""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path

from drift.consumer.guards import live_on
from drift.consumer.solved import solved_model
from drift.probes.consumer_scan import _MARKS, consumer_usage, ir_of

APP = {
    "app/__init__.py": "",
    "app/util.py": (
        "import lib\nfrom packaging.version import Version\n\n"
        "def version_is(v):\n    return Version(lib.__version__) == Version(v)\n"
    ),
    "app/patch.py": (
        "from lib.core import Engine\nfrom app.util import version_is\n\n"
        "class Helper:\n"
        "    def __init__(self, engine: Engine):\n"
        "        self.engine = engine\n\n"
        "def _step(self, n):\n"
        "    return self.engine.run(n)\n\n"
        "if version_is('1.0'):\n"
        "    Engine.step = _step\n"
    ),
    "app/use.py": "from lib.core import Engine\n\ndef go(e: Engine):\n    return e.run(steps=2)\n",
}


def _site(root: Path) -> Path:
    for rel, text in APP.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _read(root: Path, cache: Path | None, as_bytes: bool) -> list[dict]:
    return consumer_usage(str(root), "app", ["lib"], use_importlib=False, cache_dir=str(cache) if cache else None,
                          ir_as_bytes=as_bytes)["modules"]


def test_drift_gets_bytes_that_decode_to_the_probes_ir(tmp_path):
    root = _site(tmp_path / "site")
    plain = _read(root, None, False)  # no cache: the probe's records as extracted
    assert all(type(m["ir"]) is dict and m["ir"] for m in plain)
    for run in range(2):  # read fresh (and saved), then served from the cache
        got = _read(root, tmp_path / "cache", True)
        assert [m["path"] for m in got] == [m["path"] for m in plain]
        assert all(type(m["ir"]) is bytes for m in got), run
        assert [ir_of(m) for m in got] == [m["ir"] for m in plain]
        assert [{k: v for k, v in m.items() if k not in ("ir", "ir_guards", "ir_handed")} for m in got] == \
               [{k: v for k, v in m.items() if k != "ir"} for m in plain]


def test_a_host_still_gets_the_records_as_extracted(tmp_path):
    root = _site(tmp_path / "site")
    plain = _read(root, None, False)
    _read(root, tmp_path / "cache", True)  # the cache now keeps bytes
    assert _read(root, tmp_path / "cache", False) == plain


def test_a_cache_of_an_old_layout_is_read_again_and_rewritten_once(tmp_path):
    """Entries written before the IR was kept as bytes, or before each was keyed by its file's
    content (size and mtime only), are never trusted: the files are read again and the cache is
    rewritten in the current layout, with each file's sha256."""
    root = _site(tmp_path / "site")
    plain = _read(root, None, False)
    _read(root, tmp_path / "cache", True)
    (path,) = (tmp_path / "cache").glob("usage-*.marshal")
    stored = marshal.loads(path.read_bytes())
    files = {rel: entry for rel, entry in stored.items() if rel != _MARKS}  # the marks entry is no file's
    old = {rel: (size, mtime, dict({k: v for k, v in facts.items() if k not in ("ir_guards", "ir_handed")}, ir=ir_of(facts))
                 if facts else facts, links) for rel, (size, mtime, facts, links, *_key) in files.items()}
    path.write_bytes(marshal.dumps(old))  # as a drift from before these layouts wrote it
    got = _read(root, tmp_path / "cache", True)
    assert [ir_of(m) for m in got] == [m["ir"] for m in plain]
    rewritten = marshal.loads(path.read_bytes())
    for rel, entry in rewritten.items():
        if rel == _MARKS:
            continue
        assert len(entry) == 7 and entry[4] == hashlib.sha256((root / rel).read_bytes()).digest()
        assert not entry[2] or type(entry[2]["ir"]) is bytes
    assert {rel: e[:4] for rel, e in rewritten.items() if rel != _MARKS} == \
        {rel: e[:4] for rel, e in stored.items() if rel != _MARKS}


def test_a_binding_for_another_version_is_not_solved_from_bytes(tmp_path):
    root = _site(tmp_path / "site")
    got = _read(root, tmp_path / "cache", True)
    patch = next(m for m in got if m["path"] == "app/patch.py")
    assert patch.get("ir_guards"), "the guarded binding's lines are kept beside the bytes"
    live, _dropped = live_on(got, "2.0")  # version_is('1.0') is false: `Engine.step = _step` never runs
    live_patch = next(m for m in live if m["path"] == "app/patch.py")
    assert type(live_patch["ir"]) is dict  # decoded, its dead edges dropped
    same, _ = live_on(got, "1.0")
    assert next(m for m in same if m["path"] == "app/patch.py")["ir"] is patch["ir"]  # nothing dead: kept as bytes
    plain = _read(root, None, False)
    for version in ("1.0", "2.0"):
        a = solved_model(live_on(got, version)[0], ("lib",), cache_dir=tmp_path / f"solved-a-{version}")
        b = solved_model(live_on(plain, version)[0], ("lib",), cache_dir=tmp_path / f"solved-b-{version}")
        assert a == b
    # the solution differs between the versions only through that binding
    assert solved_model(live_on(got, "1.0")[0], ("lib",), cache_dir=tmp_path / "s1") != \
        solved_model(live_on(got, "2.0")[0], ("lib",), cache_dir=tmp_path / "s2")
