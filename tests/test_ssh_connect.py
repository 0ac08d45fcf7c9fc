"""SSH connector against a real OpenSSH sshd: commands, files, config, agent, host keys, auth."""

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from drift.remote.connectors.base import ConnectorError
from drift.remote.connectors.ssh import _classify, _HostKeyPolicy, connect
from tests.sshd_fixtures import keygen

pytestmark = pytest.mark.ssh


def run(coro):
    return asyncio.run(coro)


async def _session(server, fn, **kw):
    conn = await connect(server.spec, **server.connect_kwargs(**kw))
    try:
        return await fn(conn)
    finally:
        await conn.close()


def test_run_quotes_argv_and_passes_stdin(sshd):
    async def go(c):
        weird = "a b; echo PWNED $(id) `id` 'q' \"dq\" \\ *"
        echo = await c.run(["printf", "%s", weird])
        cat = await c.run(["cat"], stdin=bytes(range(256)))
        fail = await c.run(["sh", "-c", "echo out; echo err >&2; exit 7"])
        return echo, cat, fail

    echo, cat, fail = run(_session(sshd, go))
    assert echo.ok and echo.stdout.decode() == "a b; echo PWNED $(id) `id` 'q' \"dq\" \\ *"
    assert cat.stdout == bytes(range(256))
    assert (fail.exit_status, fail.stdout, fail.stderr, fail.ok) == (7, b"out\n", b"err\n", False)


def test_missing_command_is_exit_127(sshd):
    res = run(_session(sshd, lambda c: c.run(["/nonexistent/python3", "-"], stdin=b"")))
    assert res.exit_status == 127 and b"No such file" in res.stderr


def test_put_is_atomic_and_get_reads_back(sshd, tmp_path):
    target = tmp_path / "dir with space" / "f.json"
    target.parent.mkdir()
    target.write_text("old")

    async def go(c):
        await c.put(str(target), b"new contents", mode=0o640)
        data = await c.get(str(target))
        with pytest.raises(ConnectorError) as missing:
            await c.get(str(tmp_path / "absent"))
        with pytest.raises(ConnectorError) as unwritable:
            await c.put(str(tmp_path / "no-such-dir" / "x"), b"")
        return data, missing.value, unwritable.value

    data, missing, unwritable = run(_session(sshd, go))
    assert data == b"new contents" and target.read_bytes() == b"new contents"
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)
    assert os.listdir(target.parent) == ["f.json"]  # no temp file left behind
    assert missing.category == "usage" and "absent" in str(missing)
    assert unwritable.category == "usage"


def test_command_timeout_is_an_error_not_a_hang(sshd):
    with pytest.raises(ConnectorError, match="timed out after 0.5s"):
        run(_session(sshd, lambda c: c.run(["sleep", "30"], timeout=0.5)))


def test_ssh_config_alias_include_and_match(sshd, tmp_path):
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    (conf_d / "gpu.conf").write_text(
        f"Match originalhost gpu-matched\n  HostName {sshd.host}\n  Port {sshd.port}\n"
    )
    config = sshd.write_ssh_config(
        f"Include {conf_d}/*.conf\n"
        f"Host gpu-alias gpu-matched\n  HostName {sshd.host}\n  Port {sshd.port}\n  User root\n"
        f"  IdentityFile {sshd.identity}\n  UserKnownHostsFile {sshd.known_hosts}\n",
        name="cfg_alias",
    )

    async def go(name):
        c = await connect(name, config_file=config, connect_timeout=5)
        try:
            return (await c.run(["whoami"])).stdout
        finally:
            await c.close()

    assert run(go("gpu-alias")) == b"root\n"
    assert run(go("gpu-matched")) == b"root\n"


def test_proxyjump_from_config_and_from_argument(sshd, sshd_factory, tmp_path):
    inner = sshd_factory(user_key=Path(sshd.identity))
    known = tmp_path / "kh"
    known.write_text(sshd.host_public_line() + inner.host_public_line())
    common = f"  User root\n  IdentityFile {sshd.identity}\n  UserKnownHostsFile {known}\n"
    config = sshd.write_ssh_config(
        f"Host jumpbox\n  HostName 127.0.0.1\n  Port {sshd.port}\n{common}"
        f"Host deadjump\n  HostName 127.0.0.1\n  Port 1\n{common}"
        f"Host inner\n  HostName 127.0.0.1\n  Port {inner.port}\n  ProxyJump jumpbox\n{common}"
        f"Host inner-dead\n  HostName 127.0.0.1\n  Port {inner.port}\n  ProxyJump deadjump\n{common}",
        name="cfg_jump",
    )

    async def go(name, **kw):
        c = await connect(name, config_file=config, connect_timeout=5, **kw)
        try:
            return (await c.run(["echo", "via"])).stdout
        finally:
            await c.close()

    assert run(go("inner")) == b"via\n"
    with pytest.raises(ConnectorError) as dead:  # the jump host really is on the path
        run(go("inner-dead"))
    assert dead.value.category == "unreachable"
    # -J given explicitly: same host-key checks and identities for every hop
    assert run(go(inner.spec, jump=sshd.spec, identity=[sshd.identity], known_hosts=str(known))) == b"via\n"


def test_agent_is_used_when_ssh_auth_sock_is_set(sshd, tmp_path, monkeypatch):
    sock = tmp_path / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if sock.exists():
                break
            subprocess.run(["sleep", "0.05"])
        env = dict(os.environ, SSH_AUTH_SOCK=str(sock))
        subprocess.run(["ssh-add", "-q", sshd.identity], env=env, check=True, stderr=subprocess.DEVNULL)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(sock))
        out = run(_session(sshd, lambda c: c.run(["true"]), identity=None))
        assert out.ok
    finally:
        agent.terminate()
        agent.wait()


def _fingerprint(pub: str) -> str:
    out = subprocess.run(["ssh-keygen", "-lf", pub], capture_output=True, text=True, check=True).stdout
    return out.split()[1]


def test_unknown_host_refused_with_fingerprint_then_accept_new(sshd, tmp_path):
    known = tmp_path / "known_hosts"
    with pytest.raises(ConnectorError) as err:
        run(_session(sshd, lambda c: c.run(["true"]), known_hosts=str(known)))
    assert err.value.category == "hostkey"
    assert _fingerprint(sshd.host_key + ".pub") in str(err.value)
    assert "--accept-new" in err.value.hint
    assert not known.exists()

    assert run(_session(sshd, lambda c: c.run(["true"]), known_hosts=str(known), accept_new=True)).ok
    assert known.read_text() == sshd.host_public_line()
    assert run(_session(sshd, lambda c: c.run(["true"]), known_hosts=str(known))).ok
    # OpenSSH itself trusts the entry drift wrote
    ssh = subprocess.run(
        ["ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
         "-o", f"UserKnownHostsFile={known}", "-i", sshd.identity, "-p", str(sshd.port),
         f"root@{sshd.host}", "true"],
        capture_output=True, text=True, timeout=20,
    )
    assert ssh.returncode == 0, ssh.stderr


def test_accept_new_hashed_entry_is_readable_by_ssh_keygen(sshd, tmp_path):
    known = tmp_path / "known_hosts"
    known.write_text("# keep me\n")
    assert run(_session(sshd, lambda c: c.run(["true"]), known_hosts=str(known), accept_new=True,
                        hash_known_hosts=True)).ok
    lines = known.read_text().splitlines()
    assert lines[0] == "# keep me" and lines[1].startswith("|1|") and len(lines) == 2
    found = subprocess.run(["ssh-keygen", "-F", sshd.known_hosts_name, "-f", str(known)],
                           capture_output=True, text=True)
    assert found.returncode == 0 and "ssh-ed25519" in found.stdout


def test_changed_host_key_is_refused_even_with_accept_new(sshd, tmp_path):
    other = keygen(tmp_path / "other_host_key")
    known = tmp_path / "known_hosts"
    alg, blob = Path(str(other) + ".pub").read_text().split()[:2]
    known.write_text(f"{sshd.known_hosts_name} {alg} {blob}\n")
    before = known.read_text()
    for accept in (False, True):
        with pytest.raises(ConnectorError) as err:
            run(_session(sshd, lambda c: c.run(["true"]), known_hosts=str(known), accept_new=accept))
        assert err.value.category == "hostkey"
        assert "CHANGED" in str(err.value) and _fingerprint(sshd.host_key + ".pub") in str(err.value)
        assert "ssh-keygen -R" in err.value.hint
    assert known.read_text() == before


def test_wrong_key_is_auth_error(sshd, tmp_path):
    stranger = keygen(tmp_path / "stranger")
    with pytest.raises(ConnectorError) as err:
        run(_session(sshd, lambda c: c.run(["true"]), identity=[str(stranger)]))
    assert err.value.category == "auth" and "authentication refused" in str(err.value)


def test_nothing_listening_is_unreachable(sshd):
    from tests.sshd_fixtures import free_port

    spec = f"root@127.0.0.1:{free_port()}"
    with pytest.raises(ConnectorError) as err:
        run(connect(spec, identity=[sshd.identity], known_hosts=sshd.known_hosts, connect_timeout=5))
    assert err.value.category == "unreachable" and "refused" in str(err.value)


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"spec": "root@gpu;id"}, "not a valid host name"),
        ({"identity": ["/nonexistent/key"]}, "identity file not found"),
        ({"config_file": "/nonexistent/config"}, "ssh config file not found"),
        ({"port": 70000}, "out of range"),
    ],
)
def test_bad_input_is_usage_error(sshd, kwargs, needle):
    spec = kwargs.pop("spec", sshd.spec)
    with pytest.raises(ConnectorError, match=needle) as err:
        run(connect(spec, **{**sshd.connect_kwargs(), **kwargs}))
    assert err.value.category == "usage"


def test_dns_failure_is_classified_unreachable():
    import socket

    err = _classify("gpu-x", socket.gaierror(-2, "Name or service not known"),
                    policy=_HostKeyPolicy([], False, False), timeout=1)
    assert err.category == "unreachable" and "cannot resolve" in str(err)


def test_ipv6_spec_and_accept_new_uses_bracket_port_syntax(sshd_factory, tmp_path):
    import socket

    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError as exc:
        pytest.skip(f"IPv6 loopback not available: {exc}")
    server = sshd_factory(listen="::1")
    assert server.spec == f"root@[::1]:{server.port}"
    known = tmp_path / "kh6"
    assert run(_session(server, lambda c: c.run(["true"]), known_hosts=str(known), accept_new=True)).ok
    assert known.read_text().startswith(f"[::1]:{server.port} ssh-ed25519 ")
