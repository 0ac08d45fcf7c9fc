"""Import a library without the optional packages it would load only for features drift never uses.

Some libraries try an import at load time and carry on without it (`try: import trio except
ImportError`). When the package is installed anyway, a cold process pays for loading it: on
this machine `trio` (httpcore's async support) and `requests` (unearth's download helpers) are
~0.1 s of a ~1 s cold fetch's CPU. `without_optional` makes those imports fail for the length
of a block, then removes the refusal, so any later `import trio` / `import requests` anywhere
in the process gets the real package.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from collections.abc import Iterator


@contextmanager
def without_optional(*names: str) -> Iterator[None]:
    """Inside the block, `import NAME` raises ImportError for each of `names` not yet loaded."""
    refused = [n for n in names if n not in sys.modules]
    for name in refused:
        sys.modules[name] = None  # the import system's "known missing" marker
    try:
        yield
    finally:
        for name in refused:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
