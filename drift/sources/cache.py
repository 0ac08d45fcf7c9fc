"""The cache a release is extracted into, and what a fetch hands back (`Sources`).

Why apart from fetch.py: every way of fetching (range reads, pip, sdists, the pip settings read)
writes into this layout; they import it from here, and fetch.py (the front door that picks one)
imports them, so the arrows run one way.
"""

from __future__ import annotations

import os
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
