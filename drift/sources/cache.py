"""The cache a release is extracted into, and what a fetch hands back (`Sources`).

Why apart from fetch.py: every way of fetching (range reads, pip, sdists, the pip settings read)
writes into this layout; they import it from here, and fetch.py (the front door that picks one)
imports them, so the arrows run one way.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


COMPLETE_MARKER = ".drift-complete-l2"  # layout 2: .data/purelib at the root; older extractions are redone


# how a release reached the cache (Sources.how)
CACHED, RANGE, PIP, LOCAL, SDIST = "cache", "range", "pip", "local", "sdist"


@dataclass(frozen=True)
class Sources:
    """An extracted release: `root` holds the top-level package dirs and the .dist-info."""

    root: Path
    name: str
    version: str
    how: str = CACHED
    detail: str = ""
    transferred: int = 0  # bytes this fetch moved (0 from the cache): shown at -v, read by benchmarks


def cache_root() -> Path:
    base = os.environ.get("DRIFT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "drift"
    )
    return Path(base)


def cache_name(text: str) -> str:
    """`text` (a host spec, a label) as one safe file name under the cache."""
    return "".join(c if c.isalnum() or c in "._-@" else "_" for c in text)


def lock_path(root: Path) -> Path:
    """The lock file of the release extracted (or to be extracted) at `root`."""
    return root.with_name(f".{root.name}.lock")


@contextmanager
def release_lock(root: Path, *, wait: float | None = None) -> Iterator[None]:
    """Hold an exclusive `flock` on the release at `root` for the block: the one thing that
    writes, replaces or removes anything under `root` (or its pack) is a holder of it.

    Why: a complete release (its marker there) is read by other drift processes without any
    lock, so nothing may delete or rewrite it under them. Two processes fetching the same
    release at once each used to extract it and the second then `rmtree`d the first's finished
    directory before renaming its own in: a check reading it meanwhile walked a tree with
    files, or all of it, gone, and reported what was left (0 findings, no error). The holder
    re-checks the marker once it has the lock, and the second fetch becomes a cache hit.

    `wait` (default: the fetch deadline, `DRIFT_FETCH_DEADLINE`): how long to wait for another
    process's fetch of the same release; past it, FetchError (never an unlocked write). Where
    there is no flock at all, the block runs unlocked, as before."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform
        yield
        return
    from drift.sources.errors import FetchError
    from drift.sources.limits import deadline_seconds

    root.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path(root), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        limit = time.monotonic() + (deadline_seconds() if wait is None else wait)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= limit:
                    raise FetchError(f"{root.name}: another drift process has been writing this release into "
                                     f"the cache for too long ({lock_path(root)} stays locked)") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
