"""Choose how a resolved release reaches the cache, and say which way it went.

Order of preference, cheapest first: a file already on this machine is read in place; a remote
wheel is read by HTTP range (only the members drift keeps); if ranges are not served, or a
transfer breaks, `pip download` brings the whole wheel (pip has its own retries, and whatever a
proxy in between allows pip, it allows drift's fallback too); a release with only an sdist is
downloaded and read as an archive. Each path ends in the same cache layout.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

import httpx2
from packaging.requirements import Requirement

from drift.sources.cache import COMPLETE_MARKER, LOCAL, PIP, RANGE, SDIST, Sources, release_lock
from drift.sources.errors import FetchError
from drift.sources.pip import _pip_download
from drift.sources.wheels import extract_archive, extract_wheel, wanted_members
from drift.sources import rangezip
from drift.sources.index import Index, Resolved, open_index
from drift.sources.progress import ByteCounter, Say, Step, human_bytes
from drift.sources.limits import MAX_SDIST_BYTES, Deadline, FetchTooLarge
from drift.sources.sdist import extract_sdist


def visible_names(names: list[str]) -> list[str]:
    """Member names from an archive, as data: control characters spelled, not sent."""
    return [n.encode("unicode_escape", "backslashreplace").decode("ascii")[:200] for n in names]


def fetch_release(req: Requirement, *, base: Path, say: Say, index=None, cancelled=None, tree: bool = False,
                  metadata=None) -> Sources:
    """Resolve `req` with the user's pip settings and extract its sources under `base`.

    `index`: an `Index` (or a callable giving one) shared with other fetches, left open;
    without one, this fetch opens and closes its own. `cancelled`: checked between steps, so a
    background fetch nobody needs any more stops at the next one (drift.sources.prefetch).
    `tree`: a range fetch writes the members as files (a consumer, read as a tree at once),
    not into the release's pack. `metadata`: called with the wheel's METADATA bytes as soon as
    a range fetch holds them, before anything is written (a prefetch starts the baseline the
    consumer names from it)."""
    own = index is None
    if callable(index) and not isinstance(index, Index):
        index = index()
    index = index or open_index()
    stop = cancelled or (lambda: False)
    try:
        res = index.resolve(req)
        dest = base / f"{res.name}-{res.version}"
        if (dest / COMPLETE_MARKER).exists():
            return Sources(root=dest, name=res.name, version=res.version)
        _check(stop, res)
        with release_lock(dest):  # another process fetching it too: wait, then it is a cache hit
            if (dest / COMPLETE_MARKER).exists():
                return Sources(root=dest, name=res.name, version=res.version)
            _check(stop, res)
            if res.is_local:
                return _local(res, dest, say)
            if not res.is_wheel:
                return _sdist(index, res, dest, say)
            try:
                return _range(index, res, dest, say, stop, pack=not tree, metadata=metadata)
            except (rangezip.RangeUnsupported, httpx2.HTTPError) as exc:
                _check(stop, res)
                return _pip(res, dest, say, reason=_reason(exc))
    finally:
        if own:
            index.close()


def _check(stop, res: Resolved) -> None:
    if stop():
        from drift.sources.errors import Cancelled

        raise Cancelled(f"{res.name} {res.version}: the fetch was no longer needed")


def _reason(exc: Exception) -> str:
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"{exc.request.url.host} answered {exc.response.status_code} to a range request"
    return str(exc) or type(exc).__name__


def _range(index: Index, res: Resolved, dest: Path, say: Say, stop=lambda: False, *, pack: bool = True,
           metadata=None) -> Sources:
    reader = rangezip.RangeReader(index.client, res.url, deadline=Deadline(f"{res.name} {res.version} ({res.filename})"))
    archive, sparse = rangezip.open_remote_zip(reader)
    _check(stop, res)
    skipped: list[str] = []
    wanted = wanted_members(archive, skipped)
    label = f"{res.name} {res.version}"
    if skipped:
        say(Step(f"{label}: skipped {len(skipped)} member(s) larger than drift reads: "
                 + ", ".join(visible_names(skipped[:5])) + (" …" if len(skipped) > 5 else "")))
    total = rangezip.planned_bytes(archive, wanted, sparse)
    held = ("all of it came with the directory" if total == 0  # a small wheel: the first read held it whole
            else f"{human_bytes(total)} of {human_bytes(sparse.size)}")
    say(Step(f"{label}: reading {len(wanted)} of {len(archive.infolist())} members "
             f"({held}) by HTTP range from {res.host}" + (f" ({res.filename}: no file of it is built for this "
                                                          "Python/platform)" if res.foreign else "")))
    reader.on_bytes = ByteCounter(say, label, total)
    decoded: dict[str, tuple[bytes, str]] = {}  # inflated and hashed as each request arrives
    stats = rangezip.fetch_members(archive, sparse, reader, wanted, decoded=decoded)
    if metadata is not None:
        _hand_metadata(metadata, wanted, decoded)
    _check(stop, res)
    extract_archive(archive, dest, label=res.filename, marker_text=res.filename, members=wanted, pack=pack,
                    decoded=decoded)
    detail = (f"HTTP range: {human_bytes(stats.transferred)} of {human_bytes(stats.archive_size)} "
              f"in {stats.requests} requests from {res.host} ({stats.members} members of {res.filename})"
              + (f"; skipped as too large: {', '.join(visible_names(skipped))}" if skipped else ""))
    return Sources(root=dest, name=res.name, version=res.version, how=RANGE, detail=detail,
                   transferred=stats.transferred)


def _hand_metadata(metadata, wanted, decoded) -> None:
    """The wheel's own METADATA (the one `.dist-info` at its root) to `metadata`; a wheel with
    another layout, or a callback that fails, only loses the head start."""
    infos = [i for i in wanted if i.filename.count("/") == 1 and i.filename.endswith(".dist-info/METADATA")]
    if len(infos) == 1 and infos[0].filename in decoded:
        try:
            metadata(decoded[infos[0].filename][0])
        except Exception:  # noqa: BLE001 - a head start, never the fetch's failure
            pass


def _pip(res: Resolved, dest: Path, say: Say, *, reason: str) -> Sources:
    say(Step(f"{res.name} {res.version}: no range reads ({reason}); downloading the whole wheel with pip"))
    with tempfile.TemporaryDirectory(prefix="drift-dl-") as tmp:
        wheel = _pip_download(f"{res.name}=={res.version}", Path(tmp), quiet=True,
                              built_for=res.filename if res.foreign else None)
        size = wheel.stat().st_size
        extract_wheel(wheel, dest)
    detail = f"pip download of the whole wheel ({human_bytes(size)}), because {reason}"
    return Sources(root=dest, name=res.name, version=res.version, how=PIP, detail=detail, transferred=size)


def _local(res: Resolved, dest: Path, say: Say) -> Sources:
    path = Path(url2pathname(urlsplit(res.url).path))
    say(Step(f"{res.name} {res.version}: reading {path} in place"))
    if res.is_wheel:
        extract_wheel(path, dest)
    else:
        _extract_sdist_atomically(path, dest, res)
    return Sources(root=dest, name=res.name, version=res.version, how=LOCAL,
                   detail=f"local file {path}, read in place (nothing downloaded)")


def _sdist(index: Index, res: Resolved, dest: Path, say: Say) -> Sources:
    label = f"{res.name} {res.version}"
    with tempfile.TemporaryDirectory(prefix="drift-sdist-") as tmp:
        archive = Path(tmp) / res.filename
        deadline = Deadline(f"{label} ({res.filename})")
        with index.client.stream("GET", res.url) as resp:
            resp.raise_for_status()
            total = int(resp.headers.get("Content-Length") or 0)
            say(Step(f"{label}: only an sdist exists; downloading {res.filename} ({human_bytes(total)}) from {res.host}"))
            count = ByteCounter(say, label, total)
            digest = hashlib.sha256()
            got = 0
            with open(archive, "wb") as out:
                for chunk in resp.iter_bytes():  # counted as read: Content-Length is only a claim
                    got += len(chunk)
                    if got > MAX_SDIST_BYTES:
                        raise FetchTooLarge(f"{res.filename}: the download passed {MAX_SDIST_BYTES // 2**20} MB; "
                                            "not a source archive drift reads")
                    out.write(chunk)
                    digest.update(chunk)
                    count(len(chunk))
                    deadline.check(len(chunk))
        want = res.hashes.get("sha256")
        if want and digest.hexdigest() != want:
            raise FetchError(f"{res.filename}: sha256 {digest.hexdigest()} does not match the index's {want}")
        size = archive.stat().st_size
        _extract_sdist_atomically(archive, dest, res)
    return Sources(root=dest, name=res.name, version=res.version, how=SDIST, transferred=size,
                   detail=f"sdist {res.filename} ({human_bytes(size)}) from {res.host}, read as an archive, not built")


def _extract_sdist_atomically(archive: Path, dest: Path, res: Resolved) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=dest.name + ".", dir=dest.parent))
    try:
        extract_sdist(archive, tmp, name=res.name, version=res.version)
        (tmp / COMPLETE_MARKER).write_text(res.filename)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise

