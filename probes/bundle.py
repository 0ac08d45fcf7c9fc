"""One self-contained script that runs the probe on a host: `python3 - < script`.

The probe's own sources are embedded (one zlib-compressed JSON blob, base64) and served by a tiny
meta-path importer under a private package name, so nothing is installed or written on the host
and any Python 3.9+ runs it. The request is embedded as a JSON literal. Why compressed: a Python
with unbuffered stdio (PYTHONUNBUFFERED in the host's environment, as ML images' profiles often
set) reads a `python -` script from stdin one byte per read(2) (measured: 100,025 reads for a
100 KB script), ~1-2 us a byte and far more on a loaded host, so the 283 KB of plain sources cost
0.3-0.5 s before the probe ran; compressed the script is ~105 KB (buffered stdin reads it in 4 KB
blocks either way). Output is a marker line plus zlib-compressed JSON,
so shell noise before it (motd, profile echoes) is skipped and a truncated stream is detected.
"""

import base64
import functools
import hashlib
import json
import os
import zlib

from .cache import DEFAULT_DIR as _DEFAULT_CACHE

MAGIC = b"DRIFT1\n"
_PACKAGE = "_drift_probes"
_MODULES = ("srctext", "outline", "derefs", "behaviour", "ast_facts", "locate", "distinfo", "cache", "guard", "collect", "shapes",
            "environment", "reach", "usage", "consumer_scan", "closure", "hostdemand", "main")

_TEMPLATE = r'''# drift probe bundle: stdlib only, reads sources, imports nothing it inspects.
import sys
import json
import zlib
import base64
import importlib.abc
import importlib.machinery
import importlib.util

_PACKAGE = %(package)r
_SOURCES = json.loads(zlib.decompress(base64.b64decode(%(sources)r)).decode("utf-8"))
_REQUEST = json.loads(%(request)r)
_MAGIC = importlib.util.MAGIC_NUMBER


class _Embedded(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == _PACKAGE:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        head, _, tail = fullname.rpartition(".")
        if head == _PACKAGE and tail in _SOURCES:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__name__
        if name == _PACKAGE:
            module.__path__ = []
            module.code_stats = _CODE_STATS  # probes.main reports them
            return
        tail = name.rpartition(".")[2]
        exec(_code(tail), module.__dict__)


_CODE_STATS = {"compiled": 0, "cached": 0}


def _code_dir():
    """Where compiled probe modules are kept: `code/` of the probe's cache dir (the request's,
    as probes.cache resolves it), or None when the request caches nothing on this host."""
    import os
    where = _REQUEST.get("cache_dir", %(default_cache)r) if isinstance(_REQUEST, dict) else None
    if not isinstance(where, str) or not where:
        return None
    return os.path.join(os.path.abspath(os.path.expanduser(where)), "code")


def _code(tail):
    """The module's code object: compiling the embedded sources is ~0.1 s per probe process
    (a scan runs three, a follow-up one more), so it is kept per source hash and interpreter
    in the probe's cache dir and read back with marshal; a file that does not read is compiled
    over. Nothing is written when the request caches nothing (--no-host-cache)."""
    import hashlib
    import marshal
    import os
    source = _SOURCES[tail]
    where = _code_dir()
    path = None
    if where is not None:
        key = hashlib.sha256(source.encode("utf-8")).hexdigest()[:32]
        path = os.path.join(where, "%%s-%%s.%%s.%%s" %% (tail, key, sys.implementation.cache_tag,
                                                      _MAGIC.hex()))
        try:
            with open(path, "rb") as f:
                code = marshal.loads(f.read())
            if type(code) is type(_code.__code__):
                _CODE_STATS["cached"] += 1
                return code
        except (OSError, ValueError, EOFError, TypeError):
            pass
    code = compile(source, "<drift-probe>/%%s.py" %% tail, "exec")
    _CODE_STATS["compiled"] += 1
    if path is not None:
        try:
            os.makedirs(where, mode=0o700, exist_ok=True)
            tmp = "%%s.%%d.tmp" %% (path, os.getpid())
            with open(tmp, "wb") as f:
                f.write(marshal.dumps(code))
            os.replace(tmp, path)
        except OSError:
            pass
    return code


def _main():
    sys.meta_path.insert(0, _Embedded())
    try:
        main = __import__(_PACKAGE + ".main", fromlist=["run"])
        doc = main.run(_REQUEST)
    except BaseException as exc:  # report, never a bare traceback on the wire
        import traceback
        doc = {"schema": 1, "error": "probe crashed: %%s: %%s" %% (type(exc).__name__, exc),
               "traceback": traceback.format_exc()[-4000:]}
    # the facts (packages, a follow-up's "more") as a second line: drift keys them by a hash of
    # that text alone, so two hosts with the same facts share one stored copy (decode_reply)
    body = dict((k, doc.pop(k)) for k in ("packages", "more") if k in doc)
    data = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    if body:
        data += b"\n" + json.dumps(body, separators=(",", ":")).encode("utf-8")
    out = sys.stdout.buffer
    out.write(%(magic)r + zlib.compress(data, 3))
    out.flush()


if __name__ == "__main__":
    _main()
'''


def probe_sources() -> dict:
    """name -> source text of every probes module the bundle needs: every module of the
    package, so a new helper module is never left behind (`_MODULES` only orders the known)."""
    here = os.path.dirname(os.path.abspath(__file__))
    names = list(_MODULES) + sorted(
        f[:-3] for f in os.listdir(here)
        if f.endswith(".py") and f[:-3] not in _MODULES and f not in ("__init__.py", "bundle.py"))
    out = {}
    for name in names:
        with open(os.path.join(here, name + ".py"), "r", encoding="utf-8") as f:
            out[name] = f.read()
    return out


@functools.lru_cache(maxsize=1)
def _sources_blob() -> str:
    """The probe's sources as one compressed literal, built once per process (a fleet sends it
    to every host: compressing 283 KB at level 9 is ~20 ms, not to be paid per host)."""
    data = json.dumps(probe_sources(), sort_keys=True).encode("utf-8")
    return base64.b64encode(zlib.compress(data, 9)).decode("ascii")


def build_script(request: dict) -> bytes:
    """The script to feed to a remote `python3 -`; stdout is `decode_output`'s input."""
    text = _TEMPLATE % {"package": _PACKAGE, "sources": _sources_blob(),
                        "request": json.dumps(request, sort_keys=True), "magic": MAGIC,
                        "default_cache": _DEFAULT_CACHE}
    return text.encode("utf-8")


MAX_REPLY_BYTES = 256 * 1024 * 1024  # decompressed. A bound against a host that inflates its reply
# without end, not a size budget: a whole-package reply of vLLM 0.30's facts is 64 MB as JSON (52 MB
# without the statement shapes DRIFT118 reads; vLLM 0.16: 30 MB), so a 64 MB cap refused honest hosts


def decode_output(stdout: bytes, *, max_bytes: int = MAX_REPLY_BYTES) -> dict:
    """The facts document from the bundle's stdout; ValueError says what is wrong with it."""
    return decode_reply(stdout, max_bytes=max_bytes)[0]


def decode_reply(stdout: bytes, *, max_bytes: int = MAX_REPLY_BYTES):
    """(facts document, sha256 hex of its facts line or None) from the bundle's stdout.

    The bundle writes the document's head, then, on a second line, the facts (`packages`,
    `more`); the digest is of that line's text as received, which drift keys the facts by
    (drift/remote/reply.py `wire_key`): different facts can never share it, equal facts always do,
    and it costs a hash of bytes at hand, not a JSON re-encoding of 9 MB. A reply of one line
    (any other writer) has no digest: drift keys it by re-encoding.

    The stream comes from a host, so it is inflated at most `max_bytes` far (a small zlib
    bomb must not take gigabytes of memory) and a nesting too deep for the JSON decoder is an
    error like any other malformed reply."""
    if not isinstance(stdout, (bytes, bytearray)):
        raise ValueError("probe output must be bytes, got %s" % type(stdout).__name__)
    at = stdout.find(MAGIC)
    if at < 0:
        head = bytes(stdout[:200])
        raise ValueError("probe output has no %r marker (is python3 >= 3.9 on the host?); it "
                         "starts with: %r" % (MAGIC.decode().strip(), head))
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(bytes(stdout[at + len(MAGIC):]), max_bytes + 1)
    except zlib.error as exc:
        raise ValueError("probe output is truncated or corrupt after the marker: %s" % exc) from None
    if len(data) > max_bytes:
        raise ValueError("probe output inflates to more than %d MB; refusing to read it"
                         % (max_bytes // (1024 * 1024)))
    if not inflate.eof:
        raise ValueError("probe output is truncated or corrupt: the compressed stream does not end")
    head, sep, rest = data.partition(b"\n")
    try:
        doc = json.loads(head.decode("utf-8"))
        body = json.loads(rest.decode("utf-8")) if sep else None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError("probe output is not JSON: %s" % exc) from None
    except RecursionError:
        raise ValueError("probe output is JSON nested too deeply to read") from None
    if not isinstance(doc, dict):
        raise ValueError("probe output is JSON but not an object")
    if not sep:
        return doc, None
    if not isinstance(body, dict) or not body or any(k not in ("packages", "more") or k in doc for k in body):
        raise ValueError("probe output's facts line is not an object of packages/more")
    doc.update(body)
    return doc, hashlib.sha256(rest).hexdigest()
