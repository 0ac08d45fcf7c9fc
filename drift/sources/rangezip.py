"""Read chosen members of a remote zip (a wheel) with HTTP range requests.

A vLLM wheel is ~480 MB, but the `.py` files and metadata drift reads are ~5 MB compressed. A
zip keeps its directory at the end, so the tail says where every member lives; only the spans of
the wanted members are then fetched. Spans are coalesced (a small gap costs less than another
round trip) and fetched on a few connections at once. Parsing and inflating stay with
`zipfile` (it checks each member's CRC-32), fed by a sparse file object that holds only the
fetched bytes, so no zip parsing is written here.

Written on the index client (httpx2, shared with unearth) rather than `remotezip`: remotezip
issues one request per member, one after another (≈1,400 round trips for vLLM), and brings its
own `requests` session, so pip's credentials, certificates and proxies would be configured
twice.
"""

from __future__ import annotations

import bisect
import hashlib
import io
import re
import struct
import threading
import zipfile
import zlib

try:  # zlib-ng inflates deflate streams ~2x faster than zlib and its crc32 is ~8x faster;
    from zlib_ng import zlib_ng as _deflate  # the same API and output, the GIL released alike
except ImportError:  # pragma: no cover - a platform without its wheel: the stdlib does the same work
    _deflate = zlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from drift.sources.limits import MAX_DIRECTORY_BYTES, Deadline, FetchTooLarge

TAIL = 256 * 1024  # the end record and, up to ~2,500 members (vLLM's 1,905: 207 kB), the whole directory in one request
GAP = 64 * 1024  # fetch across gaps up to this size rather than pay another round trip
PIECE = 1024 * 1024  # largest single request, so a few connections share the work evenly
WORKERS = 6

_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


class RangeUnsupported(Exception):
    """The server (or a proxy on the way) does not serve byte ranges: use a whole download."""


@dataclass(frozen=True)
class RangeStats:
    """What a range read cost: shown at -v and reported by the benchmark."""

    archive_size: int
    transferred: int
    requests: int
    members: int


class SparseFile(io.RawIOBase):
    """A read-only file of `size` bytes of which only fetched segments are present.

    A read of a missing region fetches exactly that region (this is how `zipfile` gets the
    central directory when it does not fit in the first tail request).
    """

    def __init__(self, size: int, fetch: Callable[[int, int], bytes]) -> None:
        super().__init__()
        self.size = size
        self._fetch = fetch
        self._starts: list[int] = []
        self._blobs: list[bytes] = []
        self._pos = 0
        self._lock = threading.Lock()

    def add(self, start: int, blob: bytes) -> None:
        with self._lock:
            i = bisect.bisect_left(self._starts, start)
            self._starts.insert(i, start)
            self._blobs.insert(i, blob)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self.size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def read(self, n: int = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self._pos + n)
        out = bytearray()
        while self._pos < end:
            piece = self._covered(self._pos, end)
            if not piece:
                gap_end = self._next_start(self._pos, end)
                if gap_end - self._pos > MAX_DIRECTORY_BYTES:  # a directory claimed to be huge
                    raise FetchTooLarge(f"the zip asks for {gap_end - self._pos} bytes in one read "
                                        f"(more than {MAX_DIRECTORY_BYTES}): not a wheel drift reads")
                self.add(self._pos, self._fetch(self._pos, gap_end))
                continue
            out += piece
            self._pos += len(piece)
        return bytes(out)

    def readinto(self, buf) -> int:
        data = self.read(len(buf))
        buf[: len(data)] = data
        return len(data)

    def missing(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of [start, end) not fetched yet (a small wheel's tail read may hold them)."""
        out, pos = [], start
        with self._lock:
            while pos < end:
                piece = self._covered(pos, end)
                if piece:
                    pos += len(piece)
                    continue
                stop = self._next_start(pos, end)
                out.append((pos, stop))
                pos = stop
        return out

    def slice(self, start: int, end: int) -> bytes:
        """Bytes [start, end), all fetched, without moving the read position (any thread)."""
        out, pos = [], start
        with self._lock:
            while pos < end:
                piece = self._covered(pos, end)
                if not piece:
                    raise ValueError(f"bytes {pos}-{end} were not fetched")
                out.append(piece)
                pos += len(piece)
        return b"".join(out)

    def _covered(self, pos: int, end: int) -> bytes:
        i = bisect.bisect_right(self._starts, pos) - 1
        if i < 0:
            return b""
        start, blob = self._starts[i], self._blobs[i]
        if pos >= start + len(blob):
            return b""
        return blob[pos - start : min(end, start + len(blob)) - start]

    def _next_start(self, pos: int, end: int) -> int:
        i = bisect.bisect_right(self._starts, pos)
        return min(end, self._starts[i]) if i < len(self._starts) else end


def _spans(archive: zipfile.ZipFile, wanted: Iterable[zipfile.ZipInfo]) -> list[tuple[int, int]]:
    """Byte spans of the wanted members: each runs to the next member's header (or the directory).

    The local header's extra field may differ from the directory's, so its length is unknown
    until read; the next member's offset bounds it exactly.
    """
    return sorted(_spans_by_member(archive, wanted))


def coalesce(spans: list[tuple[int, int]], *, gap: int = GAP, piece: int = PIECE) -> list[tuple[int, int]]:
    """Merge spans closer than `gap`, then cut the result into requests of at most `piece` bytes."""
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start - merged[-1][1] <= gap:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out = []
    for start, end in merged:
        for cut in range(start, end, piece):
            out.append((cut, min(end, cut + piece)))
    return out


class RangeReader:
    """Range requests against one URL on a shared client; counts what it transfers."""

    def __init__(self, client, url: str, *, on_bytes: Callable[[int], None] | None = None,
                 deadline: Deadline | None = None) -> None:
        self.client = client
        self.url = url
        self.deadline = deadline or Deadline(url)
        self.transferred = 0
        self.requests = 0
        self._lock = threading.Lock()
        self.on_bytes = on_bytes or (lambda _n: None)

    def tail(self, n: int) -> tuple[int, bytes]:
        """The last `n` bytes and the file's size (one suffix-range request)."""
        return self._get(f"bytes=-{n}", expect_start=None, want=n)

    def span(self, start: int, end: int) -> bytes:
        size, blob = self._get(f"bytes={start}-{end - 1}", expect_start=start, want=end - start)
        if len(blob) != end - start:
            raise RangeUnsupported(f"asked for {end - start} bytes at {start}, got {len(blob)}")
        return blob

    def _get(self, header: str, *, expect_start: int | None, want: int) -> tuple[int, bytes]:
        """At most `want` bytes, counted as they arrive: a reply that streams past what was
        asked is cut off (RangeUnsupported), whatever its headers said."""
        with self.client.stream("GET", self.url, headers={"Range": header, "Accept-Encoding": "identity"}) as resp:
            with self._lock:
                self.requests += 1
            if resp.status_code == 200:
                raise RangeUnsupported(f"{resp.url.host or 'the server'} answered a range request with the whole file")
            if resp.status_code in (416, 501):
                raise RangeUnsupported(f"{resp.url.host or 'the server'} refused a range request ({resp.status_code})")
            resp.raise_for_status()
            match = _CONTENT_RANGE.fullmatch(resp.headers.get("Content-Range", "").strip())
            if resp.status_code != 206 or not match or match.group(3) == "*":
                raise RangeUnsupported(f"no usable Content-Range in the reply ({resp.status_code})")
            first, size = int(match.group(1)), int(match.group(3))
            if expect_start is not None and first != expect_start:
                raise RangeUnsupported(f"asked for bytes at {expect_start}, got bytes at {first}")
            chunks, got = [], 0
            for chunk in resp.iter_raw():
                got += len(chunk)
                if got > want:  # not a proxy ignoring ranges (that is a 200): a reply that does not end
                    raise FetchTooLarge(f"{resp.url.host or 'the server'} answered a range request for {want} "
                                        f"bytes with more; drift reads only what it asked for")
                chunks.append(chunk)
                with self._lock:
                    self.transferred += len(chunk)
                self.on_bytes(len(chunk))
                self.deadline.check(len(chunk))
            return size, b"".join(chunks)


def open_remote_zip(reader: RangeReader) -> tuple[zipfile.ZipFile, SparseFile]:
    """The archive's directory, read from its tail (plus the rest of the directory if needed)."""
    size, tail = reader.tail(TAIL)
    sparse = SparseFile(size, reader.span)
    sparse.add(size - len(tail), tail)
    try:
        return zipfile.ZipFile(sparse), sparse
    except zipfile.BadZipFile as exc:
        raise RangeUnsupported(f"not a zip archive at {reader.url}: {exc}") from None


def fetch_members(
    archive: zipfile.ZipFile,
    sparse: SparseFile,
    reader: RangeReader,
    wanted: list[zipfile.ZipInfo],
    *,
    workers: int = WORKERS,
    decoded: dict[str, tuple[bytes, str]] | None = None,
) -> RangeStats:
    """Load the wanted members' bytes into `sparse`, several requests in flight at once.

    With `decoded`, each member that lies wholly inside one request is also inflated, checked
    against its CRC-32 and hashed (sha256) by the thread that received it, as it arrives
    (`filename -> (bytes, sha256 hex)`): zlib(-ng) and hashlib release the GIL, so this overlaps the
    other requests' waiting instead of following the last one. A member cut by a request
    boundary, or one this cannot decode, is left to `zipfile` afterwards."""
    requests = coalesce(_spans(archive, wanted), gap=GAP, piece=PIECE)
    inside = _members_by_request(archive, wanted, requests) if decoded is not None else {}

    def load(span: tuple[int, int]) -> None:
        gaps = sparse.missing(*span)
        if gaps == [span]:
            blob = reader.span(*span)
            sparse.add(span[0], blob)
        else:  # partly or wholly in a read already made (the tail of a small wheel): only the rest
            for gap in gaps:
                sparse.add(gap[0], reader.span(*gap))
            blob = sparse.slice(*span)
        for info in inside.get(span, ()):
            got = _decode(info, blob, info.header_offset - span[0])
            if got is not None:
                decoded[info.filename] = got

    if requests:
        with ThreadPoolExecutor(max_workers=min(workers, len(requests))) as pool:
            for _ in pool.map(load, requests):
                pass
    return RangeStats(archive_size=sparse.size, transferred=reader.transferred,
                      requests=reader.requests, members=len(wanted))


def _members_by_request(archive: zipfile.ZipFile, wanted: list[zipfile.ZipInfo],
                        requests: list[tuple[int, int]]) -> dict[tuple[int, int], list[zipfile.ZipInfo]]:
    """Which wanted members each request holds whole (their span from `_spans`)."""
    bounds = dict(zip((i.header_offset for i in wanted), _spans_by_member(archive, wanted)))
    starts = [r[0] for r in requests]
    out: dict[tuple[int, int], list[zipfile.ZipInfo]] = {}
    for info in wanted:
        start, end = bounds[info.header_offset]
        k = bisect.bisect_right(starts, start) - 1
        if k >= 0 and requests[k][0] <= start and end <= requests[k][1]:
            out.setdefault(requests[k], []).append(info)
    return out


def _spans_by_member(archive: zipfile.ZipFile, wanted: list[zipfile.ZipInfo]) -> list[tuple[int, int]]:
    offsets = sorted({i.header_offset for i in archive.infolist()} | {archive.start_dir})
    out = []
    for info in wanted:
        k = bisect.bisect_right(offsets, info.header_offset)
        out.append((info.header_offset, offsets[k] if k < len(offsets) else archive.start_dir))
    return out


_LOCAL = struct.Struct("<4s22xHH")  # signature, then (after 22 bytes) name and extra lengths


def _decode(info: zipfile.ZipInfo, blob: bytes, at: int) -> tuple[bytes, str] | None:
    """The member at `blob[at:]` inflated and CRC-checked, with its sha256; None for anything
    but a plain stored or deflated member (or a damaged one): `zipfile` then reads it and says
    what is wrong."""
    if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return None
    if len(blob) < at + _LOCAL.size:
        return None
    sig, name_len, extra_len = _LOCAL.unpack_from(blob, at)
    if sig != b"PK\x03\x04":
        return None
    start = at + _LOCAL.size + name_len + extra_len
    raw = memoryview(blob)[start:start + info.compress_size]
    if len(raw) != info.compress_size:
        return None
    try:  # inflate at most one byte more than the directory says: a lying size never costs memory
        if info.compress_type == zipfile.ZIP_STORED:
            data = bytes(raw)
        else:
            inflater = _deflate.decompressobj(-15)
            data = inflater.decompress(raw, info.file_size + 1)
    except (zlib.error, _deflate.error, MemoryError, OverflowError):
        return None
    if len(data) != info.file_size or _deflate.crc32(data) != info.CRC:
        return None
    return data, hashlib.sha256(data).hexdigest()


def planned_bytes(archive: zipfile.ZipFile, wanted: list[zipfile.ZipInfo], sparse: SparseFile | None = None) -> int:
    """How many bytes `fetch_members` will request, for a progress total (less what `sparse`
    already holds)."""
    spans = coalesce(_spans(archive, wanted), gap=GAP, piece=PIECE)
    if sparse is not None:
        return sum(b - a for span in spans for a, b in sparse.missing(*span))
    return sum(end - start for start, end in spans)
