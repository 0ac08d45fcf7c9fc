"""Two fetches of one release into one cache at once (two drift processes sharing ~/.cache/drift).

A release whose completion marker is there is read by other processes without a lock, so it
must never be deleted or rewritten under them. Before `drift.sources.cache.release_lock`, two
fetches that both found no marker each extracted the release, and the later one `rmtree`d the
earlier one's finished directory before renaming its own in: a check walking the consumer's
tree meanwhile found files (or the whole package) gone and reported what was left, down to 0
findings with no error (xinference, 0/11, round 16).

The order is forced with events, not sleeps: the first fetch is held just before it extracts
until the second has passed its own "is it cached?" test (the `cancelled` callable a fetch
calls right after that test). The waits only bound how long a broken run can hang.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from drift.sources import fetchers
from drift.sources.cache import CACHED, COMPLETE_MARKER, RANGE
from drift.sources.fetch import fetch_sources
from drift.sources.pack import materialize
from tests.fetch_fixtures import IndexServer, build_wheel, isolated_pip, running

HOLD = 30  # seconds at most a held fetch waits for the other


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_two_fetches_at_once_extract_once_and_never_replace_a_complete_release(tmp_path, monkeypatch) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = build_wheel(dist)
    cache = tmp_path / "cache"
    second_past_test = threading.Event()
    real_extract = fetchers.extract_archive
    extracted: list[str] = []
    first_view: dict[str, object] = {}

    def extract(archive, dest, **kw):
        if threading.current_thread().name == "first":
            assert second_past_test.wait(HOLD), "the second fetch never got past its cache test"
        out = real_extract(archive, dest, **kw)
        extracted.append(threading.current_thread().name)
        if len(extracted) == 1:  # what a reader that saw the marker now holds
            first_view.update(ino=os.stat(dest).st_ino, files=_files(dest))
        return out

    monkeypatch.setattr(fetchers, "extract_archive", extract)
    results: dict[str, object] = {}

    def fetch(name: str, cancelled=None) -> None:
        try:
            results[name] = fetch_sources("demo-pkg==1.0", cache=cache, tree=True, join=False, cancelled=cancelled)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertions below
            results[name] = exc

    def past_test() -> bool:
        second_past_test.set()
        return False

    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        first = threading.Thread(target=fetch, args=("first",), name="first")
        second = threading.Thread(target=fetch, args=("second", past_test), name="second")
        first.start()
        second.start()
        first.join(2 * HOLD)
        second.join(2 * HOLD)
    assert not first.is_alive() and not second.is_alive()
    a, b = results["first"], results["second"]
    assert not isinstance(a, BaseException), a
    assert not isinstance(b, BaseException), b
    assert a.root == b.root and (a.root / COMPLETE_MARKER).exists()
    # one extraction (either may take the release first); the other fetch waited for it and read it from the cache
    assert len(extracted) == 1 and sorted([a.how, b.how]) == sorted([RANGE, CACHED])
    # the finished release a reader saw is the one still there: never deleted and renamed over
    assert os.stat(a.root).st_ino == first_view["ino"] and _files(a.root) == first_view["files"]


def test_two_materializes_at_once_write_the_tree_once(tmp_path, monkeypatch) -> None:
    """A pack written out as files by two processes at once: the second had opened the pack
    too, and `rmtree`d the top-level packages the first had just written (and its caller was
    reading) to put its own copy in their place. The first is held once it has the pack open,
    until the second has started."""
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = build_wheel(dist)
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache", tree=False)
    from drift.sources import pack as pack_mod

    second_started = threading.Event()
    real_pack_path, real_tempfile = pack_mod.pack_path, pack_mod.tempfile

    def pack_path(root):
        if threading.current_thread().name == "second":
            second_started.set()
        return real_pack_path(root)

    class Held:
        @staticmethod
        def mkdtemp(**kw):
            if threading.current_thread().name == "first":
                assert second_started.wait(HOLD)
            return real_tempfile.mkdtemp(**kw)

    monkeypatch.setattr(pack_mod, "pack_path", pack_path)
    monkeypatch.setattr(pack_mod, "tempfile", Held)
    wrote: dict[str, bool] = {}
    seen: dict[str, int] = {}

    def run(name: str) -> None:
        wrote[name] = materialize(src.root)
        if wrote[name]:
            seen[name] = os.stat(src.root / "demo_pkg").st_ino

    first = threading.Thread(target=run, args=("first",), name="first")
    second = threading.Thread(target=run, args=("second",), name="second")
    first.start()
    second.start()
    first.join(2 * HOLD)
    second.join(2 * HOLD)
    assert sorted(wrote.values()) == [False, True]  # written out once (by either); the other found it done
    assert [os.stat(src.root / "demo_pkg").st_ino] == list(seen.values()) and _files(src.root / "demo_pkg")
    assert not real_pack_path(src.root).exists()


def test_a_pack_written_out_between_two_looks_is_still_the_package(tmp_path, monkeypatch) -> None:
    """`has_package` looked for files, then for the pack: another process writing the tree out
    in between (files in place, then the pack removed) left it seeing neither, and the target
    was "not installed" at that root."""
    dist = tmp_path / "dist"
    dist.mkdir()
    with running(IndexServer()) as srv:
        srv.add(build_wheel(dist))
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache", tree=False)
    from drift.model import demand

    real = demand.pack_path

    def pack_path(root):  # the other process's materialize runs to its end right here
        materialize(src.root)
        return real(root)

    monkeypatch.setattr(demand, "pack_path", pack_path)
    assert not (src.root / "demo_pkg").exists()
    assert demand.has_package(src.root, "demo_pkg")
    assert (src.root / "demo_pkg").is_dir() and not real(src.root).exists()
