"""Real OpenSSH servers and a real "GPU host" Python environment for the SSH tests.

Loaded as a pytest plugin by tests/conftest.py. Everything here is real: /usr/sbin/sshd with a
private config on 127.0.0.1, keys made by ssh-keygen, a venv with real vLLM/speculators wheels
installed with --no-deps (cached under ~/.cache/drift-test/venvs so it is built once).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"
DEV_WHEELS = Path("/root/.cache/drift-dev")
VENV_CACHE = Path("~/.cache/drift-test/venvs").expanduser()
HOST_SPECS = ("vllm==0.16.0", "speculators==0.3.0")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(path: Path, comment: str = "drift-test") -> Path:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True, stdout=subprocess.DEVNULL,
    )
    return path


def sshd_skip_reason() -> str | None:
    if not os.path.exists(SSHD):
        return f"{SSHD} not installed (apt-get install openssh-server; see .ci/install-debs)"
    if shutil.which("ssh-keygen") is None:
        return "ssh-keygen not installed (apt-get install openssh-client)"
    if os.geteuid() != 0:
        return "sshd fixtures log in as root and need to run as root"
    return None


@dataclass
class SSHServer:
    """One running sshd; `spec` is what a user would type."""

    host: str
    port: int
    user: str
    identity: str
    known_hosts: str
    host_key: str  # private host key path (its .pub beside it)
    workdir: Path
    proc: subprocess.Popen | None = None
    netns: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def spec(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.user}@{host}:{self.port}"

    @property
    def known_hosts_name(self) -> str:
        return self.host if self.port == 22 else f"[{self.host}]:{self.port}"

    def host_public_line(self) -> str:
        alg, blob = Path(self.host_key + ".pub").read_text().split()[:2]
        return f"{self.known_hosts_name} {alg} {blob}\n"

    def write_ssh_config(self, text: str, name: str = "ssh_config") -> str:
        """Write an ~/.ssh/config-like file in this server's work dir and return its path."""
        path = self.workdir / name
        path.write_text(text)
        return str(path)

    def connect_kwargs(self, **over) -> dict:
        kw = dict(identity=[self.identity], known_hosts=self.known_hosts, config_file=self.write_ssh_config(""),
                  connect_timeout=5, keepalive=2)
        kw.update(over)
        return kw

    def stop(self) -> None:
        """Stop the listener and wait until its port refuses connections.

        The listening sshd's exit is not enough: a child it forked for a connection a moment
        earlier (the readiness probe's) holds the listening socket until it closes it, and a
        connection queued on that socket meanwhile is reset, not refused.
        """
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            end = time.monotonic() + 5
            while _accepts(self) and time.monotonic() < end:
                time.sleep(0.05)


def start_sshd(
    workdir: Path,
    *,
    listen: str = "127.0.0.1",
    port: int | None = None,
    authorized: list[Path] | None = None,
    user_key: Path | None = None,
    host_key: Path | None = None,
    netns: str | None = None,
    extra_config: str = "",
) -> SSHServer:
    """Start `sshd -D -e` with a private config; wait until it accepts connections."""
    workdir.mkdir(parents=True, exist_ok=True)
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation dir
    port = port or free_port()
    host_key = host_key or keygen(workdir / "ssh_host_ed25519_key", "drift-test-host")
    user_key = user_key or keygen(workdir / "id_ed25519", "drift-test-user")
    auth_file = workdir / "authorized_keys"
    keys = authorized if authorized is not None else [Path(str(user_key) + ".pub")]
    auth_file.write_text("".join(Path(k).read_text() for k in keys))
    config = workdir / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress {listen}\nHostKey {host_key}\n"
        f"AuthorizedKeysFile {auth_file}\nPidFile {workdir / 'sshd.pid'}\n"
        "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "Subsystem sftp internal-sftp\nMaxStartups 10:30:100\nLogLevel ERROR\n"
        "ClientAliveInterval 0\nUseDNS no\n" + extra_config
    )
    argv = [SSHD, "-D", "-e", "-f", str(config)]
    if netns:
        argv = ["ip", "netns", "exec", netns, *argv]
    log = open(workdir / "sshd.log", "ab")
    proc = subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    log.close()
    known = workdir / "known_hosts"
    server = SSHServer(
        host=listen, port=port, user="root", identity=str(user_key), known_hosts=str(known),
        host_key=str(host_key), workdir=workdir, proc=proc, netns=netns,
    )
    known.write_text(server.host_public_line())
    _wait_listening(server)
    return server


def _accepts(server: SSHServer) -> bool:
    """True if a TCP connection to the server's address completes (from inside its namespace)."""
    probe = ["bash", "-c", f"exec 3<>/dev/tcp/{server.host}/{server.port}"]
    if server.netns:
        probe = ["ip", "netns", "exec", server.netns, *probe]
    return subprocess.run(probe, stderr=subprocess.DEVNULL).returncode == 0


def _wait_listening(server: SSHServer, deadline: float = 10.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if server.proc.poll() is not None:
            log = (server.workdir / "sshd.log").read_text(errors="replace")
            raise RuntimeError(f"sshd exited with {server.proc.returncode}: {log[-2000:]}")
        if _accepts(server):
            return
        time.sleep(0.05)
    server.stop()
    raise RuntimeError(f"sshd on {server.host}:{server.port} did not start listening")


@pytest.fixture(scope="session")
def sshd(tmp_path_factory):
    """A real sshd on 127.0.0.1 (session scoped): host, port, user, identity, known_hosts."""
    reason = sshd_skip_reason()
    if reason:
        pytest.skip(reason)
    server = start_sshd(tmp_path_factory.mktemp("sshd"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def sshd_factory(tmp_path_factory):
    """Start extra sshds (other ports, other keys); all stopped at session end."""
    reason = sshd_skip_reason()
    if reason:
        pytest.skip(reason)
    started: list[SSHServer] = []

    def make(**kwargs) -> SSHServer:
        server = start_sshd(tmp_path_factory.mktemp("sshd-extra"), **kwargs)
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


# ---------------------------------------------------------------- the "GPU host" Python


def _wheel_or_spec(spec: str) -> str:
    name, _, version = spec.partition("==")
    for wheel in sorted(DEV_WHEELS.glob(f"{name.replace('-', '_')}-{version}-*.whl")):
        return str(wheel)
    return spec


def build_host_venv(specs: tuple[str, ...]) -> Path:
    """Build (once) a venv with `pip install --no-deps` of `specs`; return its python."""
    key = hashlib.sha256(("\n".join(sorted(specs)) + sys.version).encode()).hexdigest()[:16]
    root = VENV_CACHE / key
    python = root / "bin" / "python"
    if (root / ".complete").exists() and python.exists():
        return python
    if root.exists():
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    targets = [_wheel_or_spec(s) for s in specs]
    if targets:
        # This interpreter's pip installs into the venv via --prefix-free --python (pip >= 22.3).
        subprocess.run(
            [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
             "--disable-pip-version-check", "--no-compile", "-q", *targets],
            check=True,
        )
    (root / ".complete").write_text("\n".join(specs) + "\n")
    return python


@pytest.fixture(scope="session")
def host_venv():
    """Factory: host_venv(specs) -> path of a cached venv python with those releases installed."""
    cache: dict[tuple[str, ...], Path] = {}

    def make(specs: tuple[str, ...] | list[str] = HOST_SPECS) -> Path:
        key = tuple(specs)
        if key not in cache:
            try:
                cache[key] = build_host_venv(key)
            except subprocess.CalledProcessError as exc:
                pytest.skip(f"cannot build host venv for {key}: {exc}")
        return cache[key]

    return make


# Namespaced hosts for the fault tests; imported here so this plugin registers the fixture.
from tests.netns import netns_factory  # noqa: E402,F401


# ---------------------------------------------------------------- the hostile-host harness
# A host is untrusted input. These stand in for what a hostile or broken host can do: a
# `--python` that answers with crafted bytes, slowly, forever, or not at all, and login shells
# other than bash. tests/test_hostile_*.py use them over the real sshd above.

LOGIN_SHELLS = ("bash", "dash", "zsh", "fish", "tcsh")


def crafted_reply(doc) -> bytes:
    """What the probe bundle writes, for any document (or raw bytes after the marker)."""
    import json
    import zlib

    from drift.probes.bundle import MAGIC

    body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return MAGIC + zlib.compress(body, 6)


def real_reply(python: str, request: dict) -> dict:
    """The genuine probe document `python` gives for `request` (run here, as a host would)."""
    from drift.remote.connectors.script import build_payload
    from drift.probes.bundle import build_script, decode_output

    res = subprocess.run([python, "-"], input=build_payload(build_script(request)), capture_output=True,
                         timeout=300, check=True)
    return decode_output(res.stdout)


def _executable(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


@dataclass
class HostilePython:
    """Writes stand-in interpreters into one directory; each returns its path for --python."""

    root: Path
    count: int = 0

    def _path(self, kind: str) -> Path:
        self.count += 1
        return self.root / f"{kind}-{self.count}"

    def replying(self, reply: bytes, *, delay: float = 0) -> str:
        """Reads the script drift sends, then answers `reply` (after `delay` seconds)."""
        path = self._path("reply")
        data = path.with_suffix(".bin")
        data.write_bytes(reply)
        wait = f"sleep {delay:g}\n" if delay else ""
        return _executable(path, f"#!/bin/sh\ncat >/dev/null\n{wait}exec cat '{data}'\n")

    def endless(self) -> str:
        """Never stops writing to stdout."""
        return _executable(self._path("endless"), "#!/bin/sh\ncat >/dev/null\nexec yes DRIFT1\n")

    def hanging(self, python: str, pids: Path) -> str:
        """Runs drift's real bootstrap (its watchdog included), but the script it carries is
        replaced by one that forks a child, records both pids in `pids` and sleeps forever:
        a probe stuck on a dead NFS mount, say."""
        hang = ("import os, sys, time\n"
                "child = os.fork()\n"
                "if child == 0:\n"
                "    time.sleep(100000)\n"
                "    os._exit(0)\n"
                f"open({str(pids)!r}, 'w').write('%d %d' % (os.getpid(), child))\n"
                "time.sleep(100000)\n")
        return _executable(self._path("hang"), (
            f"#!{python}\n"
            "import re, sys\n"
            "src = sys.stdin.read()\n"
            f"src = re.sub(r'^_CODE = .*$', lambda m: '_CODE = ' + repr({hang!r}), src, count=1, flags=re.M)\n"
            "exec(compile(src, '<bootstrap>', 'exec'), {'__name__': '__main__'})\n"))


@pytest.fixture
def hostile_python(tmp_path):
    """Factory of stand-in `--python`s that answer like a hostile or broken host."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    return HostilePython(folder)


def pids_gone(pids: list[int], *, wait: float = 20.0) -> list[int]:
    """The pids still alive after waiting up to `wait` s for them to end (a bound, not a timing)."""
    end = time.monotonic() + wait
    alive = pids
    while time.monotonic() < end:
        alive = [p for p in pids if pid_alive(p)]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def pid_alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def login_user(shell: str) -> str:
    """A uid-0 account whose login shell is `shell` (Debian's bash, dash, zsh, fish or tcsh), so
    the sshd fixtures log in through that shell; created once, idempotently."""
    path = shutil.which(shell)
    if path is None:
        pytest.fail(f"{shell} is not installed (apt-get install {shell}; see .ci/install-debs)")
    name = f"drift-{shell}"
    home = Path(f"/var/tmp/drift-login-{shell}")
    home.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["getent", "passwd", name], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "-o", "-u", "0", "-g", "0", "-M", "-d", str(home), "-s", path, name],
                       check=True, capture_output=True)
    # "*": no password, but not "!" (locked), which sshd refuses even for key logins
    subprocess.run(["usermod", "-p", "*", name], check=True, capture_output=True)
    return name


def wait_until(predicate, what: str, limit: float = 30.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")
