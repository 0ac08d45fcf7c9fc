"""Facts cache by file content, so re-scanning an unchanged install parses and reads nothing.

Per package root two files: an index `relpath -> (size, mtime_ns, sha256)` and the module facts
`relpath -> facts` (facts depend on the module name, hence relpath, and are validated by sha256).
A snapshot of an unchanged tree stats every file, finds each in the index and loads the facts
blob in one `marshal.loads`. marshal is the fastest stdlib loader for plain dicts; its format is
only stable within one Python version, so the file name carries it. Anything unreadable or
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
    tag = "py%d%d-f%s" % (sys.version_info[0], sys.version_info[1], FACTS_VERSION)
    return os.path.join(cache_dir, "%s-%s-%s" % (package, key.hexdigest()[:16], tag))


def _load(path):
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return data if type(data) is dict else None


def load_index(cache_dir, root_dir: str, package: str) -> dict:
    """relpath -> (size, mtime_ns, sha256); {} when absent or corrupt."""
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


def load_facts(cache_dir, root_dir: str, package: str) -> dict:
    """relpath -> module facts; {} when absent or corrupt. Callers check facts["sha256"]."""
    if cache_dir is None:
        return {}
    data = _load(_stem(cache_dir, root_dir, package) + ".facts")
    if data is None:
        return {}
    facts = data.get("modules")
    return facts if type(facts) is dict else {}


def store(cache_dir, root_dir: str, package: str, *, index: dict, facts: dict) -> None:
    """Write facts then index atomically; a failure to write only costs the next run a parse."""
    if cache_dir is None:
        return
    stem = _stem(cache_dir, root_dir, package)
    base = {"root": os.path.abspath(root_dir), "package": package}
    try:
        os.makedirs(cache_dir, exist_ok=True)
        _atomic_write(stem + ".facts", marshal.dumps(dict(base, modules=facts)))
        _atomic_write(stem + ".index", marshal.dumps(dict(base, files=index)))
    except (OSError, ValueError):
        pass


def _atomic_write(path: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
