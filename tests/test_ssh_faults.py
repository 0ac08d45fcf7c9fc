"""Faults on real links: a host in its own network namespace loses its wire mid-command, a
session process dies, a host is blackholed or down. Each must end as a classified
ConnectorError within the keepalive budget, never a hang."""

import asyncio
import signal
import subprocess
from pathlib import Path

import pytest

from drift.remote.connectors.base import ConnectorError
from drift.remote.connectors.ssh import connect
from drift.remote.fleet import run_fleet

pytestmark = [pytest.mark.ssh, pytest.mark.netns]

# A hang would be a bug; this bound only turns one into a failure instead of a stuck suite.
HANG_GUARD_S = 30


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, HANG_GUARD_S))


async def _cut_during(server, cut, *, keepalive=1.0, command=("sleep", "60")):
    conn = await connect(server.spec, **server.connect_kwargs(keepalive=keepalive))
    try:
        task = asyncio.ensure_future(conn.run(list(command)))
        await asyncio.sleep(0.5)
        assert not task.done()
        await asyncio.to_thread(cut)
        return await task
    finally:
        await conn.close()


@pytest.fixture(scope="module")
def ns_pair(netns_factory):
    """Two namespaced hosts sharing one user key."""
    a = netns_factory()
    b = netns_factory(user_key=Path(a[1].identity))
    return a, b


def test_namespaced_host_is_a_separate_host(ns_pair):
    (ns, server), _ = ns_pair

    async def go():
        c = await connect(server.spec, **server.connect_kwargs())
        try:
            return (await c.run(["sh", "-c", "echo $SSH_CONNECTION"])).stdout.split()
        finally:
            await c.close()

    client_ip, _, server_ip, port = run(go())
    assert (client_ip.decode(), server_ip.decode(), port) == (ns.gateway, ns.address, b"22")


def test_link_cut_mid_command_is_unreachable_not_a_hang(ns_pair):
    (ns, server), _ = ns_pair
    try:
        with pytest.raises(ConnectorError) as err:
            run(_cut_during(server, lambda: ns.link(False)))
    finally:
        ns.link(True)
    assert err.value.category == "unreachable"
    assert "connection lost during `sleep`" in str(err.value)


def test_blackholed_host_fails_to_connect_quickly(ns_pair):
    _, (ns, server) = ns_pair
    ns.link(False)
    try:
        with pytest.raises(ConnectorError) as err:
            run(connect(server.spec, **server.connect_kwargs(connect_timeout=2)))
    finally:
        ns.link(True)
    assert err.value.category == "unreachable"


def test_killed_session_process_is_connection_lost(sshd_factory):
    server = sshd_factory()

    def kill_sessions():
        children = subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True, text=True).stdout.split()
        assert children, "no sshd session process found"
        for pid in children:
            subprocess.run(["kill", f"-{int(signal.SIGKILL)}", pid])

    with pytest.raises(ConnectorError) as err:
        run(_cut_during(server, kill_sessions, keepalive=15))
    assert err.value.category == "unreachable" and "connection lost" in str(err.value)


def test_stopped_sshd_is_refused(netns_factory):
    ns, server = netns_factory()
    server.stop()
    with pytest.raises(ConnectorError) as err:
        run(connect(server.spec, **server.connect_kwargs()))
    assert err.value.category == "unreachable" and "refused" in str(err.value)


def test_fleet_over_namespaces_with_one_cut(ns_pair, sshd):
    """Three hosts (two namespaces and loopback), one wire cut: the other two still report."""
    (ns_a, a), (ns_b, b) = ns_pair
    known = Path(a.workdir) / "fleet_known_hosts"
    known.write_text(a.host_public_line() + b.host_public_line() + sshd.host_public_line())
    identities = {a.spec: a.identity, b.spec: b.identity, sshd.spec: sshd.identity}

    async def job(spec):
        conn = await connect(spec, identity=[identities[spec]], known_hosts=str(known),
                             config_file=a.write_ssh_config(""), connect_timeout=2, keepalive=1)
        try:
            return (await conn.run(["hostname"])).exit_status
        finally:
            await conn.close()

    ns_b.link(False)
    try:
        outcomes = run(run_fleet([a.spec, b.spec, sshd.spec], job, forks=3))
    finally:
        ns_b.link(True)
    assert [(o.name, o.status) for o in outcomes] == [(a.spec, "ok"), (b.spec, "unreachable"), (sshd.spec, "ok")]
