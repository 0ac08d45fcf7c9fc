"""How much drift reads from a package index, counted in bytes read, never in what a header,
`st_size` or a zip directory claims.

Why: the index is untrusted input. A 206 answer that keeps streaming, a 1 MB wheel whose `.py`
inflates to 1 GB, a zip64 size of 2**62, an endless sdist body or a server trickling one byte
every two seconds must end in a clear error (or a skipped, noted member), not in gigabytes of
memory or disk, or a fetch that never ends. Every cap is far above what a real release needs:
vLLM's wheel keeps 1,365 members, 18 MB inflated, the largest `.py` ~0.3 MB, METADATA ~20 kB.
"""

from __future__ import annotations

import os
import time

from drift import exitcodes
from drift.probes.locate import MAX_FILE_BYTES
from drift.sources.errors import FetchError

MAX_SOURCE_BYTES = MAX_FILE_BYTES  # a larger `.py` is never parsed by the probe, so it is not kept either
MAX_METADATA_BYTES = 8 * 1024 * 1024  # one `.dist-info` file (METADATA, RECORD, top_level.txt)
MAX_RELEASE_BYTES = 128 * 1024 * 1024  # every kept member of one release, inflated
MAX_DIRECTORY_BYTES = 32 * 1024 * 1024  # one read of a remote zip's directory beyond its first tail
MAX_SDIST_BYTES = 256 * 1024 * 1024  # a downloaded source archive
MAX_PAGE_BYTES = 64 * 1024 * 1024  # one index page, decoded (vLLM's JSON page is ~300 kB)
DEADLINE_ENV = "DRIFT_FETCH_DEADLINE"  # seconds one release's download may take in all
DEFAULT_DEADLINE = 1800.0


class FetchTooLarge(FetchError):
    """The index sent (or a member would inflate to) more than drift reads: bad input, exit 2."""


class FetchTimedOut(FetchError):
    """A download went on past its deadline (a server that trickles): unreachable, exit 3."""

    exit_code = exitcodes.UNREACHABLE


def member_cap(name: str) -> int:
    """The most bytes drift keeps of one archive member."""
    return MAX_METADATA_BYTES if ".dist-info/" in name or name.endswith("PKG-INFO") else MAX_SOURCE_BYTES


def deadline_seconds() -> float:
    try:
        value = float(os.environ.get(DEADLINE_ENV, "") or DEFAULT_DEADLINE)
    except ValueError:
        value = DEFAULT_DEADLINE
    return value if value > 0 else DEFAULT_DEADLINE


class Deadline:
    """One release's download clock: `check` raises FetchTimedOut once it has run out, saying how
    far the download got, so a trickling server ends in a clear exit 3."""

    def __init__(self, what: str, seconds: float | None = None) -> None:
        self.what = what
        self.seconds = deadline_seconds() if seconds is None else seconds
        self.end = time.monotonic() + self.seconds
        self.received = 0

    def check(self, more: int = 0) -> None:
        self.received += more
        if time.monotonic() > self.end:
            raise FetchTimedOut(
                f"{self.what}: the download did not finish within {self.seconds:g} s "
                f"({self.received} bytes received); the index is too slow or stalled "
                f"(set {DEADLINE_ENV} to allow longer)")
