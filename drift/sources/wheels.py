"""The `.py` and `.dist-info` members of a wheel (or a zip holding the same layout), extracted
into the cache; which top-level packages a release holds."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
import zlib
from pathlib import Path

from packaging.utils import canonicalize_name

from drift.sources.cache import COMPLETE_MARKER, Sources, cache_root, release_lock
from drift.sources.errors import FetchError
from drift.sources.limits import MAX_RELEASE_BYTES, FetchTooLarge, member_cap
from drift.sources.pack import Pack, pack_path, write_pack


def _wheel_version(wheel: Path) -> str:
    parts = wheel.name[: -len(".whl")].split("-")
    if len(parts) < 5:
        raise FetchError(f"not a wheel file name: {wheel.name}")
    return parts[1]


def foreign_platform(filename: str) -> str | None:
    """For a wheel no tag of which this interpreter supports, the platforms and Pythons it was
    built for (`cp312 macosx_14_0_arm64`); None for a wheel that installs here, or an sdist.
    drift reads such a wheel all the same (the Python source is the same in every wheel of a
    release) and says so, since what it read is not what `pip install` here would fetch."""
    if not filename.endswith(".whl"):
        return None
    from packaging.tags import sys_tags
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    try:
        tags = parse_wheel_filename(filename)[3]
    except InvalidWheelFilename:
        return None
    if not tags.isdisjoint(sys_tags()):
        return None
    return ", ".join(sorted({f"{t.interpreter} {t.platform}" for t in tags}))


def read_from(root: Path) -> str:
    """The file a cached release was extracted from (its completion marker records it)."""
    try:
        return (root / COMPLETE_MARKER).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def installed_name(member: str) -> str | None:
    """Where pip puts a wheel member: `<dist>.data/purelib/pkg/x.py` and `.../platlib/...` go to
    the root like any package (openrlhf ships that way); scripts, headers and data never hold
    importable code and are left out."""
    head, _, rest = member.partition("/")
    if head.endswith(".data"):
        scheme, _, inner = rest.partition("/")
        return inner if scheme in ("purelib", "platlib") and inner else None
    return member


def wanted_members(archive: zipfile.ZipFile, skipped: list[str] | None = None) -> list[zipfile.ZipInfo]:
    """The members drift keeps: `.py` files and `.dist-info/` metadata, never outside the root.

    A member whose directory entry says it inflates past its cap (`limits.member_cap`: a `.py`
    larger than the probe ever parses, a METADATA of hundreds of MB, a zip64 size of 2**62) is
    left out and its name added to `skipped`; zipfile never inflates past the size the
    directory gives, so the cap holds for what is really read. More than MAX_RELEASE_BYTES kept
    in all is FetchTooLarge."""
    out, total = [], 0
    for info in archive.infolist():
        name = info.filename
        if info.is_dir() or not (name.endswith(".py") or ".dist-info/" in name):
            continue
        if name.startswith("/") or ".." in name.split("/"):  # the parts Path(name) would give, 10x cheaper
            continue  # never write outside dest
        if installed_name(name) is None:
            continue
        if info.file_size > member_cap(name):
            if skipped is not None:
                skipped.append(f"{name} ({info.file_size} bytes)")
            continue
        total += info.file_size
        if total > MAX_RELEASE_BYTES:
            raise FetchTooLarge(f"the release's sources inflate to more than {MAX_RELEASE_BYTES // 2**20} MB: "
                                "not a release drift reads")
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
        with release_lock(dest):
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
            # plain import names only: `../../outside/pkg` would read files outside the release
            names = [n.strip() for n in top.read_text(errors="replace")[:65536].splitlines() if n.strip().isidentifier()]
            if names:
                return names
        record = info / "RECORD"
        if record.exists():
            tops = set()
            pack = Pack.open(pack_path(root))
            for line in record.read_text().splitlines():
                first = line.split(",", 1)[0].split("/", 1)[0]
                if first.isidentifier() and (
                        (root / first).is_dir() or pack is not None and pack.has_dir(first)):
                    tops.add(first)
            if tops:
                return sorted(tops)
    guess = norm
    if (root / guess).is_dir():
        return [guess]
    pack = Pack.open(pack_path(root))
    # the directory asked again: a tree written out of the pack meanwhile is in place before the pack goes
    return [guess] if pack is not None and pack.has_dir(guess) or (root / guess).is_dir() else []
