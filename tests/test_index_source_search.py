"""`PackageIndex.source_search`: a text question over a package whose facts came whole is
answered from the release's own files, whether they lie as a tree or only as a pack (a range
fetch), and not at all for a host's reply, which brings no sources."""

from __future__ import annotations

import re
from pathlib import Path

from drift.model.index import Needle, PackageIndex
from drift.sources.pack import pack_path, write_pack

SOURCES = {
    "gizmo/__init__.py": b"",
    "gizmo/pool.py": b"class Pool:\n    def __init__(self):\n        self.size = 1\n",
    "gizmo/manager.py": b"def use(pool):\n    return pool.size\n",
}
READS_SIZE = Needle(b"size", re.compile(rb"(?<![A-Za-z0-9_])pool\.size(?![A-Za-z0-9_])(?!\s*=[^=])"))


def _whole(root: Path | None) -> PackageIndex:
    """An index over facts that came whole (no lazy modules), as the store gives them."""
    modules = {n: {"path": p} for p, n in (("gizmo/__init__.py", "gizmo"), ("gizmo/pool.py", "gizmo.pool"),
                                           ("gizmo/manager.py", "gizmo.manager"))}
    facts = {"packages": {"gizmo": {"name": "gizmo", "digest": "d" * 64, "modules": modules}}}
    if root is not None:
        facts["target"] = {"root": str(root)}
    return PackageIndex(facts)


def test_a_tree_on_disk_is_searched(tmp_path):
    for rel, data in SOURCES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    index = _whole(tmp_path)
    assert index.has_sources
    assert index.source_search(READS_SIZE) == ["gizmo.manager"]


def test_a_release_kept_only_as_a_pack_is_searched(tmp_path):
    release = tmp_path / "gizmo-1.0"
    release.mkdir()
    write_pack(pack_path(release), sorted(SOURCES.items()))
    index = _whole(release)
    assert index.has_sources
    assert index.source_search(READS_SIZE) == ["gizmo.manager"]


def test_a_hosts_reply_has_no_sources():
    index = _whole(None)
    assert not index.has_sources
    assert index.source_search(READS_SIZE) == []
