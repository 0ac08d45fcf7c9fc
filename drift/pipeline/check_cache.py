"""The rules' answer to one check, kept on disk by the digest of everything the rules read.

Why: a warm check of the largest corpus consumer (vllm-ascend 0.18.0 against vLLM 0.23.0, 4,299
uses) spends ~1 s of CPU running the rules over facts that are all cached already; running the
same check again with nothing changed (a second `drift check`, a CI job re-run, `drift gate` over
the same releases) recomputes the very same findings. The answer (findings, the rules' notes and
the uses checked) is stored under a digest of every input the rules see, so a changed input is a
different digest and a stale answer is never read:

- drift's own code: every `.py` file of the `drift` package and of the probe (`probes/`), so a
  changed rule, resolver or solver never reads an old answer;
- the rules loaded: the cache is used only when they are drift's built-in rules (a `--rules`
  file or a plugin's pack may read anything, so their checks always run);
- the consumer's usage facts as the rules get them (after the version guards cut them, by the
  target's version), or, for a consumer read here, the digest of what they were read from (every
  file's sha256: drift.consumer.usage.content_key), its name, the target package;
- the target's and the baseline's facts: each package's content digest (the hash of its files
  that keys the facts store) and everything else in the facts document but the probe's timing.
  Only demand-driven facts of a release or a tree read here (`pypi`, `wheel`, `tree`; what `drift
  check` and `drift gate` load) qualify: facts a host sent, a snapshot file, another interpreter's
  probe or a whole-package parse always run the rules;
- the interpreter's version (marshal's format, and the probe's `ast` are the interpreter's).

The answer is stored as marshal of plain records (`Finding.to_dict`, the uses as tuples), never
pickle: reading a cache file runs no code. One file per answer, written atomically as the facts
store and the solved model (drift/consumer/solved.py) are; the oldest are removed past
`KEEP` files. `ENABLED = False` runs the rules every time (benchmarks time the rules that way).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from drift.findings import Finding, Location, UseChecked
from drift.sources.cache import cache_root

ENABLED = True
KEEP = 64  # answers kept (the largest corpus consumer's is 0.44 MB); a new one past this removes the oldest
_VERSION = "c1"  # bump when what is stored, or how it is read back, changes
_LOCAL_KINDS = frozenset({"pypi", "wheel", "tree"})

Answer = tuple[tuple[Finding, ...], tuple[str, ...], tuple[UseChecked, ...]]


def _code_digest() -> bytes:
    """sha256 over drift's and the probe's source files (relative path and bytes), once per process."""
    global _CODE
    if _CODE is None:
        import drift
        import drift.probes

        h = hashlib.sha256()
        for top in (Path(drift.__file__).parent, Path(drift.probes.__file__).parent):
            for path in sorted(top.rglob("*.py")):
                h.update(str(path.relative_to(top.parent)).encode() + b"\0")
                h.update(path.read_bytes())
        _CODE = h.digest()
    return _CODE


_CODE: bytes | None = None


def _facts_identity(facts: dict[str, Any] | None) -> str | None:
    """What identifies a facts document's content, or None when it cannot be identified: its
    packages' digests and plain keys, its environment and target blocks (not the probe's timing)."""
    if facts is None:
        return ""
    probe = facts.get("probe") or {}
    if (facts.get("target") or {}).get("kind") not in _LOCAL_KINDS or probe.get("demand") is not True:
        return None  # facts from a host, a snapshot, an interpreter, or parsed whole: the rules run
    packages = {}
    for name, pkg in (facts.get("packages") or {}).items():
        if not isinstance(pkg, dict) or not pkg.get("digest"):
            return None
        packages[name] = {k: v for k, v in pkg.items() if k != "modules"}
    rest = {k: v for k, v in facts.items() if k not in ("packages", "probe")}
    rest["probe"] = {k: v for k, v in probe.items() if k != "elapsed_s"}
    try:
        return json.dumps([packages, rest], sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return None


def key(*, rules: list[Any], builtin: frozenset[str], usage: list[dict[str, Any]], target_facts: dict[str, Any],
        baseline_facts: dict[str, Any] | None, target_package: str, consumer_name: str,
        decorators: frozenset[str], usage_key: str | None = None) -> str | None:
    """The digest an answer is stored under, or None when this check must run its rules.

    `usage_key`: a digest of what the consumer's usage was read from (drift.consumer.usage.
    content_key: every file's sha256), standing for `usage`, which the version guards cut from it
    by the target's version (in the target's facts, part of the key): encoding and hashing the
    records themselves cost vllm-omni 0.22 ~0.14 s of a 0.5 s warm check."""
    if not ENABLED or any(r.id not in builtin for r in rules):
        return None
    target, baseline = _facts_identity(target_facts), _facts_identity(baseline_facts)
    if target is None or baseline is None:
        return None
    try:
        consumer = b"k:" + usage_key.encode() if usage_key else b"u:" + marshal.dumps(usage, 2)  # version 2 writes
        # no back-references: the bytes depend on the content alone, not on which objects this process shares
        code = _code_digest()
    except (ValueError, OSError):
        return None
    h = hashlib.sha256(f"{_VERSION}\0{sys.version}\0{target_package}\0{consumer_name}\0".encode())
    h.update(code)
    h.update("\0".join(r.id for r in rules).encode() + b"\0")
    h.update("\0".join(sorted(decorators)).encode() + b"\0")
    h.update(target.encode() + b"\0" + baseline.encode() + b"\0")
    h.update(consumer)
    return h.hexdigest()[:40]


def _folder() -> Path:
    return cache_root() / "checked"


def load(digest: str) -> Answer | None:
    """The answer stored under `digest`, or None (absent, unreadable, or not what is stored)."""
    try:
        data = marshal.loads((_folder() / f"{digest}.marshal").read_bytes())
        findings = tuple(Finding.from_dict(d) for d in data["findings"])
        uses = tuple(UseChecked(symbol, Location(path, line, snippet=snippet, col=col), what)
                     for symbol, path, line, snippet, col, what in data["uses"])
        return findings, tuple(data["notes"]), uses
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return None


def save(digest: str, answer: Answer) -> None:
    findings, notes, uses = answer
    try:
        data = {"findings": [_plain(f) for f in findings], "notes": list(notes),
                "uses": [(u.symbol, u.site.path, u.site.line, u.site.snippet, u.site.col, u.what) for u in uses]}
        if any(u.site.symbol is not None for u in uses):
            return  # a use with a symbol on its site is not stored that way: run the rules next time too
        blob = marshal.dumps(data)
    except (ValueError, TypeError, AttributeError):
        return  # something not plain in a finding: the rules simply run next time
    folder = _folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".checked-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, folder / f"{digest}.marshal")
        _prune(folder)
    except OSError:
        pass  # a cache that cannot be written is only a slower next check


def _plain(f: Finding) -> dict[str, Any]:
    """`Finding.to_dict` without its derived keys, checked to read back as the same finding."""
    d = f.to_dict()
    for derived in ("key", "fingerprint", "kind_message"):
        d.pop(derived, None)
    if Finding.from_dict(d) != f:
        raise ValueError("a finding that does not read back as itself")
    return d


def _prune(folder: Path) -> None:
    entries = []
    with os.scandir(folder) as it:
        for e in it:
            if e.name.endswith(".marshal"):
                try:
                    entries.append((e.stat().st_mtime, e.path))
                except OSError:
                    pass
    if len(entries) > KEEP:
        for _mtime, path in sorted(entries)[:len(entries) - KEEP]:
            try:
                os.unlink(path)
            except OSError:
                pass
