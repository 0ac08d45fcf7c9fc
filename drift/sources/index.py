"""Which file a requirement resolves to, asked of the user's indexes as pip would ask them.

unearth does the PEP 503 / PEP 691 / find-links work (page parsing, wheel tag ranking, yanked
and pre-release rules, netrc / keyring / URL credentials); drift adds pip's settings and tells
apart the three ways a lookup fails, because "no release matches" for an index that never
answered sends a user looking for a typo that is not there.
"""

from __future__ import annotations

import logging
import os
import ssl
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from drift.sources.lean import without_optional

# unearth imports `requests` only to catch its HTTPError in downloads drift never makes, and
# httpcore imports `trio` only to run under a trio event loop: ~0.1 s of a cold fetch's CPU.
with without_optional("requests", "trio"):
    import httpcore2  # noqa: F401 - loaded here, inside the guard, rather than by the first client
    import httpx2
    from unearth import PackageFinder
    from unearth.auth import MultiDomainBasicAuth
    from unearth.fetchers.sync import PyPIClient

from drift.sources.errors import FetchError, IndexUnreachable, NoMatchingRelease, ProjectNotFound
from drift.sources.pipconfig import PipSettings, pip_settings, tls_context
from drift.sources.wheels import foreign_platform

logging.getLogger("unearth").addHandler(logging.NullHandler())  # its warnings become our errors


@dataclass(frozen=True)
class Resolved:
    """The distribution file a requirement names, and how to reach it."""

    name: str
    version: str
    url: str
    filename: str
    is_wheel: bool
    hashes: dict[str, str] = field(default_factory=dict)
    foreign: bool = False  # a wheel built for another platform or Python: read, never installed

    @property
    def is_local(self) -> bool:
        return urlsplit(self.url).scheme == "file"

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "this machine"


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]).geturl()


class RecordingClient(PyPIClient):
    """unearth's client, remembering how each index page answered.

    unearth logs a failed page and moves on (as pip does); the record lets drift say afterwards
    whether the project was missing everywhere or an index was down or refused the credentials.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.pages: dict[str, str] = {}  # url -> "ok" | "missing" | reason it failed
        self._answered: dict[str, httpx2.Response] = {}  # url -> its 200, for this client's life
        self._asking = _KeyedLocks()

    def get(self, url, **kwargs):
        """A page asked once per client: a check's target and baseline are two releases of one
        project, so its index page (~300 kB for vLLM) is fetched for the first lookup only, and
        a lookup asking it while another thread's request for it is under way waits for that
        answer instead of asking again (a page that failed is asked again, as before)."""
        if kwargs.get("stream"):
            return self._get(url, **kwargs)
        with self._asking(str(url)):
            hit = self._answered.get(str(url))
            return hit if hit is not None else self._get(url, **kwargs)

    def _get(self, url, **kwargs):
        try:
            resp = super().get(url, **kwargs) if kwargs.get("stream") else self._bounded_get(url, **kwargs)
        except httpx2.TransportError as exc:
            self.pages[str(url)] = f"{type(exc).__name__}: {exc}".rstrip(": ")
            return httpx2.Response(599, request=httpx2.Request("GET", url))
        code = resp.status_code
        if code < 400:
            self.pages[str(url)] = "ok"
            if code == 200 and not kwargs.get("stream"):
                self._answered[str(url)] = resp
        elif code in (404, 410):
            self.pages[str(url)] = "missing"
        elif code in (401, 403):
            self.pages[str(url)] = f"refused the credentials ({code})"
        else:
            self.pages[str(url)] = f"answered {code}"
        return resp


    def _bounded_get(self, url, **kwargs) -> httpx2.Response:
        """GET a page, reading at most MAX_PAGE_BYTES of it (counted after decompression, as
        read: a gzip bomb or a body that never ends is FetchTooLarge, whatever Content-Length
        said). The answer is handed on as the whole, already decoded response unearth expects."""
        from drift.sources.limits import MAX_PAGE_BYTES, FetchTooLarge

        with self.stream("GET", url, **kwargs) as resp:
            body, got = [], 0
            for chunk in resp.iter_bytes():
                got += len(chunk)
                if got > MAX_PAGE_BYTES:
                    raise FetchTooLarge(f"the package index's page {_redact(str(resp.url))} is larger than "
                                        f"{MAX_PAGE_BYTES // 2**20} MB; drift reads at most that")
                body.append(chunk)
            headers = [(k, v) for k, v in resp.headers.multi_items()
                       if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
            return httpx2.Response(resp.status_code, headers=headers, content=b"".join(body), request=resp.request,
                                   history=resp.history, extensions=resp.extensions)


class _KeyedLocks:
    """One lock per key, made on first use: `with locks(key):` runs one thread per key at a time."""

    def __init__(self) -> None:
        self._locks: dict = {}
        self._guard = threading.Lock()

    def __call__(self, key) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())


class SharedFinder(PackageFinder):
    """unearth's finder, evaluating a project's files once per client.

    A check's target and baseline are two releases of one project: unearth evaluated every
    file on vLLM's page (313 of them: wheel tags, versions, yanked) for each lookup, ~0.02 s
    of CPU each, on the baseline's path to its first byte. The evaluated list depends only on
    the pages, which `RecordingClient` asks once per client anyway; specifiers and pre-release
    rules are still applied per requirement by unearth. Two lookups at once (the target's and
    the baseline's threads) evaluate once: the second waits for the first's list."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._evaluated: dict[tuple[str, bool], list] = {}
        self._evaluating = _KeyedLocks()

    def _find_packages(self, package_name: str, allow_yanked: bool = False):
        key = (canonicalize_name(package_name), bool(allow_yanked))
        with self._evaluating(key):
            hit = self._evaluated.get(key)
            if hit is None:
                try:
                    hit = list(super()._find_packages(package_name, allow_yanked))
                except ValueError as exc:  # UnicodeDecodeError, JSONDecodeError: a page drift cannot read
                    raise _unreadable_page(package_name, exc) from None
                if hit:  # nothing found (an index down, say) is asked again next time, as before
                    self._evaluated[key] = hit
        return iter(hit)


def _unreadable_page(project: str, exc: ValueError) -> FetchError:
    """An index page unearth could not parse (not UTF-8, not JSON): the index answered, wrongly,
    so it is bad input (exit 2), said in one line instead of a parser's traceback."""
    from drift.output import visible

    what = "is not UTF-8" if isinstance(exc, UnicodeDecodeError) else "is not a simple-index page drift can read"
    return FetchError(f"the package index's page for {visible(project)} {what} ({visible(str(exc)[:200])})")


def make_client(settings: PipSettings) -> RecordingClient:
    """One HTTP client for index pages and range reads: pip's certificate, client cert and proxy."""
    verify: ssl.SSLContext | bool = True
    if settings.cert or settings.client_cert:
        verify = tls_context(settings)  # built once per process, often already by pipconfig.warm_tls
    client = RecordingClient(trusted_hosts=settings.trusted_hosts, verify=verify, proxy=settings.proxy,
                             timeout=httpx2.Timeout(settings.timeout), follow_redirects=True)
    client.auth = MultiDomainBasicAuth(prompting=False, index_urls=settings.index_urls)
    return client


class Index:
    """The user's indexes and find-links, behind one lookup object (one client, reused)."""

    def __init__(self, settings: PipSettings | None = None) -> None:
        self.settings = settings or pip_settings()
        self.client = make_client(self.settings)
        # pip warns about and skips a find-links path that does not exist; unearth would raise
        find_links = [f for f in self.settings.find_links if "://" in f or os.path.exists(f)]
        with without_optional("requests"):  # its legacy-session check imports requests (~0.08 s) to test our client
            # every file counts whatever its platform, Python or Requires-Python: drift reads a
            # release's Python source and never installs it, and that source is the same in every
            # wheel of a release (vLLM's CPU nightlies ship macOS wheels only, and a Linux CI
            # runner must still read them). Among one release's files unearth ranks a wheel for
            # this interpreter first, then a wheel for another, then the sdist.
            self.finder = SharedFinder(session=self.client, index_urls=self.settings.index_urls,
                                        find_links=find_links, trusted_hosts=self.settings.trusted_hosts,
                                        ignore_compatibility=True)
        if not self.settings.index_urls and not find_links:
            self.finder.sources.clear()  # --no-index and no find-links: nothing to ask, as pip

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def resolve(self, req: Requirement, *, pre: bool = False) -> Resolved:
        """The file to read for `req`: the newest matching release, its wheel for this
        interpreter if it has one, else a wheel for another platform (`foreign`), else its sdist.
        `pre`: pre-releases and dev versions count as any other (`--pre`); otherwise, as pip,
        only when named or when nothing else fits."""
        pre = pre or bool(req.specifier.prereleases)
        try:
            match = self.finder.find_best_match(req, allow_prereleases=pre)
            if match.best is None and not pre:
                match = self.finder.find_best_match(req, allow_prereleases=True)
        except httpx2.HTTPError as exc:
            raise IndexUnreachable(f"cannot read the package index while looking for {req}: {exc}") from None
        if match.best is None:
            self._explain(req, [p.version for p in match.candidates if p.version])
        best = match.best
        link = best.link
        hashes = dict(link.hash_option and {k: v[0] for k, v in link.hash_option.items()} or {})
        return Resolved(name=canonicalize_name(best.name), version=str(best.version), url=link.url_without_fragment,
                        filename=link.filename, is_wheel=link.is_wheel, hashes=hashes,
                        foreign=foreign_platform(link.filename) is not None)

    def versions(self, name: str) -> list[str]:
        """Every release with a file, newest first (yanked ones left out), whatever platform or
        Python its files are built for: drift reads a release, it never installs it, and the
        newest nightly may have wheels for macOS only."""
        try:
            found = _newest_first(p.version for p in self.finder.find_all_packages(name) if p.version)
        except httpx2.HTTPError as exc:
            raise IndexUnreachable(f"cannot read the package index while listing {name}: {exc}") from None
        if not found:
            self._explain(Requirement(name), [])
        return found

    def _explain(self, req: Requirement, seen: list[str]) -> None:
        """Raise the error that says why nothing matched."""
        name = canonicalize_name(req.name)
        outcomes = {url: how for url, how in self.client.pages.items() if f"/{name}/" in url or url.rstrip("/").endswith(f"/{name}")}
        exists = bool(seen) or "ok" in outcomes.values() or self._local_index_has(name)
        if exists:
            known = _newest_first(seen)
            tail = f"; newest versions: {', '.join(known[:8])}" if known else "; the index lists no file of it"
            raise NoMatchingRelease(f"no release matches {req}{tail}")
        failed = {url: how for url, how in self.client.pages.items() if how not in ("ok", "missing")}
        if failed:
            url, how = next(iter(failed.items()))
            raise IndexUnreachable(f"cannot read the package index {_redact(url)} ({how}) while looking for {req}")
        where = ", ".join(_redact(u) for u in (*self.settings.index_urls, *self.settings.find_links)) or "no index (--no-index)"
        raise ProjectNotFound(f"no project named {req.name!r} on {where}")

    def _local_index_has(self, name: str) -> bool:
        for url in self.settings.index_urls:
            parts = urlsplit(url)
            if parts.scheme == "file":
                if (Path(url2pathname(parts.path)) / name).is_dir():
                    return True
        return False


def open_index(settings: PipSettings | None = None) -> Index:
    """An Index on the user's pip settings; a setting that cannot be used is a FetchError."""
    try:
        return Index(settings)
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise FetchError(f"pip's settings cannot be used for the package index: {exc}") from None


def _newest_first(versions) -> list[str]:
    parsed = {}
    for text in versions:
        try:
            parsed.setdefault(Version(str(text)), str(text))
        except InvalidVersion:
            continue
    return [parsed[v] for v in sorted(parsed, reverse=True)]
