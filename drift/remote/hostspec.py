"""Parse host specs the way people type them for OpenSSH.

Accepted: ``host``, ``user@host``, ``host:port``, ``user@host:port``,
``ssh://[user@]host[:port]``, bracketed IPv6 ``[::1]`` / ``[::1]:2222`` and bare IPv6
(``::1``, ``fe80::1%eth0``; a bare IPv6 address never carries a port, as with ssh).
Invalid specs raise :class:`HostSpecError` with a message that says what was wrong, so the
CLI prints it and exits with the usage code instead of a traceback.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

__all__ = ["HostSpec", "HostSpecError", "parse_hostspec"]

_USER_RE = re.compile(r"^[A-Za-z0-9._][A-Za-z0-9._+-]*\$?$")
_HOST_LABEL_RE = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")


class HostSpecError(ValueError):
    """A host spec that cannot name a host; the message says why."""


@dataclass(frozen=True)
class HostSpec:
    host: str  # IPv6 addresses are stored without brackets
    user: str | None = None
    port: int | None = None

    @property
    def is_ipv6(self) -> bool:
        return ":" in self.host

    def __str__(self) -> str:
        host = f"[{self.host}]" if self.is_ipv6 else self.host
        user = f"{self.user}@" if self.user else ""
        return f"{user}{host}" if self.port is None else f"{user}{host}:{self.port}"

    def known_hosts_name(self) -> str:
        """The name OpenSSH writes into known_hosts: ``[host]:port`` for a non-default port."""
        if self.port is None or self.port == 22:
            return self.host
        return f"[{self.host}]:{self.port}"


def _parse_port(text: str, spec: str) -> int:
    if not text.isdigit():
        raise HostSpecError(f"bad port {text!r} in host spec {spec!r}: expected a number 1-65535")
    port = int(text)
    if not 1 <= port <= 65535:
        raise HostSpecError(f"port {port} in host spec {spec!r} is out of range 1-65535")
    return port


def _check_host(host: str, spec: str) -> str:
    if not host:
        raise HostSpecError(f"no host in host spec {spec!r}")
    if ":" in host:
        addr = host.split("%", 1)[0]
        try:
            ipaddress.IPv6Address(addr)
        except ValueError:
            raise HostSpecError(f"{host!r} in host spec {spec!r} is not a valid IPv6 address") from None
        return host
    if len(host) > 253:
        raise HostSpecError(f"host name in {spec!r} is longer than 253 characters")
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    for label in labels:
        if not _HOST_LABEL_RE.match(label):
            raise HostSpecError(
                f"{host!r} in host spec {spec!r} is not a valid host name "
                "(letters, digits, '-', '_' and '.' only)"
            )
    return host


def _check_user(user: str, spec: str) -> str:
    if not _USER_RE.match(user):
        raise HostSpecError(f"bad user name {user!r} in host spec {spec!r}")
    return user


def parse_hostspec(spec: str, *, default_port: int | None = None) -> HostSpec:
    """Parse one host spec; ``default_port`` fills in a port the spec leaves out."""
    if not isinstance(spec, str):
        raise HostSpecError(f"host spec must be a string, not {type(spec).__name__}")
    original = spec
    text = spec.strip()
    if not text:
        raise HostSpecError("empty host spec")
    if any(ch.isspace() for ch in text):
        raise HostSpecError(f"host spec {original!r} contains whitespace")
    if "://" in text:
        scheme, _, text = text.partition("://")
        if scheme.lower() != "ssh":
            raise HostSpecError(f"unsupported scheme {scheme!r} in {original!r}: only ssh:// is understood")
        text = text.rstrip("/")
        if "/" in text:
            raise HostSpecError(f"a path is not allowed in host spec {original!r}")

    user: str | None = None
    if "@" in text:
        user, _, text = text.rpartition("@")
        user = _check_user(user, original)

    port: int | None = None
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise HostSpecError(f"unclosed '[' in host spec {original!r}")
        host, rest = text[1:close], text[close + 1 :]
        if rest:
            if not rest.startswith(":"):
                raise HostSpecError(f"unexpected {rest!r} after ']' in host spec {original!r}")
            port = _parse_port(rest[1:], original)
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
        port = _parse_port(port_text, original)
    else:
        host = text  # plain name, or bare IPv6 (2+ colons, no port possible)

    host = _check_host(host, original)
    if port is None:
        port = default_port
    return HostSpec(host=host, user=user, port=port)
