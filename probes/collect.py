"""Facts of one package directory: walk, reuse cached facts, parse the rest in parallel.

Parsing is the cost (≈2 s of `ast.parse` for a full vLLM tree), so changed files are parsed by
forked workers (plain `os.fork`: the probe usually runs as a script fed on stdin, `python3 -`,
where spawn/forkserver cannot re-import `__main__`, and a Pool's locks need /dev/shm). Workers
inherit the job list through the fork, pull chunk ids from one pipe (largest files first, so
both finish together) and stream facts back as marshal blobs, which the parent decodes while
they work and writes to the cache as they are. If a worker dies, whatever it did not deliver
is parsed in-process.
The cyclic GC is paused while millions of AST nodes come and go: none of them form cycles.
"""

import contextlib
import gc
import hashlib
import marshal
import os
import selectors
import signal

from . import background
from . import cache as _cache
from .ast_facts import empty_module, module_facts
from .distinfo import dist_for
from .guard import guarded
from .locate import MAX_FILE_BYTES, module_name, stat_entries

_PARALLEL_MIN_FILES = 24
_CHUNK_BYTES = 64_000  # source bytes per work unit: small enough that workers finish together
_MAX_CHUNKS = 1000  # 4-byte ids in one pipe write must stay <= PIPE_BUF (4096)
_REPLY_BYTES = 1_500_000  # source bytes per reply blob (≈1 MB of facts)
_TAIL_CHUNKS = 16  # the last chunks (the smallest files) are replied one by one


def digest_of(modules: dict) -> str:
    """sha256 over (path, sha256) of every module, sorted by path."""
    h = hashlib.sha256()
    for m in sorted(modules.values(), key=lambda m: m["path"]):
        h.update(("%s\0%s\n" % (m["path"], m["sha256"] or "")).encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def scan_index(root_dir: str, package: str, *, cache_dir, max_file_bytes: int = MAX_FILE_BYTES):
    """Digest of the package when the cache index vouches for every file, else None.

    Lets a caller that already holds a digest answer "unchanged" without loading any facts.
    """
    cache_dir = _cache.resolve_dir(cache_dir)
    entries, _ = stat_entries(root_dir, package)
    index = _cache.load_index(cache_dir, root_dir, package)
    pairs = {}
    for rel, _path, size, mtime, error in entries:
        row = index.get(rel)
        if error is None and size > max_file_bytes:
            pairs[rel] = {"path": rel, "sha256": None}
            continue
        if error is not None:
            pairs[rel] = {"path": rel, "sha256": None}
            continue
        if row is None or row[0] != size or row[1] != mtime:
            return None
        pairs[rel] = {"path": rel, "sha256": row[2]}
    return digest_of(pairs)


def collect_package(root_dir, package: str, *, cache_dir, max_file_bytes: int = MAX_FILE_BYTES,
                    workers=None, stats=None, use_importlib: bool = False) -> dict:
    """The per-package object of SCHEMA.md for `root_dir/<package>`.

    `stats` (optional dict) accumulates "parsed" and "cached" counts; `use_importlib` lets
    metadata come from the running interpreter when no .dist-info sits beside the package.
    """
    root_dir = os.fspath(root_dir)
    cache_dir = _cache.resolve_dir(cache_dir)
    with gc_paused():
        modules, errors, parsed, cached = _modules(root_dir, package, cache_dir=cache_dir,
                                                   max_file_bytes=max_file_bytes, workers=workers)
    if stats is not None:
        stats["parsed"] = stats.get("parsed", 0) + parsed
        stats["cached"] = stats.get("cached", 0) + cached
    info = dist_for(root_dir, package, use_importlib=use_importlib)
    return {
        "name": package, "dist": info["dist"], "version": info["version"],
        "root": os.path.abspath(root_dir), "digest": digest_of(modules),
        "requires": info["requires"], "modules": modules, "errors": errors,
    }


def _promote_young():
    """Move every tracked object to the oldest GC generation without traversing it.

    The facts are ~a million acyclic containers allocated while the collector was paused; the
    first allocation after `gc.enable()` would traverse all of them (≈0.1 s, half a warm run)
    and again in generation 1. freeze + unfreeze is that promotion in O(1). Skipped when the
    caller keeps frozen objects of its own (unfreeze would release them).
    """
    if hasattr(gc, "get_freeze_count") and gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


@contextlib.contextmanager
def gc_paused():
    """The cyclic collector paused while a burst of acyclic objects is made (module facts
    parsed here, a host's reply decoded): each collection such a burst triggers re-walks
    everything already held (the other release's facts, the sources) to free nothing;
    measured over a cold check's ~40 one-by-one parses, 10-50 % of their time, and 0.09 ->
    0.18 s for a 6 MB reply. Objects made meanwhile are promoted in O(1) on the way out."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        _promote_young()
        gc.enable()


def _modules(root_dir, package, *, cache_dir, max_file_bytes, workers):
    entries, errors = stat_entries(root_dir, package)
    index = _cache.load_index(cache_dir, root_dir, package)
    old_chunks = _cache.load_chunks(cache_dir, root_dir, package) if index else []
    facts = {}
    for _blob, chunk in old_chunks:
        facts.update(chunk)
    modules, new_index, kept, jobs = {}, {}, set(), {}
    for rel, path, size, mtime, error in entries:
        name = module_name(rel)
        if error is None and size > max_file_bytes:
            error = "too large: %d bytes" % size
        if error is not None:
            modules[name] = empty_module(rel, sha256=None, is_package=rel.endswith("__init__.py"), error=error)
            continue
        old = facts.get(rel)
        row = index.get(rel)
        if old is not None and row is not None and row[0] == size and row[1] == mtime \
                and old.get("sha256") == row[2]:
            modules[name] = old
            new_index[rel] = row
            kept.add(rel)
            continue
        source = _read(path, size, max_file_bytes + 1)  # here: in a worker, reads cost +10% CPU
        if type(source) is str:
            modules[name] = empty_module(rel, sha256=None, is_package=rel.endswith("__init__.py"), error=source)
            continue
        sha = None  # hashed by the worker, unless a cached entry needs the hash now
        if old is not None:
            sha = hashlib.sha256(source).hexdigest()
            if old.get("sha256") == sha:
                modules[name] = old
                new_index[rel] = (size, mtime, sha)
                kept.add(rel)
                continue
        jobs[rel] = (name, rel, sha, source, size, mtime)
    new_chunks = []
    for chunk, blob in _parse_all(list(jobs.values()), workers=workers):
        for rel, m in chunk.items():
            job = jobs[rel]
            modules[job[0]] = m
            new_index[rel] = (job[4], job[5], m["sha256"])
        new_chunks.append((blob, chunk))
    modules = {name: modules[name] for name in sorted(modules)}  # workers finish in any order
    for m in modules.values():
        if m["error"]:
            errors.append({"path": m["path"], "error": m["error"]})
    errors.sort(key=lambda e: e["path"])
    if cache_dir is not None and (jobs or len(new_index) != len(index) or len(kept) != len(facts)):
        blobs = _cache_blobs(old_chunks, kept) + _cache_blobs(new_chunks, new_index)
        _cache.store(cache_dir, root_dir, package, index=new_index, blobs=blobs)
    return modules, errors, len(jobs), len(kept)


def _cache_blobs(chunks, wanted):
    """Blobs for the cache: a chunk's own blob when all of it is `wanted`, else re-encoded."""
    out = []
    for blob, chunk in chunks:
        if blob is not None and all(rel in wanted for rel in chunk):
            out.append(blob)
            continue
        part = {rel: m for rel, m in chunk.items() if rel in wanted}
        if part:
            out.append(marshal.dumps(part))
    return out


def _read(path, size, limit):
    """Up to `limit` bytes of the file, or the "unreadable: …" error text (os.read: half the
    cost of open().read() for a thousand small files)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return "unreadable: %s: %s" % (type(exc).__name__, exc.strerror or exc)
    try:
        parts, n = [], 0
        while n < limit:
            part = os.read(fd, min(limit - n, max(size + 1, 65536)))
            if not part:
                break
            parts.append(part)
            n += len(part)
    except OSError as exc:
        return "unreadable: %s: %s" % (type(exc).__name__, exc.strerror or exc)
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _parse_one(job):
    """Facts of one file; a file too deep to walk becomes a module with its error, never a
    crash of the worker or the probe (probes.guard)."""
    name, rel, sha, source = job[:4]
    if sha is None:
        sha = hashlib.sha256(source).hexdigest()
    facts, why = guarded(module_facts, source, module=name, path=rel, sha256=sha, retry_if=_recursed)
    if facts is None:
        facts = empty_module(rel, sha256=sha, is_package=rel.endswith("__init__.py"), error=why)
    return facts


def _recursed(facts):
    return str(facts.get("error") or "").startswith("RecursionError")


def _parse_all(jobs, *, workers):
    """[(relpath -> facts, marshal blob of that dict or None)] covering every job."""
    n = _worker_count(len(jobs), workers)
    out = []
    if n > 1 and hasattr(os, "fork"):
        try:
            out = _forked(jobs, _chunks(jobs), n)
        except OSError:  # no fork, no pipes (rlimits, seccomp): parse here
            pass
    done = sum(len(chunk) for chunk, _ in out)
    if done < len(jobs):  # serial, or a worker died: parse whatever is missing in-process
        have = set()
        for chunk, _ in out:
            have.update(chunk)
        out.append(({j[1]: _parse_one(j) for j in jobs if j[1] not in have}, None))
    return out


def _worker_count(n_jobs, workers):
    if workers is not None:
        return max(1, min(int(workers), n_jobs))
    if n_jobs < _PARALLEL_MIN_FILES:
        return 1
    return max(1, min(background.cpus(), 16, n_jobs // 8))


def _chunks(jobs):
    """Job indices in chunks, largest files first, so the last chunks are small and both end together."""
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][3]))
    total = sum(len(j[3]) for j in jobs)
    limit = max(_CHUNK_BYTES, total // _MAX_CHUNKS + 1)
    chunks, chunk, size = [], [], 0
    for i in order:
        chunk.append(i)
        size += len(jobs[i][3])
        if size >= limit:
            chunks.append(chunk)
            chunk, size = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def _forked(jobs, chunks, n):
    """(relpath -> facts, blob) per chunk, parsed by `n` forked workers pulling chunk ids from a pipe.

    All ids are written before the fork (they fit in PIPE_BUF, so the write never blocks) and
    each worker reads 4 bytes at a time: a queue without locks or semaphores. Workers inherit
    `jobs` through the fork and stream back length-prefixed marshal blobs (`_work`), which
    also go to the cache as they are.
    """
    qr, qw = os.pipe()
    try:
        os.write(qw, b"".join(i.to_bytes(4, "little") for i in range(len(chunks))))
    finally:
        os.close(qw)
    pids, fds = [], []
    try:
        for _ in range(n):
            rr, rw = os.pipe()
            try:
                pid = os.fork()
            except OSError:
                os.close(rr)
                os.close(rw)
                if not pids:
                    raise
                break
            if pid == 0:  # worker: never returns
                code = 1
                try:
                    os.close(rr)
                    for fd in fds:
                        os.close(fd)
                    _work(qr, rw, jobs, chunks)
                    code = 0
                finally:
                    os._exit(code)
            os.close(rw)
            pids.append(pid)
            fds.append(rr)
    finally:
        os.close(qr)
    return _gather(fds, pids)


def _work(queue_fd, out_fd, jobs, chunks):
    """Parse chunks until the queue is empty, replying every `_REPLY_BYTES` of source.

    Replies bigger than a chunk: each blob repeats the strings it shares with the others, so
    fewer blobs load faster from the cache; small enough that the parent decodes while we work.
    """
    gc.disable()
    facts, size = {}, 0
    tail = len(chunks) - _TAIL_CHUNKS  # from here on reply per chunk: the parent decodes the
    while True:                          # last reply alone, with the other core idle
        rec = os.read(queue_fd, 4)
        done = len(rec) < 4
        k = -1 if done else int.from_bytes(rec, "little")
        if not done:
            for i in chunks[k]:
                facts[jobs[i][1]] = _parse_one(jobs[i])
                size += len(jobs[i][3])
        if facts and (done or size >= _REPLY_BYTES or k >= tail):
            blob = marshal.dumps(facts)
            view = memoryview(len(blob).to_bytes(8, "little") + blob)
            while view:
                view = view[os.write(out_fd, view):]
            facts, size = {}, 0
        if done:
            return


def _gather(fds, pids):
    """Decode the workers' blobs as they arrive; reap the workers (killing them on error)."""
    out = []
    bufs = {fd: bytearray() for fd in fds}
    sel = selectors.DefaultSelector()
    ok = False
    try:
        for fd in fds:
            sel.register(fd, selectors.EVENT_READ)
        while bufs:
            for key, _ in sel.select():
                fd = key.fd
                data = os.read(fd, 1 << 20)
                buf = bufs[fd]
                if not data:
                    sel.unregister(fd)
                    del bufs[fd]
                    continue
                buf += data
                while len(buf) >= 8:
                    end = 8 + int.from_bytes(buf[:8], "little")
                    if len(buf) < end:
                        break
                    blob = bytes(buf[8:end])
                    out.append((marshal.loads(blob), blob))
                    del buf[:end]
        ok = True
    finally:
        sel.close()
        for fd in fds:
            os.close(fd)
        for pid in pids:
            if not ok:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
    return out
