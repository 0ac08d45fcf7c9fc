"""HTML matrix: self-contained, escaped, and rendered for real in headless Chromium.

The browser tests keep their screenshot under artifacts/ (or $DRIFT_ARTIFACTS) so a person
can look at it; the assertions check it has the window's size and is not blank, and the
DOM Chromium built holds the whole matrix.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import pathlib
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser

import pytest

from drift.reports.html import render_matrix
from drift.reports.matrix import build_matrix
from tests import report_samples as S

WHEN = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.timezone.utc)
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _page(reports=None, **kw) -> str:
    return render_matrix(reports or S.matrix_reports(), title=kw.get("title", "speculators vs vLLM"), generated=WHEN)


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _tags(html: str) -> list[tuple[str, dict]]:
    parser = _Collect()
    parser.feed(html)
    return parser.tags


def test_self_contained_no_external_assets() -> None:
    html = _page()
    for tag, attrs in _tags(html):
        assert not (tag in ("link", "img", "iframe") or (tag == "script" and "src" in attrs)), (tag, attrs)
        for name in ("href", "src"):
            assert not (attrs.get(name) or "").startswith(("http:", "https:", "//")), (tag, attrs)
    assert "@import" not in html and "url(" not in html


def test_matrix_shape_header_and_counts() -> None:
    html = _page()
    matrix = build_matrix(S.matrix_reports())
    cells = [a for t, a in _tags(html) if t == "td" and "cell" in a.get("class", "")]
    assert len(cells) == len(matrix.rows) * len(matrix.columns)
    statuses = [a["data-status"] for a in cells]
    assert statuses.count("breaking") == 6 and statuses.count("risky") == 3 and statuses.count("info") == 1
    assert "generated 2026-01-05 12:00 UTC" in html
    assert "consumer <b>speculators 0.3.0</b>" in html and "baseline <b>vllm 0.11.0</b>" in html
    assert "uses: 5 breaking · 2 risky · 1 info · 11 ok" in html
    assert "<title>speculators vs vLLM</title>" in html


def test_cells_carry_words_hover_text_and_details() -> None:
    html = _page()
    breaking = [a for t, a in _tags(html) if t == "td" and a.get("data-status") == "breaking"]
    assert all("breaking" in a["title"] and "fix:" in a["title"] for a in breaking)
    assert "✗ breaking" in html and "✓ ok" in html and "⚠ risky" in html
    assert html.count("<details>") == 10  # one per cell with findings
    assert "TypeError: get_kv_cache_config_from_groups() got an unexpected keyword argument" in html


def test_finding_text_is_escaped() -> None:
    evil = dataclasses.replace(S.RETURN_SHAPE, title='<script>alert("x")</script> & "quotes"')
    report = dataclasses.replace(S.clean_report(), findings=(evil,))
    html = _page([report])
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp;" in html


# --- real browser -------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
browser = pytest.mark.skipif(CHROMIUM is None, reason="headless chromium not installed (apt-get install chromium)")


def _artifacts() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("DRIFT_ARTIFACTS", ROOT / "artifacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _chromium(url: str, tmp_path: pathlib.Path, *extra: str) -> subprocess.CompletedProcess:
    argv = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}", *extra, url,
    ]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA PNG (what Chromium writes) into rows of raw pixel bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, [bytes(r[i:i + 3]) for r in rows[::9] for i in range(0, stride, bpp * 7)]


@browser
@pytest.mark.browser
def test_screenshot_is_legible_size_and_not_blank(tmp_path: pathlib.Path) -> None:
    out = _artifacts()
    page, png = out / "report-matrix.html", out / "report-matrix.png"
    page.write_text(_page(), encoding="utf-8")
    png.unlink(missing_ok=True)
    proc = _chromium(page.as_uri(), tmp_path, f"--screenshot={png}", "--window-size=1400,900")
    assert png.exists(), proc.stderr[-2000:]
    width, height, sample = _png_pixels(png.read_bytes())
    assert (width, height) == (1400, 900)
    colours = set(sample)
    white = sum(1 for px in sample if px == b"\xff\xff\xff")
    assert len(colours) > 20, "screenshot looks blank"
    assert white < 0.9 * len(sample)
    # status colours are on screen: pale green (ok) and pale red (breaking) cell backgrounds
    assert any(g > r + 8 and g > b for r, g, b in colours), "no ok-green cells"
    assert any(r > g + 12 and r > b + 12 and r > 200 for r, g, b in colours), "no breaking-red cells"


@browser
@pytest.mark.browser
def test_dom_after_rendering_holds_the_whole_matrix(tmp_path: pathlib.Path) -> None:
    page = tmp_path / "matrix.html"
    page.write_text(_page(), encoding="utf-8")
    proc = _chromium(page.as_uri(), tmp_path, "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    matrix = build_matrix(S.matrix_reports())
    assert len(re.findall(r'<td class="cell s-', dom)) == len(matrix.rows) * len(matrix.columns)
    assert len(re.findall(r'<tr class="use-row', dom)) == len(matrix.rows)
    assert dom.count('data-status="breaking"') == 6
    assert "vllm 0.16.0 @ gpu-01" in dom
