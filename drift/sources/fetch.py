"""Fetch releases once into a cache of their Python sources, reading no more than that.

A PyPI requirement is resolved against the user's own pip settings (indexes, find-links,
credentials, certificate, proxy: `drift.sources.pipconfig`) by `drift.sources.index`; a wheel
is then read with HTTP range requests, only its `.py` and `.dist-info` members
(`drift.sources.rangezip`: ~5 MB of a ~500 MB vLLM wheel). When the server or a proxy does not
serve ranges, or a transfer fails half way, `pip download` fetches the whole wheel as before; a
file on this machine (a `file://` index, find-links) is read in place; an sdist-only release is
downloaded and read as an archive, never built (`drift.sources.sdist`). Every path extracts into
the same layout (`<cache>/sources/<name>-<version>/`: top-level packages and the `.dist-info`),
so nothing downstream knows which one ran; `Sources.how` and the progress `Note` say it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from drift.sources.errors import FetchError, IndexUnreachable, NoMatchingRelease, ProjectNotFound  # noqa: F401
from drift.sources.pack import Pack, materialize, pack_path, write_pack
from drift.sources.progress import Note, Say, quiet as _quiet

COMPLETE_MARKER = ".drift-complete-l2"  # layout 2: .data/purelib at the root; older extractions are redone

# how a release reached the cache (Sources.how)
CACHED, RANGE, PIP, LOCAL, SDIST = "cache", "range", "pip", "local", "sdist"


@dataclass(frozen=True)
class Sources:
    """An extracted release: `root` holds the top-level package dirs and the .dist-info."""

    root: Path
    name: str
    version: str
    how: str = CACHED
    detail: str = ""
    transferred: int = 0  # bytes this fetch moved (0 from the cache): shown at -v, read by benchmarks


def cache_root() -> Path:
    base = os.environ.get("DRIFT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "drift"
    )
    return Path(base)


def cache_name(text: str) -> str:
    """`text` (a host spec, a label) as one safe file name under the cache."""
    return "".join(c if c.isalnum() or c in "._-@" else "_" for c in text)


def pinned_version(req: Requirement) -> str | None:
    specs = list(req.specifier)
    if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
        return specs[0].version
    return None


def parse_requirement(spec: str) -> Requirement:
    try:
        req = Requirement(spec)
    except InvalidRequirement as exc:
        raise FetchError(f"not a valid requirement: {spec!r} ({exc})") from None
    if req.url:
        raise FetchError(f"direct URL requirements are not supported here: {spec!r}; pass the wheel path")
    return req


def fetch_sources(spec: str, *, cache: Path | None = None, quiet: bool = True, progress: Say | None = None,
                  tree: bool = True, index=None, cancelled=None, join: bool = True, metadata=None) -> Sources:
    """Return the extracted sources of a PyPI requirement such as `vllm==0.16.0`.

    `progress` gets plain strings (what is happening), `Step`s (one per stage of a transfer),
    `Transfer`s (byte counts) and one closing `Note` saying which path was taken.

    `tree=False`: the packages may stay in the release's pack (`drift.sources.pack`; a range
    fetch writes one) rather than as files under `root`; only `drift.model.demand` reads packs.
    Anything else asks for the tree, which is then written from the pack once.

    A fetch of the same spec already running for a `drift.sources.prefetch.Prefetch` is joined
    (`join`), not repeated: its Sources, or its error, are this call's. `index` (a callable
    giving a shared `Index`), `cancelled` (a callable, true once the result is no longer
    wanted) and `metadata` (given the wheel's METADATA bytes as soon as a range read has them)
    are the prefetch's.
    """
    req = parse_requirement(spec)
    name = canonicalize_name(req.name)
    base = (cache or cache_root()) / "sources"
    version = pinned_version(req)
    if version is not None and is_complete(base, name, version):
        hit = base / f"{name}-{version}"
        if tree:
            materialize(hit)
        return Sources(root=hit, name=name, version=version)
    got = _joined(inflight_key(base, spec)) if join else None
    if got is None:
        say = progress or _quiet
        say(f"resolving {req}")
        from drift.sources.fetchers import fetch_release  # the index client loads only when a fetch is needed

        got = fetch_release(req, base=base, say=say, index=index, cancelled=cancelled, tree=tree, metadata=metadata)
        if got.how != CACHED:
            say(Note(f"{name} {got.version}: {got.detail}"))
    if tree:
        materialize(got.root)
    return got


def is_complete(base: Path, name: str, version: str) -> bool:
    """Whether `<base>/<name>-<version>` is a finished extraction (its marker written last)."""
    return (base / f"{canonicalize_name(name)}-{version}" / COMPLETE_MARKER).exists()


# Fetches running in the background (drift.sources.prefetch), by cache and requirement, so a
# caller asking for the same release waits for that one instead of starting a second.
_INFLIGHT: dict[tuple[str, str], object] = {}
_INFLIGHT_LOCK = threading.Lock()


def inflight_key(base: Path, spec: str) -> tuple[str, str]:
    return (str(base), str(parse_requirement(spec)))


def register_inflight(key: tuple[str, str], future) -> bool:
    """Record a background fetch; False if one for the same key is already running."""
    with _INFLIGHT_LOCK:
        if key in _INFLIGHT:
            return False
        _INFLIGHT[key] = future
        return True


def unregister_inflight(key: tuple[str, str], future) -> None:
    with _INFLIGHT_LOCK:
        if _INFLIGHT.get(key) is future:
            del _INFLIGHT[key]


def _joined(key: tuple[str, str]) -> "Sources | None":
    """The result of the background fetch of `key` (waiting for it), its error raised, or None
    when there is none or it was cancelled (the caller then fetches the release itself)."""
    from concurrent.futures import CancelledError

    with _INFLIGHT_LOCK:
        future = _INFLIGHT.get(key)
    if future is None:
        return None
    try:
        return future.result()
    except CancelledError:
        return None
    except FetchError as exc:
        if type(exc).__name__ == "Cancelled":
            return None
        raise


def _pip_download(requirement: str, dest: Path, *, quiet: bool) -> Path:
    log = dest / "pip.log"  # pip logs why an index page failed only at debug level, in --log
    argv = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--log", str(log), "--dest", str(dest), requirement,
    ]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise _pip_failure(requirement, proc.stderr + proc.stdout, _read_log(log))
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        raise FetchError(f"pip found no wheel for {requirement}")
    return wheels[0]


def _read_log(log: Path) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


_UNREACHABLE = re.compile(r"Could not fetch URL (\S+?): (?!404|410)(.*?)(?: - skipping)?$", re.MULTILINE)
_MISSING = re.compile(r"Could not fetch URL (\S+?): (?:404|410)", re.MULTILINE)


def _newest_first(versions) -> list[str]:
    from packaging.version import InvalidVersion

    parsed = {}
    for text in versions:
        try:
            parsed.setdefault(Version(text), text)
        except InvalidVersion:
            continue
    return [parsed[v] for v in sorted(parsed, reverse=True)]


def _pip_failure(requirement: str, output: str, log: str = "") -> FetchError:
    """Tell apart an index that did not answer, a project no index knows, and no matching release."""
    name = requirement
    try:
        name = Requirement(requirement).name
    except InvalidRequirement:
        pass
    if "No matching distribution" in output or "Could not find a version" in output:
        versions = re.search(r"\(from versions: ([^)]*)\)", output)
        known = [v.strip() for v in versions.group(1).split(",")] if versions else []
        known = [v for v in known if v and v != "none"]
        if known:
            return NoMatchingRelease(f"no release matches {requirement}; newest versions: {', '.join(_newest_first(known)[:8])}")
        down = _UNREACHABLE.search(log)
        if down:
            why = re.search(r"\[Errno -?\d+\] ([^'\")]+)|(Name or service not known|timed out|SSLError[^'\")]*)",
                            down.group(2))
            reason = (why.group(1) or why.group(2)).strip() if why else down.group(2).strip()[:160]
            return IndexUnreachable(f"the package index is unreachable: {_redact(down.group(1))} ({reason})")
        return ProjectNotFound(f"no project named {name!r} on the package index (nor any release of it "
                               "with a wheel for this platform)")
    lines = [ln for ln in output.strip().splitlines() if ln.startswith("ERROR")] or output.strip().splitlines()[-3:]
    return FetchError(f"pip could not fetch {requirement}: " + " ".join(lines))


def _redact(url: str) -> str:
    """An index URL without its credentials."""
    return re.sub(r"//[^/@]+@", "//***@", url)


def index_versions(name: str) -> list[str]:
    """Every release of `name` the user's indexes offer for this Python, newest first.

    Asked of the same index client as fetch_sources (pip's settings). Raises IndexUnreachable,
    ProjectNotFound, or FetchError with the reason.
    """
    from drift.sources.index import open_index

    with open_index() as index:
        return index.versions(name)


def newest_release(name: str) -> str:
    """The newest final release of `name` (pre-releases only when there is nothing else)."""
    versions = index_versions(name)
    finals = [v for v in versions if not Version(v).is_prerelease]
    return (finals or versions)[0]


def _wheel_version(wheel: Path) -> str:
    parts = wheel.name[: -len(".whl")].split("-")
    if len(parts) < 5:
        raise FetchError(f"not a wheel file name: {wheel.name}")
    return parts[1]


def installed_name(member: str) -> str | None:
    """Where pip puts a wheel member: `<dist>.data/purelib/pkg/x.py` and `.../platlib/...` go to
    the root like any package (openrlhf ships that way); scripts, headers and data never hold
    importable code and are left out."""
    head, _, rest = member.partition("/")
    if head.endswith(".data"):
        scheme, _, inner = rest.partition("/")
        return inner if scheme in ("purelib", "platlib") and inner else None
    return member


def wanted_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The members drift keeps: `.py` files and `.dist-info/` metadata, never outside the root."""
    out = []
    for info in archive.infolist():
        name = info.filename
        if info.is_dir() or not (name.endswith(".py") or ".dist-info/" in name):
            continue
        if name.startswith("/") or ".." in name.split("/"):  # the parts Path(name) would give, 10x cheaper
            continue  # never write outside dest
        if installed_name(name) is None:
            continue
        out.append(info)
    return out


def extract_wheel(wheel: Path, dest: Path) -> Path:
    """Extract .py files and dist-info of a wheel into dest, atomically (tmp dir + rename)."""
    try:
        archive = zipfile.ZipFile(wheel)
    except (zipfile.BadZipFile, OSError) as exc:
        raise FetchError(f"{wheel} is not a wheel (not a zip archive: {exc})") from None
    with archive:
        return extract_archive(archive, dest, label=str(wheel), marker_text=wheel.name)


def extract_archive(archive: zipfile.ZipFile, dest: Path, *, label: str, marker_text: str,
                    members: list[zipfile.ZipInfo] | None = None, pack: bool = False,
                    decoded: dict[str, tuple[bytes, str]] | None = None) -> Path:
    """Write `members` (default: wanted_members) of an open wheel into dest, atomically.

    `pack`: only the `.dist-info` as files; every member into the pack beside dest
    (`drift.sources.pack`), written before dest appears, so a complete release always has
    its sources. `decoded`: members already inflated, checked and hashed as they arrived
    (`rangezip.fetch_members`), by file name; the rest are read through `zipfile` here."""
    decoded = decoded or {}
    if not any(".dist-info/" in n for n in archive.namelist()):
        raise FetchError(f"{label} is not a wheel (no .dist-info inside)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=dest.name + ".", dir=dest.parent))
    try:
        made: set[Path] = set()  # one mkdir per directory, not per file (1,400 files in vLLM)
        packed: list[tuple[str, bytes, str | None]] = []
        for info in wanted_members(archive) if members is None else members:
            rel = installed_name(info.filename) or info.filename
            if pack:
                data, sha = decoded.get(info.filename) or (archive.read(info), None)
                packed.append((rel, data, sha))
                if not rel.split("/", 1)[0].endswith(".dist-info"):
                    continue  # a module: in the pack only
            target = tmp / rel
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            if pack or info.filename in decoded:
                target.write_bytes(data if pack else decoded[info.filename][0])
                continue
            with archive.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
        if pack:
            write_pack(pack_path(dest), packed)
        else:
            pack_path(dest).unlink(missing_ok=True)  # a tree: no stale pack may stand for it
        (tmp / COMPLETE_MARKER).write_text(marker_text)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    except (zipfile.BadZipFile, zlib.error) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise FetchError(f"{label}: damaged member ({exc})") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def wheel_sources(wheel: Path, *, cache: Path | None = None) -> Sources:
    """Extract a local wheel file once, keyed by its content hash."""
    if not wheel.is_file():
        raise FetchError(f"no such wheel: {wheel}")
    digest = hashlib.sha256()
    with open(wheel, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    name = canonicalize_name(wheel.name.split("-")[0])
    version = _wheel_version(wheel)
    dest = (cache or cache_root()) / "wheels" / f"{name}-{version}-{digest.hexdigest()[:16]}"
    if not (dest / COMPLETE_MARKER).exists():
        extract_wheel(wheel, dest)
    return Sources(root=dest, name=name, version=version)


def top_level_packages(root: Path, dist_name: str) -> list[str]:
    """Import names a distribution provides, from top_level.txt or RECORD."""
    norm = canonicalize_name(dist_name).replace("-", "_")
    for info in root.glob("*.dist-info"):
        if canonicalize_name(info.name[: -len(".dist-info")].rsplit("-", 1)[0]).replace("-", "_") != norm:
            continue
        top = info / "top_level.txt"
        if top.exists():
            names = [n.strip() for n in top.read_text().splitlines() if n.strip()]
            if names:
                return names
        record = info / "RECORD"
        if record.exists():
            tops = set()
            pack = Pack.open(pack_path(root))
            for line in record.read_text().splitlines():
                first = line.split(",", 1)[0].split("/", 1)[0]
                if first and not first.endswith((".dist-info", ".data")) and (
                        (root / first).is_dir() or pack is not None and pack.has_dir(first)):
                    tops.add(first)
            if tops:
                return sorted(tops)
    guess = norm
    if (root / guess).is_dir():
        return [guess]
    pack = Pack.open(pack_path(root))
    return [guess] if pack is not None and pack.has_dir(guess) else []
