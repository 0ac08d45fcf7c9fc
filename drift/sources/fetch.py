"""Fetch releases once into a cache of their Python sources, reading no more than that.

A PyPI requirement is resolved against the user's own pip settings (indexes, find-links,
credentials, certificate, proxy: `drift.sources.pipconfig`) by `drift.sources.index`; a wheel
is then read with HTTP range requests, only its `.py` and `.dist-info` members
(`drift.sources.rangezip`: ~5 MB of a ~500 MB vLLM wheel). When the server or a proxy does not
serve ranges, or a transfer fails half way, `pip download` fetches the whole wheel as before; a
file on this machine (a `file://` index, find-links) is read in place; an sdist-only release is
downloaded and read as an archive, never built (`drift.sources.sdist`). Every path extracts into
the same layout (`<cache>/sources/<name>-<version>/`: top-level packages and the `.dist-info`),
so nothing downstream knows which one ran; `Sources.how` and the progress `Note` say it.
"""

from __future__ import annotations

import threading
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from drift.sources.cache import CACHED, COMPLETE_MARKER, Sources, cache_root
from drift.sources.errors import FetchError
from drift.sources.pack import materialize
from drift.sources.progress import Note, Say, quiet as _quiet


def pinned_version(req: Requirement) -> str | None:
    specs = list(req.specifier)
    if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
        return specs[0].version
    return None


def parse_requirement(spec: str) -> Requirement:
    try:
        req = Requirement(spec)
    except InvalidRequirement as exc:
        raise FetchError(f"not a valid requirement: {spec!r} ({exc})") from None
    if req.url:
        raise FetchError(f"direct URL requirements are not supported here: {spec!r}; pass the wheel path")
    return req


def fetch_sources(spec: str, *, cache: Path | None = None, quiet: bool = True, progress: Say | None = None,
                  tree: bool = True, index=None, cancelled=None, join: bool = True, metadata=None) -> Sources:
    """Return the extracted sources of a PyPI requirement such as `vllm==0.16.0`.

    `progress` gets plain strings (what is happening), `Step`s (one per stage of a transfer),
    `Transfer`s (byte counts) and one closing `Note` saying which path was taken.

    `tree=False`: the packages may stay in the release's pack (`drift.sources.pack`; a range
    fetch writes one) rather than as files under `root`; only `drift.model.demand` reads packs.
    Anything else asks for the tree, which is then written from the pack once.

    A fetch of the same spec already running for a `drift.sources.prefetch.Prefetch` is joined
    (`join`), not repeated: its Sources, or its error, are this call's. `index` (a callable
    giving a shared `Index`), `cancelled` (a callable, true once the result is no longer
    wanted) and `metadata` (given the wheel's METADATA bytes as soon as a range read has them)
    are the prefetch's.
    """
    req = parse_requirement(spec)
    name = canonicalize_name(req.name)
    base = (cache or cache_root()) / "sources"
    version = pinned_version(req)
    if version is not None and is_complete(base, name, version):
        hit = base / f"{name}-{version}"
        if tree:
            materialize(hit)
        return Sources(root=hit, name=name, version=version)
    got = _joined(inflight_key(base, spec)) if join else None
    if got is None:
        say = progress or _quiet
        say(f"resolving {req}")
        from drift.sources.fetchers import fetch_release  # the index client loads only when a fetch is needed

        got = fetch_release(req, base=base, say=say, index=index, cancelled=cancelled, tree=tree, metadata=metadata)
        if got.how != CACHED:
            say(Note(f"{name} {got.version}: {got.detail}"))
    if tree:
        materialize(got.root)
    return got


def is_complete(base: Path, name: str, version: str) -> bool:
    """Whether `<base>/<name>-<version>` is a finished extraction (its marker written last)."""
    return (base / f"{canonicalize_name(name)}-{version}" / COMPLETE_MARKER).exists()


# Fetches running in the background (drift.sources.prefetch), by cache and requirement, so a
# caller asking for the same release waits for that one instead of starting a second.
_INFLIGHT: dict[tuple[str, str], object] = {}
_INFLIGHT_LOCK = threading.Lock()


def inflight_key(base: Path, spec: str) -> tuple[str, str]:
    return (str(base), str(parse_requirement(spec)))


def register_inflight(key: tuple[str, str], future) -> bool:
    """Record a background fetch; False if one for the same key is already running."""
    with _INFLIGHT_LOCK:
        if key in _INFLIGHT:
            return False
        _INFLIGHT[key] = future
        return True


def unregister_inflight(key: tuple[str, str], future) -> None:
    with _INFLIGHT_LOCK:
        if _INFLIGHT.get(key) is future:
            del _INFLIGHT[key]


def _joined(key: tuple[str, str]) -> "Sources | None":
    """The result of the background fetch of `key` (waiting for it), its error raised, or None
    when there is none or it was cancelled (the caller then fetches the release itself)."""
    from concurrent.futures import CancelledError

    with _INFLIGHT_LOCK:
        future = _INFLIGHT.get(key)
    if future is None:
        return None
    try:
        return future.result()
    except CancelledError:
        return None
    except FetchError as exc:
        if type(exc).__name__ == "Cancelled":
            return None
        raise


def index_versions(name: str) -> list[str]:
    """Every release of `name` the user's indexes offer (any platform), newest first.

    Asked of the same index client as fetch_sources (pip's settings). Raises IndexUnreachable,
    ProjectNotFound, or FetchError with the reason.
    """
    from drift.sources.index import open_index

    with open_index() as index:
        return index.versions(name)


def newest_release(name: str, *, pre: bool = False) -> str:
    """The newest final release of `name` (pre-releases only when there is nothing else);
    `pre`: the newest of all, dev versions and pre-releases included (a nightly)."""
    versions = index_versions(name)
    finals = [v for v in versions if pre or not Version(v).is_prerelease]
    return (finals or versions)[0]


NIGHTLY = "nightly"  # `vllm==nightly`: the newest version on the user's indexes, dev builds included


def pin_newest(spec: str, *, pre: bool = False) -> str:
    """`spec` pinned to one version when it asks for the newest of a moving series.

    `NAME==nightly`, or with `pre` (`--pre`) an unpinned `NAME` or a range: the newest version
    the user's indexes offer (an extra nightly index included), dev versions and pre-releases
    counted as any other, sorted as PEP 440 sorts them (`0.30.1.dev202609231158` after
    `0.30.0`). Anything else is returned as given. Pinning here means every later step (the
    cache, the report's heading) names the version that was read."""
    head, sep, tail = spec.partition("==")
    if sep and tail.strip().lower() == NIGHTLY:
        name = parse_requirement(head.strip()).name
        return f"{name}=={newest_release(name, pre=True)}"
    if not pre:
        return spec
    req = parse_requirement(spec)
    if pinned_version(req) is not None:
        return spec
    fits = [v for v in index_versions(req.name) if req.specifier.contains(v, prereleases=True)]
    if not fits:
        from drift.sources.errors import NoMatchingRelease

        raise NoMatchingRelease(f"no release matches {spec}, pre-releases included")
    return f"{req.name}=={fits[0]}"


