"""The solved consumer model, kept on disk by the digest of what it was solved from.

Why: solving the IR of the largest corpus consumer (vllm-ascend, ~16k relations) takes about
a second, and the IR changes only when the consumer's files do. A warm check reads the
solution back (tens of milliseconds) instead; a changed file changes the digest, so a stale
solution is never used. One marshal blob per solution, written atomically, as the facts store does.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from drift.consumer import infer
from drift.consumer.infer import MAX_ROUNDS, MAX_VALUES, Solution, solve
from drift.probes.consumer_scan import IR_VERSION
from drift.sources.cache import cache_root

_VERSION = "s7"  # bump when the solver's answer for the same IR changes


def _solver_digest() -> bytes:
    """The solver's own source: a changed solver never reads an old solution."""
    global _SOLVER
    if _SOLVER is None:
        try:
            _SOLVER = hashlib.sha256(Path(infer.__file__).read_bytes()).digest()
        except OSError:
            _SOLVER = b"unknown"
    return _SOLVER


_SOLVER: bytes | None = None


def _digest(usage: list[dict[str, Any]], prefixes: tuple[str, ...]) -> str:
    h = hashlib.sha256(f"{_VERSION}\0{MAX_VALUES}\0{MAX_ROUNDS}\0{','.join(prefixes)}".encode())
    h.update(_solver_digest())
    for mod in usage:
        h.update((mod.get("path") or "").encode() + b"\0")
        ir = mod.get("ir")
        # version 2: no back-references, so the bytes (and the digest) depend on the IR alone, not on
        # which of its objects this process happens to share; an IR kept as bytes is those very bytes
        h.update(ir if type(ir) is bytes else marshal.dumps(ir, IR_VERSION))
    return h.hexdigest()[:32]


def solved_model(usage: list[dict[str, Any]], prefixes: tuple[str, ...], *, cache_dir: Path | None = None) -> Solution:
    """The solution for `usage`, from the cache when the same IR was solved before."""
    if not any(mod.get("ir") for mod in usage):
        return Solution()
    folder = cache_dir or cache_root() / "solved"
    path = folder / f"{_digest(usage, prefixes)}.marshal"
    try:
        data = marshal.loads(path.read_bytes())
        return Solution(**{f.name: data[f.name] for f in fields(Solution)})
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        pass  # absent or unreadable: solve again
    sol = solve(usage, prefixes)
    _save(path, asdict(sol))
    return sol


def _save(path: Path, data: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".solved-")
        with os.fdopen(fd, "wb") as fh:
            marshal.dump(data, fh)
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass  # a cache that cannot be written is only a slower next check
