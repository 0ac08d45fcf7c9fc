"""Facts cache by file content, so re-scanning an unchanged install parses and reads nothing.

Per package root two files: an index `relpath -> (size, change stamp, sha256)` (the stamp is
(mtime_ns, ctime_ns, dev, ino), `locate.stat_entries`) and the module facts,
marshal blobs each holding `relpath -> facts` for some modules (facts depend on the
module name, hence relpath, and are validated by sha256). The blobs are the parse workers' own
replies, so a cold run writes them as received instead of encoding 10 MB again; a snapshot of an
unchanged tree stats every file, finds each in the index and decodes the blobs. marshal
is the fastest stdlib loader for plain dicts; its format is only stable within one Python
version, so the file name carries it. Anything unreadable or
malformed is treated as a miss (the files are re-parsed); writes are temp file + rename.
"""

import hashlib
import marshal
import os
import sys
import tempfile

from .ast_facts import FACTS_VERSION

DEFAULT_DIR = "~/.cache/drift/probe"


def resolve_dir(cache_dir):
    """Expand `~`; None stays None (no cache)."""
    if cache_dir is None:
        return None
    return os.path.abspath(os.path.expanduser(str(cache_dir)))


def _stem(cache_dir: str, root_dir: str, package: str) -> str:
    key = hashlib.sha256(("%s\0%s" % (os.path.abspath(root_dir), package)).encode("utf-8", "replace"))
    tag = "py%d%d-f%s-b" % (sys.version_info[0], sys.version_info[1], FACTS_VERSION)
    return os.path.join(cache_dir, "%s-%s-%s" % (package, key.hexdigest()[:16], tag))


def _load(path):
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return data if type(data) is dict else None


def load_index(cache_dir, root_dir: str, package: str) -> dict:
    """relpath -> (size, change stamp, sha256); {} when absent or corrupt."""
    if cache_dir is None:
        return {}
    data = _load(_stem(cache_dir, root_dir, package) + ".index")
    if data is None or data.get("root") != os.path.abspath(root_dir) or data.get("package") != package:
        return {}
    files = data.get("files")
    if type(files) is not dict:
        return {}
    out = {}
    for rel, row in files.items():
        if type(row) is tuple and len(row) == 3 and type(row[2]) is str:
            out[rel] = row
    return out


def load_chunks(cache_dir, root_dir: str, package: str) -> list:
    """[(blob, relpath -> module facts)]; [] when absent, corrupt blobs skipped.

    Callers check facts["sha256"] against the index. The file is an 8-byte header length, a
    marshal header with the blob sizes, then the blobs back to back: decoded in place, never
    copied out of the file's bytes."""
    if cache_dir is None:
        return []
    try:
        with open(_stem(cache_dir, root_dir, package) + ".facts", "rb") as f:
            data = memoryview(f.read())
        end = 8 + int.from_bytes(data[:8], "little")
        header = marshal.loads(data[8:end])
        sizes = header["sizes"]
    except (OSError, EOFError, ValueError, TypeError, KeyError, IndexError):
        return []
    out = []
    for size in sizes if type(sizes) is list else ():
        if type(size) is not int or size < 0 or end + size > len(data):
            break
        blob = data[end:end + size]
        end += size
        try:
            chunk = marshal.loads(blob)
        except (EOFError, ValueError, TypeError):
            continue
        if type(chunk) is dict and all(type(m) is dict for m in chunk.values()):
            out.append((blob, chunk))
    return out


def store(cache_dir, root_dir: str, package: str, *, index: dict, blobs: list) -> None:
    """Write facts then index atomically; a failure to write only costs the next run a parse.

    `blobs` are marshal blobs (bytes-like) of `relpath -> facts` dicts."""
    if cache_dir is None:
        return
    stem = _stem(cache_dir, root_dir, package)
    base = {"root": os.path.abspath(root_dir), "package": package}
    try:
        os.makedirs(cache_dir, exist_ok=True)
        header = marshal.dumps(dict(base, sizes=[len(b) for b in blobs]))
        _atomic_write(stem + ".facts", [len(header).to_bytes(8, "little"), header] + blobs)
        _atomic_write(stem + ".index", [marshal.dumps(dict(base, files=index))])
    except (OSError, ValueError):
        pass


def _atomic_write(path: str, parts: list) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            for part in parts:
                f.write(part)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
