"""Facts kept per package digest, loaded lazily module by module.

A check touches a few dozen of vLLM's 1,359 modules. Keeping each module's facts as its own
marshal blob means a warm check decodes only those; whole-package questions (which classes
define `get_input_embeddings`, which methods are two-phase) are answered by small derived
indexes computed once per digest and stored beside the blobs.

The blobs also stay on disk until a module is read (`.lfacts`: a small header, then the blobs
end to end, mapped with mmap): a whole-file `marshal.load` of vLLM 0.23's 34 MB of facts cost
25-40 ms of CPU per package, two per check, though a speculators check reads 73 modules of them.
A `.facts` file of the earlier layout (one marshal of every blob) is still read, and rewritten
in this layout once.
"""

from __future__ import annotations

import functools
import marshal
import mmap
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from drift.probes.ast_facts import FACTS_VERSION

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
_HEX = re.compile(r"^[0-9a-f]{40,64}$")
_SUFFIX = re.compile(r"^[A-Za-z0-9_.-]{1,80}$")  # no separator: never leaves the directory
_TAG = f"f{FACTS_VERSION}-py{sys.version_info[0]}{sys.version_info[1]}"


class LazyModules(Mapping):
    """name -> value (a module's facts, one key's answer of a derived index), decoded from its
    marshal blob on first access."""

    def __init__(self, blobs: dict[str, bytes]):
        self._blobs = blobs
        self._done: dict[str, dict] = {}

    def __getitem__(self, name: str) -> dict:
        hit = self._done.get(name)
        if hit is None:
            hit = self._done[name] = marshal.loads(self._blobs[name])
        return hit

    def __contains__(self, name: object) -> bool:
        return name in self._blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)


class _Slices(Mapping):
    """name -> the module's blob, sliced out of the mapped `.lfacts` file when asked."""

    def __init__(self, view, spans: dict[str, tuple[int, int]]):
        self._view, self._spans = view, spans

    def __getitem__(self, name: str) -> bytes:
        start, end = self._spans[name]
        return self._view[start:end]

    def __contains__(self, name: object) -> bool:
        return name in self._spans

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


_LAZY_MAGIC = b"DRIFTLF1"  # then the header's length (8 bytes, little-endian), the header, the blobs


def _lazy_bytes(meta: dict[str, Any], blobs: Mapping[str, bytes]) -> list[bytes]:
    """The `.lfacts` layout of a package: the header (meta, module names, each blob's end) and the blobs."""
    names, ends, at = [], [], 0
    for name, blob in blobs.items():
        at += len(blob)
        names.append(name)
        ends.append(at)
    header = marshal.dumps({"meta": meta, "names": names, "ends": ends})
    return [_LAZY_MAGIC, len(header).to_bytes(8, "little"), header, *blobs.values()]


def _read_lazy(path: Path) -> tuple[dict[str, Any], _Slices] | None:
    """(meta, blobs) of a `.lfacts` file, its blobs left in the mapping; None when absent or not that layout."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
            if len(head) != 16 or head[:8] != _LAZY_MAGIC:
                return None
            size = int.from_bytes(head[8:], "little")
            header = marshal.loads(fh.read(size))
            view = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)  # stays valid after the file closes
    except (OSError, ValueError, EOFError, TypeError):
        return None
    try:
        names, ends, meta = header["names"], header["ends"], header["meta"]
        base = 16 + size
        if len(names) != len(ends) or (ends and base + ends[-1] != len(view)):
            return None  # cut short: read as absent
        spans, start = {}, base
        for name, end in zip(names, ends):
            spans[name] = (start, base + end)
            start = base + end
    except (KeyError, TypeError):
        return None
    return meta, _Slices(view, spans)


class FactsStore:
    """One directory; a package's facts live under `<package>-<digest>.<tag>`.

    Reads are memoised for the life of the store, so a fleet of hosts running the same vLLM
    build decodes its facts and indexes once, not once per host.
    """

    def __init__(self, root: Path):
        self.root = root
        self._facts: dict[tuple[str, str], dict[str, Any]] = {}
        self._indexes: dict[tuple[str, str, str], Any] = {}

    def has(self, package: str, digest: str) -> bool:
        if (package, digest) in self._facts:
            return True
        try:
            return self._path(package, digest, "lfacts").exists() or self._path(package, digest, "facts").exists()
        except ValueError:
            return False

    def latest(self, package: str) -> str | None:
        """The digest of this package drift stored most recently (from any host or tree)."""
        try:
            return (self.root / f"{package}.latest").read_text().strip() or None
        except OSError:
            return None

    def _path(self, package: str, digest: str, suffix: str) -> Path:
        # the last guard before a file name: only an import name and a hex digest get here
        if not _NAME.match(package) or not _HEX.match(digest) or not _SUFFIX.match(suffix):
            raise ValueError(f"not a facts cache key: {package[:40]!r} {digest[:80]!r} {suffix[:40]!r}")
        return self.root / f"{package}-{digest[:40]}.{_TAG}.{suffix}"

    def get(self, package: str, digest: str) -> dict[str, Any] | None:
        hit = self._facts.get((package, digest))
        if hit is not None:
            return dict(hit)  # a fresh outer dict; modules (lazy) are shared
        try:
            lazy = self._path(package, digest, "lfacts")
        except ValueError:  # a bad key
            return None
        got = _read_lazy(lazy)
        if got is None:
            try:  # the earlier layout: read whole, and kept in the lazy one from now on
                data = marshal.loads(self._path(package, digest, "facts").read_bytes())
                got = data["meta"], data["modules"]
            except (OSError, ValueError, EOFError, TypeError, KeyError):
                return None
            try:
                self._write_parts(lazy, _lazy_bytes(*got))
            except (OSError, ValueError):
                pass  # read from the old file again next time
        pkg = dict(got[0])
        pkg["modules"] = LazyModules(got[1])
        self._facts[(package, digest)] = pkg
        return dict(pkg)

    def put(self, package: str, pkg: dict[str, Any]) -> None:
        digest = pkg.get("digest")
        if not digest:
            return
        self._write(self.root / f"{package}.latest", digest.encode())
        if self.has(package, digest):
            return  # same digest, same code: already stored
        modules = pkg.get("modules") or {}
        blobs = {name: marshal.dumps(dict(mod)) for name, mod in modules.items()}
        meta = {k: v for k, v in pkg.items() if k != "modules"}
        self._write_parts(self._path(package, digest, "lfacts"), _lazy_bytes(meta, blobs))

    def get_index(self, package: str, digest: str, name: str) -> Any:
        key = (package, digest, name)
        if key in self._indexes:
            return self._indexes[key]
        try:
            value = marshal.loads(self._path(package, digest, f"idx-{name}").read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        self._indexes[key] = value
        return value

    def put_index(self, package: str, digest: str, name: str, value: Any) -> None:
        self._indexes[(package, digest, name)] = value
        try:
            self._write(self._path(package, digest, f"idx-{name}"), marshal.dumps(value))
        except ValueError:
            pass  # not marshalable: it will simply be rebuilt next time

    def get_keyed_index(self, package: str, digest: str, name: str) -> Mapping | None:
        """A derived mapping stored key by key (`put_keyed_index`): each key's value is decoded
        when it is read. Why: a check asks a few hundred of call_sites' 4,116 keys, and decoding
        the whole 1.8 MB index was a fifth of a warm vllm_ascend check."""
        key = (package, digest, "keyed-" + name)
        if key in self._indexes:
            return self._indexes[key]
        try:
            blobs = marshal.loads(self._path(package, digest, f"kidx-{name}").read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if type(blobs) is not dict:
            return None
        value = self._indexes[key] = LazyModules(blobs)
        return value

    def put_keyed_index(self, package: str, digest: str, name: str, value: Mapping) -> None:
        try:
            blobs = {k: marshal.dumps(v) for k, v in value.items()}
            self._write(self._path(package, digest, f"kidx-{name}"), marshal.dumps(blobs))
        except ValueError:
            return  # not marshalable: it will simply be rebuilt next time
        self._indexes[(package, digest, "keyed-" + name)] = LazyModules(blobs)

    def _write(self, path: Path, data: bytes) -> None:
        self._write_parts(path, [data])

    def _write_parts(self, path: Path, parts: list[bytes]) -> None:
        """`parts` end to end, written atomically (a reader maps the old file or the new, never half)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.writelines(parts)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


@functools.lru_cache(maxsize=4)
def _store_at(root: str) -> FactsStore:
    return FactsStore(Path(root))


def default_store() -> FactsStore:
    """The store under the user cache; one instance per cache root in a process."""
    from drift.sources.cache import cache_root

    return _store_at(str(cache_root() / "facts"))
