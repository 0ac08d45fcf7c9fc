"""`PackageIndex.writes_quoted`: whether the package's text writes a name between quote marks
(DRIFT070 asks it of every method whose callers never run). Over facts that came whole it is
answered from a set of every quoted identifier stored per digest; the answer must be the one a
`["']name["']` needle over the files gives, for every name, and a later index over the same
digest must read the stored set instead of the files."""

from __future__ import annotations

import re
from pathlib import Path

from drift.model.demand import package_facts
from drift.model.index import Needle, PackageIndex
from drift.model.store import FactsStore

SOURCES = {
    "gizmo/__init__.py": b"",
    "gizmo/rpc.py": (b"def call(w):\n    w.collective_rpc(\"sleep\")\n    getattr(w, 'wake_up')()\n"
                     b"    x = 'mixed\" + \"a\"b\"c\"\n    y = \"with space\"\n    z = '''triple'''\n"
                     b"    return \"unterminated\n"),
    "gizmo/text.py": "NAME = 'caf\u00e9'\nOTHER = \"\uff46\uff55\uff4c\uff4c\"  # fullwidth: NFKC 'full'\n".encode(),
    "gizmo/plain.py": b"def sleep():\n    return wake_up  # not quoted here\n",
}
NAMES = ["sleep", "wake_up", "mixed", "a", "b", "c", "with", "space", "triple", "unterminated", "call",
         "café", "full", "NAME", "collective_rpc", "w", "x", "nothing_at_all", "with space"]


def _tree(root: Path) -> None:
    for rel, data in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def _whole(root: Path, store: FactsStore) -> PackageIndex:
    """An index over facts that came whole, as the store gives them to a warm check."""
    modules = {n: {"path": p} for p, n in (("gizmo/__init__.py", "gizmo"), ("gizmo/rpc.py", "gizmo.rpc"),
                                           ("gizmo/text.py", "gizmo.text"), ("gizmo/plain.py", "gizmo.plain"))}
    facts = {"packages": {"gizmo": {"name": "gizmo", "digest": "d" * 64, "modules": modules}},
             "target": {"root": str(root)}}
    return PackageIndex(facts, store=store)


def _needle(index: PackageIndex, name: str) -> bool:
    quoted = re.compile(rb"[\"']%s[\"']" % re.escape(name.encode()))
    return bool(index.source_search(Needle(name.encode(), quoted)))


def test_the_stored_set_answers_as_the_needle_does(tmp_path):
    _tree(tmp_path / "src")
    index = _whole(tmp_path / "src", FactsStore(tmp_path / "facts"))
    expected = {name: _needle(index, name) for name in NAMES}
    assert expected["sleep"] and expected["wake_up"] and expected["café"] and expected["full"]
    assert not expected["unterminated"] and not expected["nothing_at_all"] and not expected["call"]
    assert {name: index.writes_quoted(name) for name in NAMES} == expected


def test_a_later_index_reads_the_stored_set_not_the_files(tmp_path):
    _tree(tmp_path / "src")
    store_dir = tmp_path / "facts"
    first = _whole(tmp_path / "src", FactsStore(store_dir))
    assert first.writes_quoted("sleep")
    assert list(store_dir.glob("gizmo-*.idx-quoted-words.1"))
    for rel in SOURCES:
        (tmp_path / "src" / rel).write_bytes(b"")  # the files no longer quote anything
    later = _whole(tmp_path / "src", FactsStore(store_dir))  # same digest: the stored set answers
    assert later.writes_quoted("sleep") and later.writes_quoted("wake_up")
    assert not later.writes_quoted("call")
    assert not _needle(later, "sleep")  # the files themselves were emptied


def test_demand_driven_facts_search_the_text(tmp_path):
    _tree(tmp_path)
    pkg = package_facts(str(tmp_path), "gizmo", cache=None)
    index = PackageIndex({"packages": {"gizmo": pkg}})
    assert index.demand
    assert {name: index.writes_quoted(name) for name in NAMES} == {name: _needle(index, name) for name in NAMES}
