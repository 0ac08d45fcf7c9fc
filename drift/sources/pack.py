"""A fetched release's sources as one file: `<cache>/sources/<name>-<version>.pack`.

A range fetch of vLLM brings 1,365 members (18 MB inflated). Writing them as 1,365 files costs
0.3-0.45 s of kernel time per release on this machine (ext4, other sessions writing too), and
up to 1.3 s under load, against ~0.01 s for one file; a demand-driven check then reads every
one of them back to search the text. So a range fetch writes the `.dist-info` directory as
files (pip's metadata readers, `dist_for` and `top_level_packages`, read it where they always
have) and every member into one pack beside the release's directory; `drift.model.demand` reads
modules from the pack, and the tree is written from it only when something asks for a tree
(`materialize`: the whole-package probe of `drift diff` and `drift snapshot`, a consumer,
tests). Once the tree is there the pack is removed, so "a pack beside it" always means "the
packages are in the pack, not in the directory".

Format: b"DRIFTPK1", the index's length (8 bytes, little-endian), the marshal-ed index
`{relpath: (offset, size, sha256 hex)}` (offsets into the data after it), then the members'
bytes. The sha256 is computed once, while writing, so reading a release hashes nothing.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

MAGIC = b"DRIFTPK1"


def pack_path(root: Path) -> Path:
    """Where the pack of the release extracted (or to be extracted) at `root` lives."""
    return root.with_name(root.name + ".pack")


def write_pack(path: Path, members: Iterable[tuple]) -> None:
    """Write `members` (relative path, content[, its sha256 hex when already known]) as a pack
    at `path`, atomically."""
    index, chunks, offset = {}, [], 0
    for rel, data, *known in members:
        index[rel] = (offset, len(data), (known[0] if known else None) or hashlib.sha256(data).hexdigest())
        chunks.append(data)
        offset += len(data)
    head = marshal.dumps(index)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + len(head).to_bytes(8, "little") + head)
            fh.writelines(chunks)
            stamp = _stamp(os.fstat(fh.fileno()))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _remember(path, stamp, index, {rel: bytes(data) for rel, data in zip(index, chunks)})


# Packs this process wrote, with their members' bytes: a check from nothing reads a release's
# modules right after its fetch wrote them, and reading the 18 MB back and slicing it again
# was ~0.04 s per release on the critical path. Used only while the file is the one written
# (same inode, size and mtime); the few most recent are kept (the bytes are the ones the
# modules' sources then hold, so this adds no copy).
_WRITTEN: dict[str, tuple[tuple[int, int, int], dict, dict[str, bytes]]] = {}
_KEEP = 4


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _remember(path: Path, stamp, index: dict, members: dict[str, bytes]) -> None:
    key = str(path)
    _WRITTEN.pop(key, None)
    _WRITTEN[key] = (stamp, index, members)
    while len(_WRITTEN) > _KEEP:
        _WRITTEN.pop(next(iter(_WRITTEN)))


def _written(path: Path) -> tuple[dict, dict[str, bytes]] | None:
    hit = _WRITTEN.get(str(path))
    if hit is None:
        return None
    try:
        if _stamp(os.stat(path)) == hit[0]:
            return hit[1], hit[2]
    except OSError:
        pass
    _WRITTEN.pop(str(path), None)  # replaced or removed since: read what is on disk now
    return None


class Pack:
    """An open pack: the index, read when opened; the members' bytes, read in one `read()` the
    first time one is asked for (a `has_dir` question reads only the index)."""

    def __init__(self, path: Path):
        self._members: dict[str, bytes] | None = None
        mine = _written(path)
        if mine is not None:  # written by this process a moment ago: its bytes are still here
            self.path, (self.index, self._members), self._fh, self._data = path, mine, None, None
            return
        fh = open(path, "rb")  # kept until the data is read: a fetch replacing the file meanwhile
        try:                   # leaves this index and these bytes one file
            head = fh.read(16)
            if len(head) < 16 or head[:8] != MAGIC:
                raise ValueError(f"{path} is not a drift source pack")
            index = marshal.loads(fh.read(int.from_bytes(head[8:16], "little")))
            if type(index) is not dict:
                raise ValueError(f"{path} is not a drift source pack")
        except BaseException:
            fh.close()
            raise
        self.path = path
        self.index: dict[str, tuple[int, int, str]] = index
        self._fh = fh
        self._data: memoryview | None = None

    def _blob(self) -> memoryview:
        if self._data is None:
            self._data = memoryview(self._fh.read())
            self._fh.close()
        return self._data

    def __del__(self) -> None:
        fh = getattr(self, "_fh", None)
        if fh is not None:
            fh.close()

    @classmethod
    def open(cls, path: Path) -> "Pack | None":
        try:
            return cls(path)
        except (OSError, ValueError, EOFError, TypeError):
            return None

    def read(self, rel: str) -> bytes | None:
        if self._members is not None:
            return self._members.get(rel)
        hit = self.index.get(rel)
        return None if hit is None else bytes(self._blob()[hit[0]:hit[0] + hit[1]])

    def tops(self) -> set[str]:
        """The top-level names (package directories, single-file modules, the .dist-info)."""
        return {rel.split("/", 1)[0] for rel in self.index}

    def has_dir(self, name: str) -> bool:
        prefix = name + "/"
        return any(rel.startswith(prefix) for rel in self.index)

    def entries(self, package: str) -> list[tuple[str, int, str]]:
        """(relpath, size, sha256) of the modules `probes.locate.walk_tree` would list for
        `package` in the extracted tree: every `*.py` below `package/` outside `__pycache__`
        and dot-directories, or `package.py` when there is no such directory."""
        prefix = package + "/"
        out = []
        for rel, (_off, size, sha) in self.index.items():
            if not rel.startswith(prefix) or not rel.endswith(".py"):
                continue
            dirs = rel.split("/")[1:-1]
            if any(d == "__pycache__" or d.startswith(".") for d in dirs):
                continue
            out.append((rel, size, sha))
        if not out and not self.has_dir(package) and package + ".py" in self.index:
            _off, size, sha = self.index[package + ".py"]
            out.append((package + ".py", size, sha))
        out.sort()
        return out


def materialize(root: Path) -> bool:
    """Write the packed members of the release at `root` as files (what the tree always held),
    then remove the pack. Returns whether there was a pack to write out. Safe to repeat after
    a crash: a top-level entry already there is replaced."""
    path = pack_path(root)
    if not path.exists():
        return False
    from drift.sources.cache import release_lock

    with release_lock(root):  # a second materialize would rmtree the tops the first wrote, under its readers
        return _materialize(root, path)


def _materialize(root: Path, path: Path) -> bool:
    pack = Pack.open(path)
    if pack is None:
        return False
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.tree.", dir=root.parent))
    try:
        made: set[Path] = set()
        for rel in pack.index:
            target = tmp / rel
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            with open(target, "wb") as out:
                out.write(pack.read(rel) or b"")
        root.mkdir(parents=True, exist_ok=True)
        for top in sorted(pack.tops()):
            dest = root / top
            if dest.is_dir() and not dest.is_symlink():
                shutil.rmtree(dest)
            elif dest.exists() or dest.is_symlink():
                dest.unlink()
            os.replace(tmp / top, dest)
        path.unlink(missing_ok=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return True
