"""The facts store keeps a package's module blobs on disk until a module is read
(drift/model/store.py, the `.lfacts` layout): what is read back is what was put, module by
module; a store of the earlier layout (`.facts`, one marshal of every blob) is still read and
rewritten once; a file cut short is read as absent, never as fewer modules. Real files in a
temporary store, read back by a second store object (a later process reads as it does)."""

from __future__ import annotations

import marshal

from drift.model.store import FactsStore, LazyModules

DIGEST = "ab" * 32
MODULES = {
    "gizmo": {"path": "gizmo/__init__.py", "classes": {}, "functions": {}},
    "gizmo.core": {"path": "gizmo/core.py", "functions": {"make": {"params": [{"name": "a"}], "line": 3}},
                   "classes": {"Widget": {"bases": ["object"], "methods": {"spin": {"line": 9}}}}},
    "gizmo.empty": {},
}
PKG = {"name": "gizmo", "version": "1.0", "digest": DIGEST, "modules": MODULES}


def _files(root, suffix):
    return sorted(p.name for p in root.iterdir() if p.name.endswith(suffix))


def test_what_is_put_is_read_back_module_by_module(tmp_path):
    FactsStore(tmp_path).put("gizmo", dict(PKG))
    assert _files(tmp_path, ".lfacts") and not _files(tmp_path, ".facts")
    got = FactsStore(tmp_path).get("gizmo", DIGEST)
    modules = got.pop("modules")
    assert got == {k: v for k, v in PKG.items() if k != "modules"}
    assert isinstance(modules, LazyModules) and list(modules) == list(MODULES) and len(modules) == 3
    assert "gizmo.core" in modules and "gizmo.nope" not in modules
    assert modules._done == {}  # nothing decoded until asked
    assert modules["gizmo.core"] == MODULES["gizmo.core"]
    assert list(modules._done) == ["gizmo.core"]
    assert {name: modules[name] for name in modules} == MODULES


def test_a_store_of_the_earlier_layout_is_read_and_rewritten_once(tmp_path):
    meta = {k: v for k, v in PKG.items() if k != "modules"}
    blobs = {name: marshal.dumps(mod) for name, mod in MODULES.items()}
    old = tmp_path / FactsStore(tmp_path)._path("gizmo", DIGEST, "facts").name
    old.write_bytes(marshal.dumps({"meta": meta, "modules": blobs}))  # as drift before this layout wrote it
    store = FactsStore(tmp_path)
    assert store.has("gizmo", DIGEST)
    got = store.get("gizmo", DIGEST)
    assert {name: got["modules"][name] for name in got["modules"]} == MODULES
    assert _files(tmp_path, ".lfacts")
    old.unlink()  # the rewritten file alone serves the next reader
    again = FactsStore(tmp_path).get("gizmo", DIGEST)
    assert {name: again["modules"][name] for name in again["modules"]} == MODULES
    assert again["version"] == "1.0"


def test_a_file_cut_short_is_absent(tmp_path):
    FactsStore(tmp_path).put("gizmo", dict(PKG))
    (path,) = tmp_path.glob("*.lfacts")
    data = path.read_bytes()
    path.write_bytes(data[:-5])
    assert FactsStore(tmp_path).get("gizmo", DIGEST) is None
    path.write_bytes(b"not a facts file at all")
    assert FactsStore(tmp_path).get("gizmo", DIGEST) is None
