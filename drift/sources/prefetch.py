"""Releases fetched side by side, on one index client, while the caller does other work.

A check from nothing needs three releases (the consumer, the target, the baseline). One after
another, each paid its own pip settings, HTTP client, TLS handshakes, index page and zip
directory round trips while nothing else happened. Most of a range fetch is waiting for the
network, and inflating and hashing the members release the GIL, so the three overlap well even
on a busy machine: `Prefetch.start` hands a spec to a small pool, and `drift.sources.fetch.fetch_sources`
for that spec (same cache) joins the fetch in flight instead of starting a second one, getting
its result or its error exactly as if it had fetched the release itself. Nothing downstream
changes: the caller still asks `fetch_sources` (through `load_facts`, `load_consumer`) in its
own order, so which release failed is reported where it was reported before.

One `Index` (pip's settings read once, one client and connection pool) serves every fetch of a
`Prefetch`. Leaving the `with` block cancels the fetches not started and stops the running ones
at their next step (an early error must not wait for a 500 MB baseline's directory).
"""

from __future__ import annotations

import threading
from pathlib import Path

from drift.sources import fetch as _fetch
from drift.sources.cache import Sources, cache_root
from drift.sources.errors import Cancelled, FetchError
from drift.sources.progress import Say, quiet

WORKERS = 3  # consumer, target, baseline: a check's releases all in flight at once


class Prefetch:
    """Start fetches of PyPI specs now; `drift.sources.fetch.fetch_sources` collects them later."""

    def __init__(self, *, cache: Path | None = None, say: Say | None = None, workers: int = WORKERS) -> None:
        self.base = (cache or cache_root()) / "sources"
        self.cache = cache
        self.say = say or quiet
        self._workers = workers
        self._pool = None  # made on the first fetch: a warm run (everything cached) starts no thread
        self._futures: dict = {}  # spec -> concurrent.futures.Future
        self._index = None
        self._index_lock = threading.Lock()
        self._closed = threading.Event()
        self._lock = threading.Lock()  # start() is called from fetch threads too (a metadata callback)

    def __enter__(self) -> "Prefetch":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def start(self, spec: str, *, tree: bool = False, metadata=None) -> bool:
        """Begin fetching `spec` in the background; False when it is not a PyPI requirement this
        can fetch (a path, a wheel, a bad spec: the caller's own fetch reports it as before) or
        is already cached. `tree`: written as files (a consumer), not as a pack. `metadata`:
        given the wheel's METADATA bytes, in the fetch's thread, as soon as a range read has them."""
        with self._lock:
            return self._start(spec, tree, metadata)

    def _start(self, spec: str, tree: bool, metadata) -> bool:
        if self._closed.is_set() or spec in self._futures:
            return spec in self._futures
        cached = self._cached(spec)
        if cached is None or cached:
            return False  # not a PyPI requirement, or nothing to overlap
        key = _fetch.inflight_key(self.base, spec)
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="drift-fetch")
            from drift.sources.pipconfig import warm_tls

            warm_tls()  # the CA bundle loads while the first fetch imports the HTTP client
        fut = self._pool.submit(self._run, spec, tree, metadata)
        if not _fetch.register_inflight(key, fut):
            fut.cancel()
            return False
        self._futures[spec] = fut
        return True

    def result(self, spec: str) -> "Sources | None":
        """Wait for a started fetch: its Sources (or the cached release's), None if it was not
        started or failed (the caller's own `fetch_sources` then raises the error where it
        always did)."""
        fut = self._futures.get(spec)
        if fut is None:
            if not self._cached(spec):
                return None
            return _fetch.fetch_sources(spec, cache=self.cache, tree=False)  # in the cache already
        try:
            return fut.result()
        except Exception:  # noqa: BLE001 - reported by the caller's own fetch of the spec
            return None

    def _cached(self, spec: str) -> bool | None:
        """Whether `spec` pins a release already complete in the cache; None when it is not a
        requirement this fetches."""
        try:
            req = _fetch.parse_requirement(spec)
        except FetchError:
            return None
        version = _fetch.pinned_version(req)
        return version is not None and _fetch.is_complete(self.base, req.name, version)

    def versions(self, name: str) -> list[str]:
        """Every release of `name`, newest first, asked on the shared client."""
        return self._shared_index().versions(name)

    def close(self) -> None:
        with self._lock:  # no fetch starts after this (a metadata callback may be starting one now)
            self._closed.set()
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
            futures = dict(self._futures)
        for spec, fut in futures.items():
            _fetch.unregister_inflight(_fetch.inflight_key(self.base, spec), fut)
        for fut in futures.values():
            if not fut.cancelled():
                try:
                    fut.result()
                except Exception:  # noqa: BLE001 - nobody asked for it; its error is not ours to report
                    pass
        with self._index_lock:
            if self._index is not None:
                self._index.close()
                self._index = None

    def _shared_index(self):
        with self._index_lock:
            if self._index is None:
                if self._closed.is_set():
                    raise Cancelled("the fetch was no longer needed")
                from drift.sources.index import open_index

                self._index = open_index()
            return self._index

    def _run(self, spec: str, tree: bool, metadata=None) -> "Sources":
        if self._closed.is_set():
            raise Cancelled(f"{spec}: the fetch was no longer needed")
        return _fetch.fetch_sources(spec, cache=self.cache, progress=self.say, tree=tree,
                                    index=self._shared_index, cancelled=self._closed.is_set, join=False,
                                    metadata=metadata)
