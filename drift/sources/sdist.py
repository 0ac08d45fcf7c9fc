"""The `.py` files of a source distribution, read from the archive and never built.

Building an sdist runs its setup code (arbitrary, slow, and needing its build dependencies),
and `pip download` of an sdist does exactly that to learn its metadata. drift only reads
sources, so the archive is opened as data: the package directories (top level or under `src/`)
and PKG-INFO are laid out like an extracted wheel — packages at the root, a `.dist-info` with
METADATA and top_level.txt — so everything downstream reads both the same way.
"""

from __future__ import annotations

import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from packaging.utils import canonicalize_name

from drift.sources.errors import FetchError
from drift.sources.limits import MAX_RELEASE_BYTES, FetchTooLarge, member_cap

NOT_PACKAGES = {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "scripts", "tools"}


def _members(path: Path) -> Iterator[tuple[PurePosixPath, int, "callable"]]:
    """(path inside the archive without its top directory, size, opener) for each regular file.
    The size is the archive's own record; the opener never reads more than it (zipfile stops
    at the directory's size, a tar member is exactly its header's size)."""
    name = path.name.lower()
    if name.endswith(".zip"):
        try:
            zf = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise FetchError(f"{path.name} is not a readable source archive ({exc})") from None
        with zf:
            for info in zf.infolist():
                if not info.is_dir():
                    yield PurePosixPath(info.filename), info.file_size, (lambda i=info: zf.read(i))
        return
    try:
        tf = tarfile.open(path, "r:*")
    except (tarfile.TarError, OSError) as exc:
        raise FetchError(f"{path.name} is not a readable source archive ({exc})") from None
    with tf:
        for member in tf:
            if member.isfile():
                yield PurePosixPath(member.name), member.size, (lambda m=member: tf.extractfile(m).read(m.size))


def _safe(rel: PurePosixPath) -> bool:
    return bool(rel.parts) and not rel.is_absolute() and ".." not in rel.parts


def extract_sdist(archive: Path, dest: Path, *, name: str, version: str) -> list[str]:
    """Write the sdist's package sources and metadata under `dest`; the top-level names found."""
    files: dict[PurePosixPath, bytes] = {}
    pkg_info = None
    total = 0
    try:
        for path, size, read in _members(archive):
            rel = PurePosixPath(*path.parts[1:]) if len(path.parts) > 1 else path
            if not _safe(rel) or not (rel == PurePosixPath("PKG-INFO") or rel.suffix == ".py"):
                continue
            if size > member_cap(str(rel)):
                continue  # a `.py` larger than the probe parses, a PKG-INFO bomb: never inflated
            total += size
            if total > MAX_RELEASE_BYTES:
                raise FetchTooLarge(f"{archive.name}: its sources inflate to more than "
                                    f"{MAX_RELEASE_BYTES // 2**20} MB; not a source archive drift reads")
            if rel == PurePosixPath("PKG-INFO"):
                pkg_info = read()
            else:
                files[rel] = read()
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, OSError) as exc:
        raise FetchError(f"{archive.name} is not a readable source archive ({exc})") from None
    if pkg_info is None:
        raise FetchError(f"{archive.name} is not an sdist (no PKG-INFO at its top)")
    base = PurePosixPath("src") if any(p.parts[0] == "src" and len(p.parts) > 2 for p in files) else PurePosixPath()
    tops = sorted({p.relative_to(base).parts[0] for p in files
                   if _under(p, base) and len(p.relative_to(base).parts) > 1
                   and base.joinpath(p.relative_to(base).parts[0], "__init__.py") in files
                   and p.relative_to(base).parts[0] not in NOT_PACKAGES})
    if not tops:
        raise FetchError(f"{archive.name}: no Python package found in the sdist")
    for path, blob in files.items():
        if _under(path, base) and path.relative_to(base).parts[0] in tops:
            target = dest.joinpath(*path.relative_to(base).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
    info = dest / f"{canonicalize_name(name).replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_bytes(pkg_info)
    (info / "top_level.txt").write_text("".join(t + "\n" for t in tops))
    return tops


def _under(path: PurePosixPath, base: PurePosixPath) -> bool:
    return not base.parts or path.parts[: len(base.parts)] == base.parts
