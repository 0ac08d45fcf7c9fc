"""A package index can exhaust neither memory nor disk, nor wait forever: every read is bounded
by the bytes really read, never by a header, `st_size` or a zip directory's claim.

Each case runs the real CLI (`drift snapshot NAME==1.0`) in a subprocess against a real local
index on loopback (tests/fetch_fixtures.py's server; a few answers made hostile by a subclass),
and measures the child's peak RSS with `resource.getrusage(RUSAGE_CHILDREN)` in a wrapper
process of its own, and the cache's size on disk afterwards. Done when peak memory stays under
300 MB and the cache under 2x the real sources, with a clear error or a noted skip.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.fetch_fixtures import IndexServer, _handler

RSS_LIMIT_KB = 300 * 1024
GOOD = "def greet(who, *, loud=False):\n    return who\n"
WRAP = ("import json, resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=600)\n"
        "print(json.dumps({'rc': r.returncode, 'out': r.stdout[-4000:], 'err': r.stderr[-4000:],\n"
        "                  'rss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n")


class Hostile(IndexServer):
    """The fixture index, with per-file behaviour: `stream` files never end, `trickle` files
    send one byte at a time with a pause, `overrun` files answer a range with endless bytes."""

    stream: set = set()
    trickle: set = set()
    overrun: set = set()
    endless_pages: set = set()


def _serve(state: Hostile):
    base = _handler(state)

    class Handler(base):
        def _endless(self, status: int, headers: dict[str, str]) -> None:
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b"\0" * 65536
            try:
                while True:
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def do_GET(self) -> None:
            name = self.path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
            if self.path.startswith("/simple/") and name in state.endless_pages:
                return self._endless(200, {"Content-Type": "text/html"})
            if self.path.startswith("/files/") and name in state.stream:
                return self._endless(200, {"Content-Type": "application/octet-stream"})
            if self.path.startswith("/files/") and name in state.overrun and self.headers.get("Range"):
                size = 10 ** 9
                return self._endless(206, {"Content-Range": f"bytes {size - 262144}-{size - 1}/{size}"})
            if self.path.startswith("/files/") and name in state.trickle:
                blob = state.files[name]
                self.send_response(206)
                self.send_header("Content-Range", f"bytes 0-{len(blob) - 1}/{len(blob)}")  # a small wheel: all of it
                self.send_header("Content-Length", str(len(blob)))
                self.end_headers()
                try:
                    for byte in blob:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(0.5)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True
                return
            return super().do_GET()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def index():
    state = Hostile()
    state.stream, state.trickle, state.overrun, state.endless_pages = set(), set(), set(), set()
    server = _serve(state)
    yield state
    server.shutdown()
    server.server_close()


def _wheel(dest: Path, name: str, *, big: str | None = None, big_bytes: int = 0, zip64_claim: int | None = None) -> Path:
    """A real wheel of `name` 1.0; `big` (a member) inflates to `big_bytes` zeros, written in
    pieces so the test itself never holds it; `zip64_claim`: the directory says `big` is this big."""
    dist = f"{name}-1.0.dist-info"
    wheel = dest / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr(f"{name}/__init__.py", GOOD)
        if big is not None:
            with zf.open(zipfile.ZipInfo(big, date_time=(2024, 1, 1, 0, 0, 0)), "w", force_zip64=True) as out:
                zero = b"\0" * (1 << 20)
                for _ in range(big_bytes >> 20):
                    out.write(zero)
            if zip64_claim is not None:
                zf.filelist[-1].file_size = zip64_claim
        if big != f"{dist}/METADATA":
            zf.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        zf.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr(f"{dist}/top_level.txt", f"{name}\n")
    return wheel


def _sdist(dest: Path, name: str, *, big_bytes: int) -> Path:
    top = f"{name}-1.0"
    sdist = dest / f"{top}.tar.gz"
    with tarfile.open(sdist, "w:gz", compresslevel=9) as tf:
        for path, text in {f"{top}/PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
                           f"{top}/{name}/__init__.py": GOOD}.items():
            info = tarfile.TarInfo(path)
            info.size = len(text)
            tf.addfile(info, __import__("io").BytesIO(text.encode()))
        big = tarfile.TarInfo(f"{top}/{name}/huge.py")
        big.size = big_bytes
        with open(os.devnull, "rb") as _:
            pass

        class Zeros:
            def __init__(self, n):
                self.n = n

            def read(self, k=-1):
                k = self.n if k < 0 else min(k, self.n)
                self.n -= k
                return b"\0" * k

        tf.addfile(big, Zeros(big_bytes))
    return sdist


def drift(tmp_path: Path, index: Hostile, *argv: str, deadline: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_INDEX_URL=index.simple,
               DRIFT_CACHE=str(tmp_path / "cache"), NO_COLOR="1")
    if deadline:
        env["DRIFT_FETCH_DEADLINE"] = deadline
    res = subprocess.run([sys.executable, "-c", WRAP, sys.executable, "-m", "drift.cli", *argv],
                         capture_output=True, text=True, env=env, timeout=900)
    out = json.loads(res.stdout)
    assert "Traceback" not in out["err"], out["err"]
    assert out["rss_kb"] < RSS_LIMIT_KB, f"peak RSS {out['rss_kb'] // 1024} MB"
    return out


def _disk(path: Path) -> int:
    """Bytes really allocated under `path` (a sparse file counts what it holds)."""
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def test_a_range_reply_that_keeps_streaming_is_cut_off(tmp_path, index):
    index.add(_wheel(tmp_path, "overrun"))
    index.overrun.add("overrun-1.0-py3-none-any.whl")
    out = drift(tmp_path, index, "snapshot", "overrun==1.0", "-o", str(tmp_path / "s.json"))
    assert out["rc"] == 2, out
    assert "drift: error:" in out["err"] and "more" in out["err"]


@pytest.mark.parametrize("case", ["py_1gb", "metadata_400mb", "zip64_2_62"])
def test_a_wheel_bomb_is_skipped_with_a_note(tmp_path, index, case):
    name = f"bomb{case.split('_')[0]}"
    if case == "py_1gb":
        wheel = _wheel(tmp_path, name, big=f"{name}/huge.py", big_bytes=1 << 30)
    elif case == "metadata_400mb":
        wheel = _wheel(tmp_path, name, big=f"{name}-1.0.dist-info/METADATA", big_bytes=400 << 20)
    else:
        wheel = _wheel(tmp_path, name, big=f"{name}/huge.py", big_bytes=1 << 20, zip64_claim=2 ** 62)
    index.add(wheel)
    out = drift(tmp_path, index, "snapshot", f"{name}==1.0", "--package", name, "-o", str(tmp_path / "s.json"))
    assert out["rc"] in (0, 2), out
    assert "skipped 1 member(s) larger than drift reads" in out["err"], out["err"]
    real = len(GOOD) + 4096 * 8  # the sources and metadata drift keeps, with a block each to spare
    assert _disk(tmp_path / "cache") < 2 * real + 64 * 1024, _disk(tmp_path / "cache")
    if out["rc"] == 0:
        facts = json.loads((tmp_path / "s.json").read_text())
        assert f"{name}" in facts["packages"][name]["modules"]


def test_an_sdist_bomb_member_is_skipped(tmp_path, index):
    index.add(_sdist(tmp_path, "sdbomb", big_bytes=1 << 30))
    out = drift(tmp_path, index, "snapshot", "sdbomb==1.0", "--package", "sdbomb", "-o", str(tmp_path / "s.json"))
    assert out["rc"] == 0, out
    modules = json.loads((tmp_path / "s.json").read_text())["packages"]["sdbomb"]["modules"]
    assert "sdbomb" in modules and "sdbomb.huge" not in modules
    assert _disk(tmp_path / "cache") < 2 * (len(GOOD) + 4096 * 4) + 64 * 1024


def test_an_endless_sdist_body_is_capped(tmp_path, index):
    index.add(_sdist(tmp_path, "endless", big_bytes=0))
    index.stream.add("endless-1.0.tar.gz")
    out = drift(tmp_path, index, "snapshot", "endless==1.0", "-o", str(tmp_path / "s.json"))
    assert out["rc"] == 2, out
    assert "drift: error:" in out["err"] and "MB" in out["err"]
    assert _disk(tmp_path / "cache") < 64 * 1024


def test_a_trickling_server_meets_the_deadline(tmp_path, index):
    index.add(_wheel(tmp_path, "slowpkg"))
    index.trickle.add("slowpkg-1.0-py3-none-any.whl")
    out = drift(tmp_path, index, "snapshot", "slowpkg==1.0", "-o", str(tmp_path / "s.json"), deadline="3")
    assert out["rc"] == 3, out
    assert "did not finish within 3 s" in out["err"] and "bytes received" in out["err"], out["err"]


def test_an_index_page_that_never_ends_is_capped(tmp_path, index):
    index.add(_wheel(tmp_path, "pagebomb"))
    index.endless_pages.add("pagebomb")
    out = drift(tmp_path, index, "snapshot", "pagebomb==1.0", "-o", str(tmp_path / "s.json"))
    assert out["rc"] == 2, out
    assert "drift: error:" in out["err"] and "larger than 64 MB" in out["err"], out["err"]
