"""A range fetch keeps a release's sources in one pack (drift/sources/pack.py); demand-driven
facts read it as they read the extracted tree, and the tree is written from it when asked.

Everything is compared with the tree the same wheel extracts to: the modules listed, their
hashes, the package digest (which keys stored facts), the facts of a module, the metadata.
"""

from __future__ import annotations

import filecmp
import os
from pathlib import Path

import pytest

from drift.model.demand import has_package, package_facts
from drift.sources.cache import COMPLETE_MARKER, RANGE
from drift.sources.fetch import fetch_sources
from drift.sources.wheels import extract_wheel, top_level_packages
from drift.probes.locate import walk_tree
from drift.sources.pack import Pack, materialize, pack_path, write_pack
from drift.model.targets import load_facts
from tests.fetch_fixtures import IndexServer, build_wheel, isolated_pip, running


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _same_facts(a: dict, b: dict) -> None:
    assert (a["digest"], a["dist"], a["version"], a["requires"], a["errors"]) == \
        (b["digest"], b["dist"], b["version"], b["requires"], b["errors"])
    assert list(a["modules"]) == list(b["modules"])
    for name in a["modules"]:
        assert a["modules"][name] == b["modules"][name], name


def test_range_fetch_writes_one_pack_that_reads_as_the_tree(tmp_path, monkeypatch) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = build_wheel(dist)
    whole = extract_wheel(wheel, tmp_path / "whole")
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache", tree=False)
    assert src.how == RANGE
    # only the metadata as files; the modules in the pack beside the release
    assert _files(src.root) == sorted([COMPLETE_MARKER] + [f for f in _files(whole) if ".dist-info/" in f])
    pack = Pack.open(pack_path(src.root))
    assert pack is not None and {"demo_pkg/core.py", "demo_pkg/sub/deep.py"} <= set(pack.index)
    assert pack.read("demo_pkg/core.py") == (whole / "demo_pkg/core.py").read_bytes()
    assert top_level_packages(src.root, "demo-pkg") == ["demo_pkg"] and has_package(src.root, "demo_pkg")

    _same_facts(package_facts(str(src.root), "demo_pkg", cache=None), package_facts(str(whole), "demo_pkg", cache=None))

    # a reader that wants files gets the tree, written from the pack once; the pack is gone
    again = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
    assert again.root == src.root and not pack_path(src.root).exists()
    assert _files(src.root) == _files(whole)
    assert filecmp.cmpfiles(src.root, whole, _files(whole), shallow=False)[1:] == ([], [])
    assert not materialize(src.root)  # nothing left to write out


def test_demand_check_reads_the_pack_and_finds_the_same(tmp_path, monkeypatch) -> None:
    """load_facts(demand=True) of a PyPI spec leaves the tree unwritten and gives the facts of
    the extracted wheel; demand=False (the whole-package probe) writes the tree first."""
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = build_wheel(dist)
    whole = extract_wheel(wheel, tmp_path / "whole")
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        res = load_facts("demo-pkg==1.0", demand=True)
        assert res.ok, res.error
        root = tmp_path / "cache" / "sources" / "demo-pkg-1.0"
        assert pack_path(root).is_file() and not (root / "demo_pkg").exists()
        _same_facts(res.facts["packages"]["demo_pkg"], package_facts(str(whole), "demo_pkg", cache=None))
        full = load_facts("demo-pkg==1.0", demand=False)
        assert full.ok, full.error
        assert (root / "demo_pkg" / "core.py").is_file() and not pack_path(root).exists()
        assert full.facts["packages"]["demo_pkg"]["digest"] == res.facts["packages"]["demo_pkg"]["digest"]


def _pack_tree(root: Path, dest: Path) -> Path:
    """The files under `root` as a pack for a release directory `dest` (made empty)."""
    dest.mkdir(parents=True)
    members = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        members.append((str(path.relative_to(root)), path.read_bytes()))
    write_pack(pack_path(dest), members)
    return dest


def test_pack_lists_the_modules_walk_tree_lists(tmp_path) -> None:
    tree = tmp_path / "tree"
    for rel in ["pkg/__init__.py", "pkg/a.py", "pkg/sub/b.py", "pkg/__pycache__/c.py", "pkg/.hidden/d.py",
                "pkg/.e.py", "pkg/data.txt", "pkg/x.py/y.py", "single.py"]:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(f"# {rel}\n")
    pack = Pack.open(pack_path(_pack_tree(tree, tmp_path / "rel")))
    for package in ("pkg", "single"):
        entries, errors = walk_tree(str(tree), package)
        assert errors == []
        assert [(rel, size) for rel, _path, size, _mtime, _err in entries] == \
            [(rel, size) for rel, size, _sha in pack.entries(package)]


@pytest.mark.corpus
def test_pack_of_a_real_release_reads_as_its_tree(tmp_path, corpus_src) -> None:
    root = corpus_src("vllm==0.16.0")
    rel = _pack_tree(root, tmp_path / "vllm-0.16.0")
    for name in os.listdir(root):
        if name.endswith(".dist-info"):
            (rel / name).mkdir()
            for f in (root / name).iterdir():
                if f.is_file():
                    (rel / name / f.name).write_bytes(f.read_bytes())
    a, b = package_facts(str(rel), "vllm", cache=None), package_facts(str(root), "vllm", cache=None)
    assert (a["digest"], a["dist"], a["version"], a["requires"]) == (b["digest"], b["dist"], b["version"], b["requires"])
    assert len(a["modules"]) == len(b["modules"]) > 1000 and list(a["modules"]) == list(b["modules"])
    for name in ("vllm", "vllm.config.model", "vllm.v1.worker.gpu_model_runner"):
        assert a["modules"][name] == b["modules"][name]


def test_a_pack_written_here_reads_the_same_and_never_stale(tmp_path) -> None:
    """The pack this process just wrote is read from the bytes it wrote (no 18 MB read back on
    a check from nothing), giving what the file gives; once another writer replaces the file,
    the file is what is read."""
    import subprocess
    import sys

    path = tmp_path / "rel.pack"
    members = [("pkg/__init__.py", b"x = 1\n"), ("pkg/mod.py", b"def f():\n    return 2\n"),
               ("pkg-1.0.dist-info/METADATA", b"Name: pkg\n")]
    write_pack(path, members)
    here = Pack.open(path)
    dump = ("import sys, json; from pathlib import Path; from drift.sources.pack import Pack;"
            "p = Pack.open(Path(sys.argv[1])); print(json.dumps({r: [p.read(r).decode(), list(p.index[r])] for r in p.index}))")
    fresh = __import__("json").loads(subprocess.run([sys.executable, "-c", dump, str(path)], capture_output=True,
                                                     text=True, check=True).stdout)
    assert {r: [here.read(r).decode(), list(here.index[r])] for r in here.index} == fresh
    assert here.entries("pkg") == [("pkg/__init__.py", 6, fresh["pkg/__init__.py"][1][2]),
                                   ("pkg/mod.py", 22, fresh["pkg/mod.py"][1][2])]
    rewrite = ("import sys; from pathlib import Path; from drift.sources.pack import write_pack;"
               "write_pack(Path(sys.argv[1]), [('pkg/__init__.py', b'y = 2\\n')])")
    subprocess.run([sys.executable, "-c", rewrite, str(path)], check=True)
    again = Pack.open(path)
    assert list(again.index) == ["pkg/__init__.py"] and again.read("pkg/__init__.py") == b"y = 2\n"
    path.unlink()
    assert Pack.open(path) is None
