"""SSH connector on asyncssh with OpenSSH habits.

~/.ssh/config (or -F) is honoured through asyncssh's own config loader (Include, Match,
IdentityFile, UserKnownHostsFile); ProxyJump hops are opened here so every hop gets the same
host-key policy. The agent is used when SSH_AUTH_SOCK is set, and host keys are checked like
OpenSSH's StrictHostKeyChecking=yes / accept-new: an unknown host is refused with its SHA256
fingerprint unless told to accept it (and what was recorded is said), a changed key is always
refused, an entry for the same name on another port is "unknown" (not "changed"), and a
known_hosts line that is not UTF-8 is skipped with a warning, as ssh does.
Every failure leaves as ConnectorError with a category the CLI maps to an exit code.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import os
import posixpath
import secrets
import shlex
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import asyncssh

from drift.remote.connectors.base import ConnectorError, RunResult
from drift.remote.connectors.base import read_capped as _capped, read_tail as _tail
from drift.remote.hostspec import HostSpecError, parse_hostspec

__all__ = ["SSHConnector", "connect"]

DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"
STDERR_LIMIT = 256_000  # bytes of a command's stderr kept (its tail)


class _OpenSSHKnownHosts(asyncssh.SSHKnownHosts):
    """known_hosts matched as OpenSSH does: on a port other than 22 only `[host]:port` entries
    (and patterns matching that form) count. asyncssh falls back to the bare name, which would
    make another sshd on the same address look like a changed key of the first."""

    def match(self, host: str, addr: str, port: int | None):
        return self._match(host, addr, port if port not in (None, 22) else None)


def _warn_stderr(message: str) -> None:
    print(message, file=sys.stderr)


@dataclass
class _HostKeyPolicy:
    """Decides on a host key the known_hosts files do not already trust; remembers why."""

    files: list[str]  # read all, write new entries to the first
    accept_new: bool
    hash_names: bool
    warn: Callable[[str], None] = _warn_stderr
    had_entry: bool = False
    offered: asyncssh.SSHKey | None = None
    offered_name: str = ""
    recorded: bool = False

    def _load(self) -> asyncssh.SSHKnownHosts:
        known = _OpenSSHKnownHosts()
        for path in self.files:
            try:
                data = Path(path).expanduser().read_bytes()
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise ConnectorError(f"cannot read known_hosts file {path}: {exc.strerror or exc}",
                                     category="usage") from None
            for lineno, raw in enumerate(data.splitlines(), 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    self.warn(f"drift: warning: {path}:{lineno} is not UTF-8; that line is skipped")
                    continue
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                try:
                    known.load(line)
                except (ValueError, asyncssh.KeyImportError) as exc:  # OpenSSH skips it too
                    self.warn(f"drift: warning: {path}:{lineno} is not a known_hosts entry ({exc}); skipped")
        return known

    def match(self, host: str, addr: str, port: int | None):
        result = self._load().match(host, addr, port)
        self.had_entry = bool(result[0] or result[1])
        return result

    def validate(self, host: str, port: int, key: asyncssh.SSHKey) -> bool:
        self.offered = key
        self.offered_name = host if port in (None, 22) else f"[{host}]:{port}"
        if self.had_entry or not self.accept_new:
            return False
        path = self._record(key)
        self.recorded = True
        self.warn(f"drift: recorded the {key.get_algorithm()} host key of {self.offered_name} "
                  f"({_fingerprint(key)}) in {path}")
        return True

    def _record(self, key: asyncssh.SSHKey) -> Path:
        name = self.offered_name
        if self.hash_names:
            salt = secrets.token_bytes(20)
            digest = hmac.new(salt, name.encode(), hashlib.sha1).digest()
            name = f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"
        alg, blob = key.export_public_key("openssh").decode().split()[:2]
        path = Path(self.files[0]).expanduser()
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            needs_newline = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, "a") as fh:
                fh.write(("\n" if needs_newline else "") + f"{name} {alg} {blob}\n")
        except OSError as exc:
            raise ConnectorError(f"cannot record host key in {path}: {exc.strerror or exc}", category="usage") from None
        return path


class _Client(asyncssh.SSHClient):
    def __init__(self, policy: _HostKeyPolicy):
        self._policy = policy

    def validate_host_public_key(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> bool:
        return self._policy.validate(host, port, key)


def _fingerprint(key: asyncssh.SSHKey | None) -> str:
    return key.get_fingerprint("sha256") if key is not None else "(no key received)"


def _hostkey_error(spec: str, policy: _HostKeyPolicy, exc: Exception) -> ConnectorError:
    key, where = policy.offered, ", ".join(policy.files)
    if key is None:
        return ConnectorError(f"{spec}: host key not verifiable: {exc}", category="hostkey")
    fp, alg = _fingerprint(key), key.get_algorithm()
    if policy.had_entry:
        return ConnectorError(
            "@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\n"
            f"{spec}: the {alg} host key of {policy.offered_name} is now {fp}, which does not match "
            f"the key recorded in {where}. Someone could be intercepting the connection, or the host "
            "was reinstalled. drift refuses to connect.",
            category="hostkey",
            hint=f"if the change is expected, remove the old entry: ssh-keygen -R '{policy.offered_name}'",
        )
    return ConnectorError(
        f"{spec}: host {policy.offered_name} is not in known_hosts ({where}); "
        f"its {alg} key fingerprint is {fp}",
        category="hostkey",
        hint="verify the fingerprint, then re-run with --accept-new to record it",
    )


def _classify(spec: str, exc: BaseException, *, policy: _HostKeyPolicy, timeout: float) -> ConnectorError:
    if isinstance(exc, ConnectorError):
        return exc
    if isinstance(exc, asyncssh.HostKeyNotVerifiable):
        return _hostkey_error(spec, policy, exc)
    if isinstance(exc, asyncssh.PermissionDenied):
        return ConnectorError(
            f"{spec}: authentication refused ({exc.reason})",
            category="auth",
            hint="check the user, -i identity, ssh-agent keys and the host's authorized_keys",
        )
    if isinstance(exc, asyncio.TimeoutError):
        return ConnectorError(f"{spec}: timed out after {timeout:g}s while connecting", category="unreachable")
    if isinstance(exc, socket.gaierror):
        return ConnectorError(f"{spec}: cannot resolve host name: {exc.strerror or exc}", category="unreachable")
    if isinstance(exc, ConnectionRefusedError):
        return ConnectorError(f"{spec}: connection refused (is sshd running on that port?)", category="unreachable")
    if isinstance(exc, asyncssh.KeyImportError):
        return ConnectorError(f"{spec}: cannot load identity: {exc}", category="usage")
    if isinstance(exc, asyncssh.DisconnectError):
        return ConnectorError(f"{spec}: {exc.reason or type(exc).__name__}", category="unreachable")
    if isinstance(exc, (OSError, EOFError)):
        text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        if isinstance(exc, FileNotFoundError) and getattr(exc, "filename", None):
            return ConnectorError(f"{spec}: file not found: {exc.filename}", category="usage")
        return ConnectorError(f"{spec}: {text}", category="unreachable")
    if isinstance(exc, ValueError):  # asyncssh raises it for bad config/options
        return ConnectorError(f"{spec}: {exc}", category="usage")
    return ConnectorError(f"{spec}: {type(exc).__name__}: {exc}", category="unreachable")


class SSHConnector:
    """One open SSH connection; run/put/get share it (and one lazily opened SFTP session)."""

    def __init__(self, name: str, conn: asyncssh.SSHClientConnection, *, tunnels: list[asyncssh.SSHClientConnection]):
        self.name = name
        self._conn = conn
        self._tunnels = tunnels
        self._sftp: asyncssh.SFTPClient | None = None

    @property
    def host_key_fingerprint(self) -> str | None:
        key = self._conn.get_server_host_key()
        return key.get_fingerprint("sha256") if key is not None else None

    def _lost(self, what: str, exc: BaseException | None = None) -> ConnectorError:
        detail = f": {exc}" if exc is not None and str(exc) else ""
        return ConnectorError(f"{self.name}: connection lost during {what}{detail}", category="unreachable")

    async def run(self, argv: list[str], *, stdin: bytes | None = None, timeout: float | None = None,
                  limit: int | None = None) -> RunResult:
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ConnectorError("command must be a non-empty list of strings", category="usage")
        command = shlex.join(argv)
        what = f"`{argv[0]}`"
        try:
            proc = await self._conn.create_process(command, encoding=None)
        except (asyncssh.Error, ConnectionError, OSError, EOFError) as exc:
            raise self._lost(what, exc) from None
        try:
            out, err, truncated = await asyncio.wait_for(_communicate(proc, stdin, limit), timeout)
        except asyncio.TimeoutError:
            await _end(proc)
            raise ConnectorError(f"{self.name}: {what} timed out after {timeout:g}s", category="unreachable") from None
        except (asyncssh.DisconnectError, asyncssh.ChannelOpenError, ConnectionError, OSError, EOFError) as exc:
            raise self._lost(what, exc) from None
        except BaseException:  # cancelled (Ctrl-C): close the channel, the host ends the command
            await asyncio.shield(_end(proc))
            raise
        if truncated:
            await _end(proc)
            return RunResult(exit_status=None, stdout=out, stderr=err, truncated=True)
        if proc.exit_status is None and proc.exit_signal is None:
            # No exit report at all: the channel closed because the connection went away.
            raise self._lost(what)
        status = proc.exit_status if proc.exit_status is not None and proc.exit_status >= 0 else None
        return RunResult(exit_status=status, stdout=out, stderr=err)

    async def _sftp_client(self) -> asyncssh.SFTPClient:
        if self._sftp is None:
            try:
                self._sftp = await self._conn.start_sftp_client()
            except (asyncssh.Error, OSError) as exc:
                raise ConnectorError(f"{self.name}: cannot start SFTP: {exc}", category="unreachable") from None
        return self._sftp

    async def put(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        sftp = await self._sftp_client()
        directory, base = posixpath.split(path)
        tmp = posixpath.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")
        try:
            async with sftp.open(tmp, "wb", attrs=asyncssh.SFTPAttrs(permissions=0o600)) as fh:
                await fh.write(data)
            await sftp.chmod(tmp, mode)
            await sftp.posix_rename(tmp, path)
        except asyncssh.SFTPError as exc:
            try:
                await sftp.remove(tmp)
            except (asyncssh.SFTPError, asyncssh.Error, OSError):
                pass
            raise ConnectorError(f"{self.name}: cannot write {path}: {exc.reason}", category="usage") from None
        except (asyncssh.Error, OSError, EOFError) as exc:
            raise self._lost(f"put {path}", exc) from None

    async def get(self, path: str) -> bytes:
        sftp = await self._sftp_client()
        try:
            async with sftp.open(path, "rb") as fh:
                return await fh.read()
        except asyncssh.SFTPError as exc:
            raise ConnectorError(f"{self.name}: cannot read {path}: {exc.reason}", category="usage") from None
        except (asyncssh.Error, OSError, EOFError) as exc:
            raise self._lost(f"get {path}", exc) from None

    async def close(self) -> None:
        if self._sftp is not None:
            self._sftp.exit()
            self._sftp = None
        for conn in [self._conn, *reversed(self._tunnels)]:
            conn.close()
            try:
                await asyncio.wait_for(conn.wait_closed(), 5)
            except (asyncio.TimeoutError, asyncssh.Error, OSError):
                pass

    async def __aenter__(self) -> "SSHConnector":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _communicate(proc, stdin: bytes | None, limit: int | None) -> tuple[bytes, bytes, bool]:
    """Send stdin, read a bounded stdout and the tail of stderr, wait for the exit report."""
    async def feed() -> None:
        if stdin:
            proc.stdin.write(stdin)
            await proc.stdin.drain()
        proc.stdin.write_eof()

    feeder = asyncio.ensure_future(feed())
    err_task = asyncio.ensure_future(_tail(proc.stderr, STDERR_LIMIT))
    try:
        out, truncated = await _capped(proc.stdout, limit)
        if truncated:
            return out, b"", True
        err = await err_task
        try:
            await feeder
        except (asyncssh.Error, BrokenPipeError, ConnectionError):
            pass  # the command stopped reading; its output and status say why
        await proc.wait_closed()
    finally:
        for task in (feeder, err_task):
            task.cancel()
    return out, err[-STDERR_LIMIT:], False


async def _end(proc) -> None:
    """Ask the host to end the command and close the channel: drift's bootstrap on the host
    sees the channel hang up and ends the script's process group."""
    try:
        proc.terminate()  # the SSH "signal" request; sshd honours it for exec sessions
    except (asyncssh.Error, OSError, ValueError):
        pass
    proc.close()
    try:
        await asyncio.wait_for(proc.wait_closed(), 5)
    except (asyncio.TimeoutError, asyncssh.Error, OSError, EOFError):
        pass


async def connect(
    spec: str,
    *,
    identity: list[str] | None = None,
    jump: str | None = None,
    port: int | None = None,
    config_file: str | None = None,
    known_hosts: str | None = None,
    accept_new: bool = False,
    hash_known_hosts: bool = False,
    connect_timeout: float = 10,
    keepalive: float = 15,
    warn: Callable[[str], None] = _warn_stderr,
) -> SSHConnector:
    """Open an SSH connection to ``spec`` (``[user@]host[:port]``, ``ssh://…``, ``[v6]:port``).

    Explicit arguments win over the config file, which wins over defaults, as with ssh(1).
    ``jump`` is a comma-separated chain of host specs connected with the same options; so are
    ProxyJump hops from the config, which drift opens itself so that --known-hosts and
    --accept-new apply to every hop and a refused hop shows its fingerprint.
    """
    try:
        parsed = parse_hostspec(spec)
    except HostSpecError as exc:
        raise ConnectorError(str(exc), category="usage") from None
    if port is not None and not 1 <= port <= 65535:
        raise ConnectorError(f"port {port} is out of range 1-65535", category="usage")
    for path in identity or []:
        if not Path(path).expanduser().is_file():
            raise ConnectorError(f"identity file not found: {path}", category="usage")
    if config_file is not None and not Path(config_file).expanduser().is_file():
        raise ConnectorError(f"ssh config file not found: {config_file}", category="usage")

    common = dict(identity=identity, config_file=config_file, known_hosts=known_hosts, accept_new=accept_new,
                  hash_known_hosts=hash_known_hosts, connect_timeout=connect_timeout, keepalive=keepalive,
                  warn=warn)
    tunnels: list[asyncssh.SSHClientConnection] = []
    try:
        for hop in [h for h in (jump or "").split(",") if h.strip()]:
            hop_conn = await _open(hop.strip(), parsed=None, tunnel=tunnels[-1] if tunnels else None,
                                   port=None, opened=tunnels, label=f"jump host {hop.strip()}", **common)
            tunnels.append(hop_conn)
        conn = await _open(spec, parsed=parsed, tunnel=tunnels[-1] if tunnels else None, port=port,
                           opened=tunnels, label=spec, **common)
    except BaseException:
        for t in reversed(tunnels):
            t.close()
        raise
    return SSHConnector(spec, conn, tunnels=tunnels)


_MAX_HOPS = 8


async def _open(
    spec: str,
    *,
    parsed,
    tunnel: asyncssh.SSHClientConnection | None,
    identity: list[str] | None,
    port: int | None,
    config_file: str | None,
    known_hosts: str | None,
    accept_new: bool,
    hash_known_hosts: bool,
    connect_timeout: float,
    keepalive: float,
    warn: Callable[[str], None],
    opened: list[asyncssh.SSHClientConnection],
    label: str,
    depth: int = 0,
) -> asyncssh.SSHClientConnection:
    """One connection; ProxyJump hops the config names for it are opened first (into `opened`)."""
    if parsed is None:
        try:
            parsed = parse_hostspec(spec)
        except HostSpecError as exc:
            raise ConnectorError(f"{label}: {exc}", category="usage") from None
    kwargs: dict = {}
    if parsed.user:
        kwargs["username"] = parsed.user
    if port is not None or parsed.port is not None:
        kwargs["port"] = port if port is not None else parsed.port
    if identity:
        kwargs["client_keys"] = [str(Path(p).expanduser()) for p in identity]
    if tunnel is not None:
        kwargs["tunnel"] = tunnel
    config = [str(Path(config_file).expanduser())] if config_file else ()
    try:
        options = asyncssh.SSHClientConnectionOptions(host=parsed.host, config=config, **kwargs)
    except (ValueError, OSError, asyncssh.KeyImportError) as exc:
        raise _classify(label, exc, policy=_HostKeyPolicy([], False, False), timeout=connect_timeout) from None

    hops = options.tunnel if tunnel is None and isinstance(options.tunnel, str) else ""
    hops = "" if hops.strip().lower() == "none" else hops
    if hops:
        if depth >= _MAX_HOPS:
            raise ConnectorError(f"{label}: ProxyJump chain longer than {_MAX_HOPS} hops (a loop in the ssh config?)",
                                 category="usage")
        via = None
        for hop in [h.strip() for h in hops.split(",") if h.strip()]:
            via = await _open(hop, parsed=None, tunnel=via, identity=identity, port=None, config_file=config_file,
                              known_hosts=known_hosts, accept_new=accept_new, hash_known_hosts=hash_known_hosts,
                              connect_timeout=connect_timeout, keepalive=keepalive, warn=warn, opened=opened,
                              label=f"jump host {hop} (ProxyJump for {label})", depth=depth + 1)
            opened.append(via)
        kwargs["tunnel"] = via
        try:
            options = asyncssh.SSHClientConnectionOptions(host=parsed.host, config=config, **kwargs)
        except (ValueError, OSError, asyncssh.KeyImportError) as exc:
            raise _classify(label, exc, policy=_HostKeyPolicy([], False, False), timeout=connect_timeout) from None

    if known_hosts is not None:
        files = [known_hosts]
    elif options.known_hosts:  # UserKnownHostsFile from the config
        files = [str(f) for f in options.known_hosts]  # type: ignore[union-attr]
    else:
        files = [DEFAULT_KNOWN_HOSTS]
    policy = _HostKeyPolicy(files=files, accept_new=accept_new, hash_names=hash_known_hosts, warn=warn)
    try:
        return await asyncssh.connect(
            parsed.host,
            options=options,
            config=config,  # HostName, Port, User of this hop from the config
            tunnel=kwargs.get("tunnel"),  # never the config's ProxyJump: those hops were opened above
            known_hosts=policy.match,
            client_factory=lambda: _Client(policy),
            connect_timeout=connect_timeout,
            login_timeout=connect_timeout,
            keepalive_interval=keepalive,
            keepalive_count_max=3,
        )
    except (Exception, asyncio.TimeoutError) as exc:
        raise _classify(label, exc, policy=policy, timeout=connect_timeout) from None
