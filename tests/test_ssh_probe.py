"""The probe bundle run over real SSH in a real "GPU host" venv (vllm 0.16.0, speculators 0.3.0
installed from the released wheels with --no-deps), plus the ways a host's Python can be wrong."""

import asyncio

import pytest

from drift.remote.connectors.local import LocalConnector
from drift.remote.connectors.ssh import connect
from drift.remote.probe import ProbeResult, probe, validate_python

pytestmark = pytest.mark.ssh


def run(coro):
    return asyncio.run(coro)


async def _probe_over_ssh(server, request, **kw):
    conn = await connect(server.spec, **server.connect_kwargs())
    try:
        return await probe(conn, request, **kw)
    finally:
        await conn.close()


@pytest.fixture(scope="module")
def gpu_python(host_venv):
    return str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))


@pytest.fixture(scope="module")
def bare_python(host_venv):
    return str(host_venv(()))


def test_probe_reads_real_vllm_over_ssh(sshd, gpu_python, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("probe-cache"))
    request = {"packages": ["vllm", "speculators"], "cache_dir": cache}
    res = run(_probe_over_ssh(sshd, request, python=gpu_python, timeout=300))
    assert res.ok, res.reason
    vllm = res.facts["packages"]["vllm"]
    assert vllm["version"] == "0.16.0"
    assert "vllm.v1.request" in vllm["modules"]
    assert res.facts["packages"]["speculators"]["version"] == "0.3.0"
    assert res.missing == []
    assert res.facts["env"]["executable"].startswith(gpu_python.rsplit("/bin/", 1)[0])


def test_vllm_not_installed_is_reported_as_missing(sshd, bare_python):
    res = run(_probe_over_ssh(sshd, {"packages": ["vllm"], "cache_dir": None}, python=bare_python))
    assert res.ok and res.missing == ["vllm"] and res.facts["packages"] == {}


def test_python_path_missing_on_host(sshd):
    res = run(_probe_over_ssh(sshd, {"packages": ["vllm"]}, python="/opt/nowhere/bin/python3"))
    assert res.status == "failed"
    assert res.reason.startswith("python not found on host: /opt/nowhere/bin/python3")


def test_python_command_missing_on_host(sshd):
    res = run(_probe_over_ssh(sshd, {"packages": ["vllm"]}, python="python2.6-drift-none"))
    assert res.status == "failed" and "python not found on host" in res.reason


def test_not_a_python_is_a_clear_failure(sshd):
    res = run(_probe_over_ssh(sshd, {"packages": ["vllm"]}, python="/bin/true"))
    assert res.status == "failed" and "could not be read" in res.reason and "marker" in res.reason


def test_bad_request_comes_back_as_probe_error(bare_python):
    res = run(probe(LocalConnector(), {"packages": ["not-an-import-name"]}, python=bare_python))
    assert res.status == "failed" and "bad request" in res.reason


@pytest.mark.parametrize(
    "python, ok",
    [
        ("python3", True), ("python3.11", True), ("/opt/venv/bin/python", True),
        ("/usr/bin/python3", True), ("python3; rm -rf /", False), ("$(id)", False),
        ("py thon", False), ("../python", False), ("/opt/../etc/python", False), ("", False),
        ("-c", False),  # would read as an option, not a command
    ],
)
def test_validate_python(python, ok):
    assert (validate_python(python) is None) is ok


def test_invalid_python_never_reaches_the_host():
    class Refuse:
        name = "refuse"

        async def run(self, *a, **k):  # pragma: no cover - must not be called
            raise AssertionError("ran a command with an invalid python")

    res = run(probe(Refuse(), {"packages": ["vllm"]}, python="python3 && reboot"))
    assert res == ProbeResult(status="failed", reason=res.reason) and "bad python" in res.reason
