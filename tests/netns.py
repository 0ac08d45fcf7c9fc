"""Network namespaces as separate "hosts" for fault tests (link cuts, blackholes).

Each host is a namespace joined to this one by a veth pair on a private /30 in 10.213.0.0/16;
the 10.x addresses exist only on links created here, so test traffic goes nowhere but into
namespaces this session made. Everything is removed in finalizers (deleting a namespace
deletes its end of the veth pair, which deletes the other end).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.sshd_fixtures import SSHServer, sshd_skip_reason, start_sshd


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


def netns_skip_reason() -> str | None:
    reason = sshd_skip_reason()
    if reason:
        return reason
    name = f"drift-chk-{os.getpid()}"
    try:
        added = _ip("netns", "add", name, check=False)
    except FileNotFoundError:
        return "iproute2 not installed (apt-get install iproute2; see .ci/install-debs)"
    if added.returncode != 0:
        return f"ip netns is not permitted here: {added.stderr.strip()}"
    _ip("netns", "del", name, check=False)
    return None


def _subnet_in_use(octet: int) -> bool:
    routes = _ip("-4", "route", "show", check=False).stdout
    return f"10.213.{octet}." in routes


@dataclass
class NetnsHost:
    """One namespace; `address` is the namespace side, reachable from here over the veth."""

    name: str
    host_if: str
    address: str
    gateway: str

    @classmethod
    def create(cls, index: int) -> "NetnsHost":
        pid = os.getpid()
        octet = (pid + index * 7) % 250 + 1
        while _subnet_in_use(octet):
            octet = octet % 250 + 1
        name, host_if, ns_if = f"drift-{pid}-{index}", f"dv{pid % 100000}h{index}", f"dv{pid % 100000}n{index}"
        host = cls(name=name, host_if=host_if, address=f"10.213.{octet}.2", gateway=f"10.213.{octet}.1")
        try:
            _ip("netns", "add", name)
            _ip("link", "add", host_if, "type", "veth", "peer", "name", ns_if)
            _ip("link", "set", ns_if, "netns", name)
            _ip("addr", "add", f"{host.gateway}/30", "dev", host_if)
            _ip("link", "set", host_if, "up")
            _ip("-n", name, "addr", "add", f"{host.address}/30", "dev", ns_if)
            _ip("-n", name, "link", "set", ns_if, "up")
            _ip("-n", name, "link", "set", "lo", "up")
        except subprocess.CalledProcessError as exc:
            host.destroy()
            raise RuntimeError(f"cannot set up namespace {name}: {exc.stderr.strip()}") from None
        return host

    def link(self, up: bool) -> None:
        """Cut or restore the wire: packets stop silently, as when a host's uplink dies."""
        _ip("link", "set", self.host_if, "up" if up else "down")

    def destroy(self) -> None:
        _ip("link", "del", self.host_if, check=False)
        _ip("netns", "del", self.name, check=False)


@pytest.fixture(scope="session")
def netns_factory(tmp_path_factory):
    """make(user_key=...) -> (NetnsHost, SSHServer): a real sshd inside a fresh namespace."""
    reason = netns_skip_reason()
    if reason:
        pytest.skip(reason)
    made: list[tuple[NetnsHost, SSHServer | None]] = []

    def make(*, user_key: Path | None = None) -> tuple[NetnsHost, SSHServer]:
        ns = NetnsHost.create(len(made))
        made.append((ns, None))
        server = start_sshd(tmp_path_factory.mktemp(ns.name), listen=ns.address, port=22,
                            user_key=user_key, netns=ns.name)
        made[-1] = (ns, server)
        return ns, server

    yield make
    for ns, server in made:
        if server is not None:
            server.stop()
        ns.destroy()
