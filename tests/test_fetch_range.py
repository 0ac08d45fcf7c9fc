"""The range fetcher against a real local HTTP server serving a real wheel.

What is asserted is what crossed the wire (the server's own log) and what landed in the cache
(byte-identical to extracting the whole wheel, and every file matching the wheel's RECORD),
with and without range support on the server.
"""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from drift.sources.cache import COMPLETE_MARKER, LOCAL, PIP, RANGE, SDIST
from drift.sources.fetch import fetch_sources
from drift.sources.wheels import extract_wheel
from drift.sources import rangezip
from drift.sources.progress import Note, Step, Transfer
from tests.fetch_fixtures import (IndexServer, build_sdist, build_wheel, isolated_pip, record_hashes, running,
                                  sha256_b64)


def _same_tree(a: Path, b: Path) -> None:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    _, mismatch, errors = filecmp.cmpfiles(a, b, [str(p) for p in files_a], shallow=False)
    assert mismatch == [] and errors == []


@pytest.fixture
def wheel(tmp_path) -> Path:
    dist = tmp_path / "dist"
    dist.mkdir()
    return build_wheel(dist)


def test_range_fetch_reads_only_the_sources(wheel, tmp_path, monkeypatch) -> None:
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        said: list[str] = []
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache", progress=said.append)

        assert src.how == RANGE and src.version == "1.0"
        assert src.root == tmp_path / "cache" / "sources" / "demo-pkg-1.0"
        # the same tree as extracting the whole wheel, marker included
        whole = extract_wheel(wheel, tmp_path / "whole")
        _same_tree(src.root, whole)
        # every extracted file is the one the wheel's RECORD describes
        dist_info = src.root / "demo_pkg-1.0.dist-info"
        hashes = record_hashes(dist_info)
        extracted = [p for p in src.root.rglob("*") if p.is_file() and p.name != COMPLETE_MARKER]
        assert {str(p.relative_to(src.root)) for p in extracted} <= set(hashes) | {"demo_pkg-1.0.dist-info/RECORD"}
        for p in extracted:
            if p.name != "RECORD":
                assert sha256_b64(p) == hashes[str(p.relative_to(src.root))], p
        # on the wire: only range requests for the wheel, each answered 206, far less than the file
        served = srv.sent_for(wheel.name)
        assert served and all(s.range and s.status == 206 for s in served)
        sent = sum(s.sent for s in served)
        assert sent < wheel.stat().st_size / 10, (sent, wheel.stat().st_size)
        # progress: a step line, byte counts reaching the total, and the note naming the path
        assert any(isinstance(m, Step) and "by HTTP range" in m for m in said)
        transfers = [m for m in said if isinstance(m, Transfer)]
        assert transfers and transfers[-1].done == transfers[-1].total
        notes = [m for m in said if isinstance(m, Note)]
        assert len(notes) == 1 and "HTTP range" in notes[0] and f"{len(served)} requests" in notes[0]

        # a second fetch of the pinned release is served from the cache: nothing sent
        before = len(srv.log)
        again = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
        assert again.root == src.root and len(srv.log) == before


def test_server_without_ranges_falls_back_to_pip(wheel, tmp_path, monkeypatch) -> None:
    with running(IndexServer(ranges=False)) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        said: list[str] = []
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache", progress=said.append)

        assert src.how == PIP
        assert "answered a range request with the whole file" in src.detail
        _same_tree(src.root, extract_wheel(wheel, tmp_path / "whole"))
        # drift's probe got a 200 and hung up; pip then fetched the whole file
        served = srv.sent_for(wheel.name)
        assert served[0].range and served[0].status == 200
        assert any(s.range is None and s.status == 200 and s.sent == wheel.stat().st_size for s in served[1:])
        assert any(isinstance(m, Step) and "downloading the whole wheel with pip" in m for m in said)
        assert any(isinstance(m, Note) and "pip download" in m for m in said)


def test_fetch_path_is_said_on_the_command_line(wheel, tmp_path, monkeypatch) -> None:
    """`drift check -v` piped: one line per fetch step, and which path the fetch took."""
    consumer = tmp_path / "consumer" / "uses_demo"
    consumer.mkdir(parents=True)
    (consumer / "__init__.py").write_text("from demo_pkg.core import greet\n\ngreet('x', loud=True)\n")
    for ranges, step, note in ((True, "by HTTP range from 127.0.0.1", "HTTP range:"),
                               (False, "downloading the whole wheel with pip", "pip download of the whole wheel")):
        with running(IndexServer(ranges=ranges)) as srv:
            srv.add(wheel)
            isolated_pip(monkeypatch, index_url=srv.simple)
            monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / f"cache-{ranges}"))
            argv = ["check", str(consumer), "--target", "demo-pkg==1.0", "--package", "demo_pkg"]
            quiet = subprocess.run(["drift", *argv], capture_output=True, text=True, cwd=tmp_path, timeout=300)
            monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / f"cache-v-{ranges}"))
            loud = subprocess.run(["drift", *argv, "-v"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
        for proc in (quiet, loud):
            assert "Traceback" not in proc.stderr, proc.stderr
            assert [ln for ln in proc.stderr.splitlines() if step in ln] != [], proc.stderr
        assert note not in quiet.stderr
        assert [ln for ln in loud.stderr.splitlines() if ln.startswith("drift: demo-pkg 1.0: " + note)], loud.stderr


def test_a_wheel_the_first_read_holds_whole_says_so(tmp_path, monkeypatch) -> None:
    """speculators' 97 kB wheel fits in the first read (the directory's): its step said
    "reading 50 of 50 members (0 B of 97.3 kB)"; it says where the bytes came from."""
    dist = tmp_path / "dist"
    dist.mkdir()
    small = build_wheel(dist, native_mb=0, blob_kb=1)
    said = []
    with running(IndexServer()) as srv:
        srv.add(small)
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache", progress=said.append)
    assert src.how == RANGE
    steps = [m for m in said if isinstance(m, Step) and "members" in m]
    assert steps and all("(all of it came with the directory)" in m for m in steps), steps
    assert not any("(0 B of" in m for m in said)


def test_find_links_wheel_is_read_in_place(wheel, tmp_path, monkeypatch) -> None:
    isolated_pip(monkeypatch, no_index="1", find_links=str(wheel.parent))
    src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
    assert src.how == LOCAL and str(wheel.parent) in src.detail
    _same_tree(src.root, extract_wheel(wheel, tmp_path / "whole"))


def test_sdist_only_release_is_read_never_built(tmp_path, monkeypatch) -> None:
    sdist = build_sdist(tmp_path)
    with running(IndexServer()) as srv:
        srv.add(sdist)
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("sdonly==0.5", cache=tmp_path / "cache")
    assert src.how == SDIST and "not built" in src.detail
    assert not (tmp_path / "setup-py-ran").exists()
    assert (src.root / "sdonly" / "api.py").read_text().startswith("def run(job")
    assert not (src.root / "tests").exists() and not (src.root / "setup.py").exists()
    meta = src.root / "sdonly-0.5.dist-info"
    assert "Version: 0.5" in (meta / "METADATA").read_text()
    from drift.sources.wheels import top_level_packages

    assert top_level_packages(src.root, "sdonly") == ["sdonly"]


def test_central_directory_beyond_the_first_tail_read(tmp_path, monkeypatch) -> None:
    """A wheel with a directory larger than the first tail request needs a second read; a
    member must also come out right when it is the last one before the directory."""
    import zipfile

    wheel = tmp_path / "many_mods-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(3000):
            zf.writestr(f"many_mods/m{i:04d}_{'x' * 40}.py", f"X = {i}\n")
        zf.writestr("many_mods-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: many-mods\nVersion: 1.0\n")
    assert zipfile.ZipFile(wheel).start_dir < wheel.stat().st_size - rangezip.TAIL
    with running(IndexServer()) as srv:
        srv.add(wheel)
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("many-mods==1.0", cache=tmp_path / "cache")
    assert src.how == RANGE
    assert (src.root / "many_mods" / f"m2999_{'x' * 40}.py").read_text() == "X = 2999\n"
    _same_tree(src.root, extract_wheel(wheel, tmp_path / "whole"))


def test_coalesce_merges_near_spans_and_caps_request_size() -> None:
    spans = [(0, 10), (15, 20), (10_000, 10_010), (10_012, 30_000)]
    assert rangezip.coalesce(spans, gap=100, piece=1 << 20) == [(0, 20), (10_000, 30_000)]
    assert rangezip.coalesce(spans, gap=100, piece=8_000) == [(0, 20), (10_000, 18_000), (18_000, 26_000),
                                                              (26_000, 30_000)]


@pytest.mark.corpus
def test_real_vllm_wheel_from_pypi_matches_its_record(tmp_path) -> None:
    """vllm 0.16.0 from PyPI by range, with the user's pip settings: every file as RECORD says."""
    src = fetch_sources("vllm==0.16.0", cache=tmp_path / "cache")
    if src.how != RANGE:
        pytest.fail(f"expected an HTTP range fetch from PyPI, got {src.how}: {src.detail}")
    hashes = record_hashes(src.root / "vllm-0.16.0.dist-info")
    py = [p for p in src.root.rglob("*.py")]
    assert len(py) > 1000
    assert sum(1 for p in py if sha256_b64(p) == hashes[str(p.relative_to(src.root))]) == len(py)
    expected = {p for p in hashes if p.endswith(".py") or ".dist-info/" in p} | {"vllm-0.16.0.dist-info/RECORD"}
    got = {str(p.relative_to(src.root)) for p in src.root.rglob("*") if p.is_file() and p.name != COMPLETE_MARKER}
    assert got == expected


def _cached_vllm_wheel() -> Path | None:
    from drift.sources.cache import cache_root

    for where in (cache_root() / "bench", Path("/opt/wheels"), Path.home() / ".cache" / "pip" / "wheels"):
        found = sorted(where.rglob("vllm-*.whl")) if where.is_dir() else []
        if found:
            return found[-1]
    return None


REAL_WHEELS = Path.home() / ".cache" / "drift-test" / "wheels"  # outside the repo, kept between runs


def _real_wheel() -> Path:
    """A real release's wheel: a vLLM wheel already on disk (benchmarks/bench_fetch.py keeps
    one), else pydantic-core's for this interpreter (the test extra installs it, so PyPI has
    it for this platform), fetched once from the index pip is configured with: 2 MB, 98 % of it
    a compiled extension, so a range read of its .py files and metadata must read ~2 % of it.
    With CI=true a wheel that cannot be had fails the test instead of skipping it."""
    wheel = _cached_vllm_wheel()
    if wheel is not None:
        return wheel
    from importlib.metadata import version

    spec = f"pydantic-core=={version('pydantic_core')}"
    found = sorted(REAL_WHEELS.glob(f"pydantic_core-{version('pydantic_core')}-*.whl"))
    if not found:
        REAL_WHEELS.mkdir(parents=True, exist_ok=True)
        got = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                              "-d", str(REAL_WHEELS), spec], capture_output=True, text=True, timeout=600)
        found = sorted(REAL_WHEELS.glob(f"pydantic_core-{version('pydantic_core')}-*.whl"))
        if got.returncode or not found:
            why = f"could not fetch a real wheel ({spec}): {got.stderr.strip()[-400:]}"
            if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
                pytest.fail(why)
            pytest.skip(why)
    return found[-1]


@pytest.mark.corpus
def test_real_wheel_served_locally_with_and_without_ranges(tmp_path, monkeypatch) -> None:
    wheel = _real_wheel()
    name = wheel.name.split("-")[0].replace("_", "-")
    whole = extract_wheel(wheel, tmp_path / "whole")
    for ranges, how in ((True, RANGE), (False, PIP)):
        with running(IndexServer(ranges=ranges)) as srv:
            srv.add(wheel)
            isolated_pip(monkeypatch, index_url=srv.simple)
            src = fetch_sources(f"{name}=={wheel.name.split('-')[1]}", cache=tmp_path / f"c{ranges}")
            assert src.how == how, src.detail
            _same_tree(src.root, whole)
            if ranges:  # the end of the file, what is read and the gaps bridged: never the extension's bulk
                sent = sum(s.sent for s in srv.sent_for(wheel.name))
                with zipfile.ZipFile(wheel) as z:
                    wanted = sum(i.compress_size for i in z.infolist()
                                 if i.filename.endswith(".py") or ".dist-info/" in i.filename)
                assert sent <= rangezip.TAIL + 2 * wanted + rangezip.GAP, (sent, wanted)
                assert sent < wheel.stat().st_size / 4, sent


def test_an_https_index_is_read_with_pips_certificate(tmp_path, monkeypatch) -> None:
    """pip's `cert` (PIP_CERT here) is the trust drift's client uses, for the page and for the
    range reads: with the index's CA the release is read by range; without it, the index is
    unreachable (the certificate is refused), never read unverified."""
    from tests.fetch_fixtures import local_ca

    from drift.sources.errors import IndexUnreachable

    ca, server_tls = local_ca(tmp_path / "tls")
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = build_wheel(dist)
    with running(IndexServer(), tls=server_tls) as srv:
        srv.add(wheel)
        assert srv.simple.startswith("https://127.0.0.1:")
        isolated_pip(monkeypatch, index_url=srv.simple, cert=str(ca))
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
        assert src.how == "range" and (src.root / "demo_pkg" / "core.py").is_file()
        assert any(s.range for s in srv.sent_for(wheel.name))
        isolated_pip(monkeypatch, index_url=srv.simple)  # the system's roots only
        with pytest.raises(IndexUnreachable):
            fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache2")
