"""Facts of one package directory: walk, reuse cached facts, parse the rest in parallel.

Parsing is the cost (≈2 s of `ast.parse` for a full vLLM tree), so changed files are parsed in a
pool of forked workers. Fork explicitly: the probe usually runs as a script fed on stdin
(`python3 -`), where spawn/forkserver cannot re-import `__main__`. Workers inherit the job list
through the fork and send facts back as marshal bytes (cheaper than pickling nested dicts).
The cyclic GC is paused while millions of AST nodes come and go: none of them form cycles.
"""

import gc
import hashlib
import marshal
import multiprocessing
import os

from . import cache as _cache
from .ast_facts import empty_module, module_facts
from .distinfo import dist_for
from .locate import module_name, walk_tree

MAX_FILE_BYTES = 5_000_000
_PARALLEL_MIN_FILES = 24
_CHUNK_BYTES = 400_000

# Set in each forked worker by `_init_worker` (inherited through fork, never pickled): the jobs
# of the current pool only. A pool worker has no other channel for shared read-only input.
_WORKER_JOBS = []


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
    entries, _ = walk_tree(root_dir, package)
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
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        modules, errors, parsed, cached = _modules(root_dir, package, cache_dir=cache_dir,
                                                   max_file_bytes=max_file_bytes, workers=workers)
    finally:
        if was_enabled:
            gc.enable()
    if stats is not None:
        stats["parsed"] = stats.get("parsed", 0) + parsed
        stats["cached"] = stats.get("cached", 0) + cached
    info = dist_for(root_dir, package, use_importlib=use_importlib)
    return {
        "name": package, "dist": info["dist"], "version": info["version"],
        "root": os.path.abspath(root_dir), "digest": digest_of(modules),
        "requires": info["requires"], "modules": modules, "errors": errors,
    }


def _modules(root_dir, package, *, cache_dir, max_file_bytes, workers):
    entries, errors = walk_tree(root_dir, package)
    index = _cache.load_index(cache_dir, root_dir, package)
    facts = _cache.load_facts(cache_dir, root_dir, package) if index else {}
    modules, new_index, jobs = {}, {}, []
    cached = 0
    for rel, path, size, mtime, error in entries:
        name = module_name(rel)
        is_pkg = rel.endswith("__init__.py")
        if error is None and size > max_file_bytes:
            error = "too large: %d bytes" % size
        if error is not None:
            modules[name] = empty_module(rel, sha256=None, is_package=is_pkg, error=error)
            continue
        row = index.get(rel)
        old = facts.get(rel)
        if row is not None and row[0] == size and row[1] == mtime and old is not None \
                and old.get("sha256") == row[2]:
            modules[name] = old
            new_index[rel] = row
            cached += 1
            continue
        try:
            with open(path, "rb") as f:
                source = f.read(max_file_bytes + 1)
        except OSError as exc:
            err = "unreadable: %s: %s" % (type(exc).__name__, exc.strerror or exc)
            modules[name] = empty_module(rel, sha256=None, is_package=is_pkg, error=err)
            continue
        sha = hashlib.sha256(source).hexdigest()
        new_index[rel] = (size, mtime, sha)
        if old is not None and old.get("sha256") == sha:
            modules[name] = old
            cached += 1
            continue
        jobs.append((name, rel, sha, source))
    for name, facts_of in _parse_all(jobs, workers=workers):
        modules[name] = facts_of
    modules = {name: modules[name] for name in sorted(modules)}  # workers finish in any order
    for m in modules.values():
        if m["error"]:
            errors.append({"path": m["path"], "error": m["error"]})
    errors.sort(key=lambda e: e["path"])
    if cache_dir is not None and (jobs or len(new_index) != len(index) or cached != len(facts)):
        _cache.store(cache_dir, root_dir, package, index=new_index,
                     facts={m["path"]: m for m in modules.values() if m["sha256"] is not None})
    return modules, errors, len(jobs), cached


def _parse_one(job):
    name, rel, sha, source = job
    return name, module_facts(source, module=name, path=rel, sha256=sha)


def _parse_all(jobs, *, workers):
    n = _worker_count(len(jobs), workers)
    if n <= 1:
        return [_parse_one(j) for j in jobs]
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:
        return [_parse_one(j) for j in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][3]))
    chunks, chunk, size = [], [], 0
    for i in order:
        chunk.append(i)
        size += len(jobs[i][3])
        if size >= _CHUNK_BYTES:
            chunks.append(chunk)
            chunk, size = [], 0
    if chunk:
        chunks.append(chunk)
    out = []
    try:
        with ctx.Pool(n, initializer=_init_worker, initargs=(jobs,)) as pool:
            for blob in pool.imap_unordered(_parse_chunk, chunks):
                out.extend(marshal.loads(blob))
            pool.close()
            pool.join()
    except Exception:  # no fork, no sem_open (/dev/shm), pipes refused...: parse serially
        return [_parse_one(j) for j in jobs]
    return out


def _worker_count(n_jobs, workers):
    if workers is not None:
        return max(1, min(int(workers), n_jobs))
    if n_jobs < _PARALLEL_MIN_FILES:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 16, n_jobs // 8))


def _init_worker(jobs):
    gc.disable()
    _WORKER_JOBS[:] = jobs


def _parse_chunk(indices):
    return marshal.dumps([_parse_one(_WORKER_JOBS[i]) for i in indices])
