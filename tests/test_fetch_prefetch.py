"""A check's releases fetched side by side (drift/sources/prefetch.py), against a real local index.

The server decides what is asserted: it holds the target's first range request until the
baseline's arrives (so the test fails unless both were in flight at once), logs every request
(each release read once, even when the run asks for it again), and serves missing releases and
damaged members. No timings are asserted; the waits only bound how long a broken run can hang.
"""

from __future__ import annotations

import filecmp
import threading
import zipfile
from pathlib import Path

import pytest

from drift import exitcodes
from drift.pipeline import run as pipeline
from drift.sources import fetch
from drift.sources.cache import COMPLETE_MARKER, RANGE
from drift.sources.errors import FetchError
from drift.sources.fetch import fetch_sources
from drift.sources.wheels import extract_wheel, wanted_members
from drift.sources import rangezip
from drift.sources.prefetch import Prefetch
from drift.sources.progress import Note
from tests.fetch_fixtures import IndexServer, build_wheel, isolated_pip, running

HOLD = 30  # seconds a held request waits at most for what the test expects to happen meanwhile


def _consumer_wheel(dest: Path, requires: str) -> Path:
    """`democons` 0.1: one module that uses demo_pkg, and a Requires-Dist naming the baseline."""
    dist = "democons-0.1.dist-info"
    files = {
        "democons/__init__.py": "",
        "democons/use.py": "from demo_pkg.core import greet\n\n\ndef hello():\n    return greet('x', loud=True)\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: democons\nVersion: 0.1\nRequires-Dist: {requires}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: drift-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/top_level.txt": "democons\n",
        f"{dist}/RECORD": "",
    }
    wheel = dest / "democons-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, text in files.items():
            zf.writestr(path, text)
    return wheel


@pytest.fixture
def dist(tmp_path) -> Path:
    d = tmp_path / "dist"
    d.mkdir()
    return d


def _serve(srv: IndexServer, *wheels: Path) -> None:
    for w in wheels:
        srv.add(w)


def _tails(srv: IndexServer, wheel: Path) -> int:
    """Suffix-range requests for `wheel`: one per range fetch of it."""
    return sum(1 for s in srv.sent_for(wheel.name) if s.range and s.range.startswith("bytes=-"))


def test_check_fetches_target_and_baseline_at_once(dist, tmp_path, monkeypatch) -> None:
    baseline, target = build_wheel(dist, version="1.0"), build_wheel(dist, version="1.1")
    consumer = _consumer_wheel(dist, "demo-pkg==1.0")
    baseline_seen, overlapped = threading.Event(), []

    def hold(name: str, _range: str | None) -> None:
        if name == baseline.name:
            baseline_seen.set()
        elif name == target.name and not overlapped:
            overlapped.append(baseline_seen.wait(HOLD))  # fetched one after the other, this never comes

    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    with running(IndexServer(before_file=hold)) as srv:
        _serve(srv, baseline, target, consumer)
        isolated_pip(monkeypatch, index_url=srv.simple)
        said: list[str] = []
        cons, outcomes = pipeline.run(consumer_spec="democons==0.1", target_specs=["demo-pkg==1.1"],
                                      target_package="demo_pkg", say=said.append)

    assert overlapped == [True]
    assert cons is not None and len(outcomes) == 1 and outcomes[0].report is not None, outcomes[0].error
    report = outcomes[0].report
    assert report.baseline["spec"] == "demo-pkg==1.0" and report.baseline["version"] == "1.0"
    assert report.target["version"] == "1.1"
    # each release read once by range, though the run asked for each after its fetch began
    assert [_tails(srv, w) for w in (consumer, target, baseline)] == [1, 1, 1]
    # target and baseline are one project: its index page was asked once, on the shared client
    assert [s.path.rstrip("/") for s in srv.log if s.path.startswith("/simple/")].count("/simple/demo-pkg") == 1
    notes = sorted(m for m in said if isinstance(m, Note))
    assert len(notes) == 3 and all("HTTP range" in n for n in notes)
    assert [n.split(":")[0] for n in notes] == ["demo-pkg 1.0", "demo-pkg 1.1", "democons 0.1"]
    assert fetch._INFLIGHT == {}


def test_one_release_of_three_missing_is_reported_where_it_was(dist, tmp_path, monkeypatch) -> None:
    target = build_wheel(dist, version="1.1")
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    with running(IndexServer()) as srv:
        _serve(srv, target, _consumer_wheel(dist, "demo-pkg==0.9"))  # the baseline was never published
        isolated_pip(monkeypatch, index_url=srv.simple)
        _cons, outcomes = pipeline.run(consumer_spec="democons==0.1", target_specs=["demo-pkg==1.1"],
                                       target_package="demo_pkg")
    assert [o.error for o in outcomes] == ["baseline: no release matches demo-pkg==0.9; newest versions: 1.1"]
    assert outcomes[0].exit_code == exitcodes.USAGE
    assert (tmp_path / "cache" / "sources" / "demo-pkg-1.1" / COMPLETE_MARKER).exists()  # the target was fetched
    assert fetch._INFLIGHT == {}


def test_a_missing_target_ends_the_run_with_its_error(dist, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    with running(IndexServer()) as srv:
        _serve(srv, build_wheel(dist, version="1.0"), _consumer_wheel(dist, "demo-pkg==1.0"))
        isolated_pip(monkeypatch, index_url=srv.simple)
        _cons, outcomes = pipeline.run(consumer_spec="democons==0.1", target_specs=["demo-pkg==7.0"],
                                       target_package="demo_pkg")
    assert [o.error for o in outcomes] == ["target: no release matches demo-pkg==7.0; newest versions: 1.0"]
    assert fetch._INFLIGHT == {}


def test_a_missing_consumer_is_reported_and_the_other_fetches_stop(dist, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    with running(IndexServer()) as srv:
        _serve(srv, build_wheel(dist, version="1.1"))
        isolated_pip(monkeypatch, index_url=srv.simple)
        cons, outcomes = pipeline.run(consumer_spec="nosuchcons==0.1", target_specs=["demo-pkg==1.1"],
                                      target_package="demo_pkg")
    assert cons is None and [o.error for o in outcomes] == [
        f"consumer: no project named 'nosuchcons' on {srv.simple}"]
    assert fetch._INFLIGHT == {}


def test_a_closed_prefetch_stops_at_the_next_step(dist, tmp_path, monkeypatch) -> None:
    """The target's directory tail is held until the prefetch is closed; nothing after it is read."""
    wheel = build_wheel(dist, version="1.1")
    pre_box: list[Prefetch] = []
    released = threading.Event()

    def hold(name: str, _range: str | None) -> None:
        if not released.is_set():
            released.set()
            pre_box[0]._closed.wait(HOLD)

    with running(IndexServer(before_file=hold)) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        pre = Prefetch(cache=tmp_path / "cache")
        pre_box.append(pre)
        assert pre.start("demo-pkg==1.1")
        assert released.wait(HOLD)
        pre.close()
        served = srv.sent_for(wheel.name)
    assert len(served) == 1 and served[0].range.startswith("bytes=-")  # the tail, no member
    assert not (tmp_path / "cache" / "sources" / "demo-pkg-1.1").exists()
    assert fetch._INFLIGHT == {}


def test_fetch_sources_joins_the_fetch_in_flight(dist, tmp_path, monkeypatch) -> None:
    wheel = build_wheel(dist, version="1.0")
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        said: list[str] = []
        with Prefetch(cache=tmp_path / "cache", say=said.append) as pre:
            assert pre.start("demo-pkg==1.0")
            assert not pre.start("demo-pkg==1.0") or len(pre._futures) == 1
            src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache", progress=said.append)
        assert src.how == RANGE and (src.root / "demo_pkg" / "core.py").is_file()  # the tree, as asked
        assert _tails(srv, wheel) == 1 and sum(isinstance(m, Note) for m in said) == 1


def test_members_cut_by_request_boundaries_come_out_whole(dist, tmp_path, monkeypatch) -> None:
    """Members inflated as their request arrives, and those split across two requests (left to
    zipfile), give the tree the whole wheel extracts to."""
    wheel = build_wheel(dist, version="1.0")
    monkeypatch.setattr(rangezip, "PIECE", 100)  # members cut by request boundaries
    monkeypatch.setattr(rangezip, "TAIL", 1024)  # and none of them in the directory's read
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
    whole = extract_wheel(wheel, tmp_path / "whole")
    files = sorted(str(p.relative_to(whole)) for p in whole.rglob("*") if p.is_file())
    assert files == sorted(str(p.relative_to(src.root)) for p in src.root.rglob("*") if p.is_file())
    assert filecmp.cmpfiles(src.root, whole, files, shallow=False)[1:] == ([], [])
    # and some member really was cut: its bytes came in two requests
    asked = [tuple(int(x) for x in s.range[len("bytes="):].split("-")) for s in srv.sent_for(wheel.name)
             if not s.range.startswith("bytes=-")]
    archive = zipfile.ZipFile(wheel)
    spans = rangezip._spans_by_member(archive, wanted_members(archive))
    assert any(start < a < end for start, end in spans for a, _b in asked)  # a request began inside it


def test_a_small_wheel_is_read_in_one_request(tmp_path, monkeypatch) -> None:
    """A wheel no larger than the first tail read: its members come from that read, not again."""
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = _consumer_wheel(dist, "demo-pkg==1.0")
    assert wheel.stat().st_size < rangezip.TAIL
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("democons==0.1", cache=tmp_path / "cache")
    assert src.how == RANGE and "in 1 requests" in src.detail
    assert len(srv.sent_for(wheel.name)) == 1 and src.transferred == wheel.stat().st_size
    assert (src.root / "democons" / "use.py").read_text().startswith("from demo_pkg.core import greet")


def test_a_damaged_member_is_an_error_not_a_wrong_file(dist, tmp_path, monkeypatch) -> None:
    wheel = build_wheel(dist, version="1.0")
    blob = bytearray(wheel.read_bytes())
    info = zipfile.ZipFile(wheel).getinfo("demo_pkg/core.py")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    blob[start + info.compress_size // 2] ^= 0xFF
    wheel.write_bytes(bytes(blob))
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        with pytest.raises(FetchError, match="damaged member"):
            fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
    assert not (tmp_path / "cache" / "sources" / "demo-pkg-1.0").exists()


def test_the_consumers_metadata_comes_before_its_files(dist, tmp_path, monkeypatch) -> None:
    """The baseline a consumer names starts from its METADATA as soon as the range read holds
    it, in the fetch's thread, before the consumer's files are written (~0.06 s sooner here)."""
    consumer = _consumer_wheel(dist, "demo-pkg==1.0")
    cache, seen = tmp_path / "cache", []

    def early(data: bytes) -> None:
        seen.append((data, (cache / "sources" / "democons-0.1").exists()))

    with running(IndexServer()) as srv:
        _serve(srv, consumer)
        isolated_pip(monkeypatch, index_url=srv.simple)
        with Prefetch(cache=cache) as pre:
            assert pre.start("democons==0.1", tree=True, metadata=early)
            src = pre.result("democons==0.1")
    assert src is not None and src.how == RANGE and (src.root / "democons" / "use.py").is_file()
    assert seen == [(zipfile.ZipFile(consumer).read("democons-0.1.dist-info/METADATA"), False)]


def _run_named(monkeypatch, cache, wheels, consumer):
    """One check of democons against demo-pkg 1.1 over a fresh index: (the report, tails asked per wheel)."""
    monkeypatch.setenv("DRIFT_CACHE", str(cache))
    with running(IndexServer()) as srv:
        _serve(srv, *wheels, consumer)
        isolated_pip(monkeypatch, index_url=srv.simple)
        _cons, outcomes = pipeline.run(consumer_spec="democons==0.1", target_specs=["demo-pkg==1.1"],
                                       target_package="demo_pkg")
        return outcomes[-1].report, [_tails(srv, w) for w in wheels]


def test_a_baseline_guessed_from_metadata_is_the_one_the_run_uses(dist, tmp_path, monkeypatch) -> None:
    """The head start fetches the release the run then resolves (once), and a consumer whose
    metadata names no baseline starts none."""
    baseline, target = build_wheel(dist, version="1.0"), build_wheel(dist, version="1.1")
    report, (b_tails, t_tails) = _run_named(monkeypatch, tmp_path / "cache", (baseline, target),
                                            _consumer_wheel(dist, "demo-pkg==1.0"))
    assert report is not None and report.baseline["spec"] == "demo-pkg==1.0"
    assert b_tails == 1 and t_tails == 1
    other = tmp_path / "other"
    other.mkdir()
    report, (b_tails, _t) = _run_named(monkeypatch, tmp_path / "cache2", (baseline, target),
                                       _consumer_wheel(other, "requests>=2"))
    assert report is not None and not (report.baseline or {}).get("spec")
    assert b_tails == 0
