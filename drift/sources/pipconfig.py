"""The user's pip settings that decide where a release comes from, read the way pip reads them.

drift fetches with its own HTTP client, so it must ask the same indexes with the same
credentials, certificates and proxy as `pip download` would, or a user behind a private mirror
gets a different answer (or none). On Linux and other non-macOS Unixes the files are read here
in pip's order with pip's parser (`_items_from_files`, tested item for item against pip's own
`Configuration`), because importing pip's module is ~0.15 s before a cold fetch's first request;
elsewhere pip's own `Configuration` class is used when it imports
(config files in pip's order, then `PIP_*` variables, `PIP_CONFIG_FILE=os.devnull` honoured);
if pip's internals have moved, `pip config list` gives the same items as text. Either way the
sections are layered as pip's option parser does: `global`, then `download`, then the
environment.
"""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
import threading
from dataclasses import dataclass

PYPI = "https://pypi.org/simple/"
_ORDER = ("global", "download", ":env:")
_LISTS = ("extra-index-url", "find-links", "trusted-host")


@dataclass(frozen=True)
class PipSettings:
    """Where to look and how to connect: the subset of pip's options a download uses."""

    index_url: str = PYPI
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    no_index: bool = False
    trusted_hosts: tuple[str, ...] = ()
    cert: str | None = None
    client_cert: str | None = None
    proxy: str | None = None
    timeout: float = 15.0

    @property
    def index_urls(self) -> tuple[str, ...]:
        return () if self.no_index else (self.index_url, *self.extra_index_urls)


def _items_from_pip() -> list[tuple[str, str]]:
    from pip._internal.configuration import Configuration  # pip's own reader, when it imports

    config = Configuration(isolated=False)
    config.load()
    merged: dict[str, str] = {}
    for key, value in config.items():
        if isinstance(value, dict):  # newer pip keys each file's options by the file's name, later files winning
            merged.update((k, str(v)) for k, v in value.items())
        else:
            merged[key] = str(value)
    return list(merged.items())


def _items_from_cli() -> list[tuple[str, str]]:
    proc = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True)
    items = []
    for line in proc.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            try:
                items.append((key.strip(), str(ast.literal_eval(value.strip()))))
            except (ValueError, SyntaxError):
                items.append((key.strip(), value.strip().strip("'\"")))
    return items


def layered(items: list[tuple[str, str]]) -> dict[str, str]:
    """One value per option: `global` < `download` < environment, empty values ignored (as pip)."""
    out: dict[str, str] = {}
    for section in _ORDER:
        for key, value in items:
            where, _, name = key.partition(".")
            if where == section and value:
                out[name.replace("_", "-")] = value
    return out


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "yes", "true", "on")


def settings_from(options: dict[str, str]) -> PipSettings:
    def split(name: str) -> tuple[str, ...]:
        return tuple(options.get(name, "").split())

    timeout = options.get("timeout") or options.get("default-timeout")
    return PipSettings(
        index_url=options.get("index-url") or PYPI,
        extra_index_urls=split("extra-index-url"),
        find_links=split("find-links"),
        no_index=_truthy(options.get("no-index")),
        trusted_hosts=split("trusted-host"),
        cert=options.get("cert"),
        client_cert=options.get("client-cert"),
        proxy=options.get("proxy"),
        timeout=float(timeout) if timeout else 15.0,
    )


_TLS: dict[tuple, object] = {}
_TLS_LOCK = threading.Lock()


def tls_context(settings: PipSettings):
    """The `ssl` context for pip's certificate and client certificate, built once per process
    (per version of those files).

    Loading a CA bundle is ~0.04 s of a cold fetch (the system's 140 roots parsed), so
    `warm_tls` builds it in a thread while the fetch's first thread imports the HTTP client;
    whoever asks first waits for that one build. A build that fails is not kept: the caller's
    own build raises the error."""
    import ssl

    key = tuple((path, tuple(_stamp(path) or ())) if path else None for path in (settings.cert, settings.client_cert))
    with _TLS_LOCK:  # a file changed since is read again
        hit = _TLS.get(key)
        if hit is None:
            hit = ssl.create_default_context(cafile=settings.cert) if settings.cert else ssl.create_default_context()
            if settings.client_cert:
                hit.load_cert_chain(settings.client_cert)
            _TLS[key] = hit
        return hit


def warm_tls() -> None:
    """Start building the context pip's settings call for, in a daemon thread (see tls_context)."""
    def build() -> None:
        try:
            settings = pip_settings()
            if settings.cert or settings.client_cert:
                tls_context(settings)
        except Exception:  # noqa: BLE001 - only a head start; the fetch builds it and reports
            pass

    threading.Thread(target=build, name="drift-tls", daemon=True).start()


def pip_settings() -> PipSettings:
    """The settings in force now; re-read whenever a `PIP_*` variable changes."""
    return _cached(tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("PIP_"))))


@functools.lru_cache(maxsize=4)
def _cached(_env: tuple[tuple[str, str], ...]) -> PipSettings:
    items = _items_from_files()
    if items is not None:
        return settings_from(layered(items))
    items = _items_from_disk_cache()
    if items is None:
        try:
            items = _items_from_pip()
            _save_disk_cache(items)
        except Exception:  # pip absent or its internals changed: its CLI prints the same items
            items = _items_from_cli()
    return settings_from(layered(items))


# pip's file order on a Unix other than macOS (pip._internal.configuration.get_configuration_files
# and iter_config_files, with pip's appdirs over platformdirs): unchanged since pip 10.
_BASENAME = "pip.conf"
_IGNORED_ENV = ("version", "help")


def config_files() -> list[tuple[str, list[str]]]:
    """(kind, files) in the order pip loads them, or [] where only pip itself knows (macOS,
    Windows: their application-data folders are platformdirs' to say)."""
    if os.name != "posix" or sys.platform == "darwin":
        return []
    env_file = os.environ.get("PIP_CONFIG_FILE")
    dirs = os.environ.get("XDG_CONFIG_DIRS", "")
    dirs = dirs if dirs.strip() else "/etc/xdg"
    site_dirs = [os.path.join(os.path.expanduser(d), "pip") for d in dirs.split(os.pathsep)] + ["/etc"]
    home = os.environ.get("XDG_CONFIG_HOME", "")
    home = home if home.strip() else os.path.expanduser("~/.config")
    out = [("env", [env_file] if env_file is not None else []),
           ("global", [os.path.join(d, _BASENAME) for d in site_dirs])]
    if not (env_file and os.path.exists(env_file)):  # a PIP_CONFIG_FILE that exists replaces the user's files
        out.append(("user", [os.path.join(os.path.expanduser("~"), ".pip", _BASENAME),
                             os.path.join(home, "pip", _BASENAME)]))
    out.append(("site", [os.path.join(sys.prefix, _BASENAME)]))
    return out


def _normalize(name: str) -> str:
    name = name.lower().replace("_", "-")
    return name[2:] if name.startswith("--") else name


def _items_from_files() -> list[tuple[str, str]] | None:
    """pip's `Configuration(isolated=False).load().items()` without importing pip (~0.15 s, a
    sixth of a cold fetch, before its first request): the same files in the same order, read
    with the same parser and encoding, layered global < user < site < PIP_CONFIG_FILE < PIP_*
    variables. None where pip's own module must say (another platform, a file configparser
    refuses: pip's error is the one to show)."""
    import configparser
    import locale

    kinds = config_files()
    if not kinds:
        return None
    by_kind: dict[str, dict[str, str]] = {kind: {} for kind, _ in kinds}
    if kinds[0][1][:1] != [os.devnull]:  # PIP_CONFIG_FILE=os.devnull: no file at all, as pip
        for kind, files in kinds:
            for fname in files:
                if not os.path.exists(fname):
                    continue
                parser = configparser.RawConfigParser()
                try:
                    parser.read(fname, encoding=locale.getpreferredencoding(False))
                except (UnicodeDecodeError, configparser.Error):
                    return None
                for section in parser.sections():
                    for name, value in parser.items(section):
                        by_kind[kind][f"{section}.{_normalize(name)}"] = value
    env = {f":env:.{_normalize(k[4:].lower())}": v for k, v in os.environ.items()
           if k.startswith("PIP_") and k[4:].lower() not in _IGNORED_ENV}
    merged: dict[str, str] = {}
    for kind in ("global", "user", "site", "env"):  # pip's OVERRIDE_ORDER
        merged.update(by_kind.get(kind, {}))
    merged.update(env)
    return list(merged.items())


# Importing pip's configuration module costs ~0.15 s (it pulls in pip's vendored rich), a sixth
# of a whole cold fetch. Its answer depends only on the files pip reads and the environment, so
# it is kept beside drift's cache with the stat of every file pip would look at (present or
# not); any change to those, to the environment, or to pip itself reads pip's config afresh.
_LOCATION_ENV = ("HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "APPDATA", "VIRTUAL_ENV")


def _disk_cache_path():
    from drift.sources.cache import cache_root

    return cache_root() / "pip-settings.json"


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _context() -> dict:
    import importlib.util

    pip_spec = importlib.util.find_spec("pip")
    return {"python": sys.executable, "prefix": sys.prefix,
            "pip": _stamp(pip_spec.origin) if pip_spec and pip_spec.origin else None,
            "env": sorted([k, v] for k, v in os.environ.items()
                          if k.startswith("PIP_") or k in _LOCATION_ENV)}


def _items_from_disk_cache() -> list[tuple[str, str]] | None:
    import json

    try:
        saved = json.loads(_disk_cache_path().read_text())
        if saved.get("context") != _context():
            return None
        if any(_stamp(path) != stamp for path, stamp in saved["files"]):
            return None
        return [(k, v) for k, v in saved["items"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _save_disk_cache(items: list[tuple[str, str]]) -> None:
    import json

    from pip._internal.configuration import get_configuration_files

    files = [p for paths in get_configuration_files().values() for p in paths]
    if os.environ.get("PIP_CONFIG_FILE"):
        files.append(os.environ["PIP_CONFIG_FILE"])
    record = {"context": _context(), "files": [[p, _stamp(p)] for p in files], "items": items}
    path = _disk_cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(record))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the next run 0.15 s
