"""Fleet runner: bounded concurrency, per-host outcomes, one bad host never stops the rest."""

import asyncio
from dataclasses import dataclass

import pytest
from rich.console import Console

from drift.remote.connectors.base import ConnectorError
from drift.remote.connectors.ssh import connect
from drift.remote.fleet import iter_fleet, render_summary, run_fleet, summary_counts
from drift.remote.inventory import parse_inventory
from tests.sshd_fixtures import free_port


@dataclass(frozen=True)
class Verdict:
    status: str
    reason: str | None = None


async def _job(host: str):
    await asyncio.sleep(0.01)
    if host == "down":
        raise ConnectorError("down: connection refused", category="unreachable")
    if host == "locked":
        raise ConnectorError("locked: authentication refused", category="auth", hint="check keys")
    if host == "buggy":
        raise RuntimeError("boom")
    if host == "slow":
        await asyncio.sleep(30)
    if host == "drifted":
        return Verdict("drift", "2 breaking findings")
    return Verdict("ok")


def test_statuses_order_and_isolation():
    hosts = ["a", "down", "drifted", "buggy", "locked", "slow", "b"]
    outcomes = asyncio.run(run_fleet(hosts, _job, forks=3, timeout=1))
    got = {o.name: (o.status, o.category) for o in outcomes}
    assert [o.name for o in outcomes] == hosts
    assert got == {
        "a": ("ok", None), "b": ("ok", None), "drifted": ("drift", None),
        "down": ("unreachable", "unreachable"), "locked": ("unreachable", "auth"),
        "buggy": ("failed", None), "slow": ("unreachable", "unreachable"),
    }
    by = {o.name: o for o in outcomes}
    assert by["drifted"].reason == "2 breaking findings"
    assert by["buggy"].reason == "RuntimeError: boom"
    assert by["locked"].hint == "check keys"
    assert summary_counts(outcomes) == {"ok": 2, "drift": 1, "failed": 1, "unreachable": 3}


def test_concurrency_is_bounded_and_tasks_do_not_grow_with_the_fleet():
    running = peak = peak_tasks = 0

    async def job(i):
        nonlocal running, peak, peak_tasks
        running += 1
        peak = max(peak, running)
        peak_tasks = max(peak_tasks, len(asyncio.all_tasks()))
        await asyncio.sleep(0)
        running -= 1
        return i

    hosts = (f"h{i}" for i in range(3000))  # a generator: never materialised up front
    outcomes = asyncio.run(run_fleet(hosts, job, forks=8))
    assert len(outcomes) == 3000 and all(o.status == "ok" for o in outcomes)
    assert peak == 8
    assert peak_tasks <= 8 + 1  # the workers and the main task, however many hosts


def test_classify_and_progress_callback():
    seen = []
    outcomes = asyncio.run(run_fleet(["x", "y"], lambda h: _job(h), classify=lambda v: "drift",
                                     on_done=lambda o: seen.append(o.name)))
    assert {o.status for o in outcomes} == {"drift"} and sorted(seen) == ["x", "y"]
    with pytest.raises(ValueError):
        asyncio.run(run_fleet(["x"], _job, forks=0))


def test_breaking_out_of_iter_fleet_cancels_workers():
    async def go():
        async for outcome in iter_fleet(["a", "slow", "b"], _job, forks=3):
            return outcome.name

    assert asyncio.run(asyncio.wait_for(go(), 10)) in ("a", "b")


def test_summary_table_renders():
    outcomes = asyncio.run(run_fleet(["a", "down", "locked"], _job))
    console = Console(record=True, width=140)
    console.print(render_summary(outcomes, title="scan"))
    text = console.export_text()
    assert "a" in text and "unreachable" in text and "hint: check keys" in text and "1 ok, 2 unreachable" in text


@pytest.mark.ssh
def test_real_fleet_one_host_down(sshd, sshd_factory, tmp_path):
    """Three real sshds and one dead port, from an inventory: the live ones all report."""
    others = [sshd_factory(user_key=__import__("pathlib").Path(sshd.identity)) for _ in range(2)]
    known = tmp_path / "known_hosts"
    known.write_text("".join(s.host_public_line() for s in [sshd, *others]))
    dead = free_port()
    inventory = parse_inventory(
        "[gpu]\n"
        + "".join(f"gpu-{i} ansible_host=127.0.0.1 ansible_port={s.port}\n" for i, s in enumerate([sshd, *others]))
        + f"gpu-dead ansible_host=127.0.0.1 ansible_port={dead}\n[gpu:vars]\nansible_user=root\n",
        fmt="ini",
    )

    async def job(host):
        conn = await connect(host.spec, identity=[sshd.identity], known_hosts=str(known),
                             config_file=sshd.write_ssh_config(""), connect_timeout=5)
        try:
            res = await conn.run(["sh", "-c", "echo $SSH_CONNECTION"])
            return res.stdout.split()[-1].decode()  # the server-side port
        finally:
            await conn.close()

    outcomes = asyncio.run(run_fleet(inventory.select("gpu"), job, forks=2))
    assert [o.status for o in outcomes] == ["ok", "ok", "ok", "unreachable"]
    assert [o.value for o in outcomes[:3]] == [str(s.port) for s in [sshd, *others]]
    assert "refused" in outcomes[3].reason and outcomes[3].name == "gpu-dead"
