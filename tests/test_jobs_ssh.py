"""launch / watch / runs over a real OpenSSH sshd: the job outlives its connection.

Each test gets its own sshd (sshd_factory) so cutting connections - by SIGKILLing that sshd's
per-connection processes, as a dropped network or a killed session would - touches nothing
else. The "host" Python is 3.9 when pyenv has it, to prove the runner's compatibility.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from rich.console import Console

from drift.cli import main
from drift.remote.connectors.local import LocalConnector
from drift.remote.connectors.ssh import connect
from drift.findings import Report
from drift.jobs import launch, list_runs, watch
from drift.jobs.watch import OffsetStore
from tests.test_jobs_local import BREAKING, FAKE, TWO_PHASE_MSG, _kill_leftovers, report

pytestmark = pytest.mark.ssh

PY39 = Path("/root/.pyenv/versions/3.9.18/bin/python3.9")
HOST_PY = str(PY39) if PY39.exists() else sys.executable


def _session_pids(server) -> list[int]:
    """This sshd's per-connection processes (its children), found through /proc."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(text[text.rfind(")") + 2 :].split()[1]) == server.proc.pid:
            pids.append(int(entry))
    return pids


def cut_connections(server) -> int:
    pids = _session_pids(server)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)


async def until(predicate, what: str, limit: float = 30.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while loop.time() < end:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.fixture
def server(sshd_factory):
    return sshd_factory()


@pytest.fixture
def root(tmp_path):
    path = tmp_path / "runs"
    yield path
    _kill_leftovers(path)


def _clean_preflight(rep: Report | None = None):
    async def preflight():
        return rep or report()

    return preflight


def _console():
    out = io.StringIO()
    return out, Console(file=out, width=200, force_terminal=False)


def test_job_survives_connection_drop_and_watch_resumes(server, root, tmp_path):
    gate = tmp_path / "gate"
    state = tmp_path / "state"

    async def scenario():
        conn = await connect(server.spec, **server.connect_kwargs())
        res = await launch(conn, command=[HOST_PY, FAKE, "--shards", "6", "--wait-for", str(gate)], python=HOST_PY,
                           run_dir_root=str(root), preflight=_clean_preflight())
        assert res.status == "started" and res.run.state == "running"
        log = Path(res.run_dir) / "log"
        out1, console1 = _console()
        task = asyncio.create_task(watch(conn, res.run_id, python=HOST_PY, run_dir_root=str(root),
                                         interval=0.05, state_dir=state, console=console1))
        store = OffsetStore(state, conn.name)
        await until(lambda: b"Loading weights" in log.read_bytes() and store.load(res.run_id) == log.stat().st_size,
                    "watch to catch up with the gated job")
        assert cut_connections(server) >= 1
        dropped = await asyncio.wait_for(task, 30)
        assert dropped.exit_code == 3 and "lost the connection" in dropped.error
        assert dropped.offset == log.stat().st_size
        assert "checkpoint shards: 100% Completed | 6/6" in out1.getvalue()
        await conn.close()

        # the job did not notice: still running, seen from the host itself
        local = await list_runs(LocalConnector(), python=HOST_PY, run_dir_root=str(root))
        assert [r.outcome for r in local.runs] == ["running"]

        gate.touch()
        conn = await connect(server.spec, **server.connect_kwargs())
        out2, console2 = _console()
        done = await watch(conn, "latest", python=HOST_PY, run_dir_root=str(root), interval=0.05,
                           state_dir=state, console=console2)
        runs = await list_runs(conn, python=HOST_PY, run_dir_root=str(root))
        await conn.close()
        return res, done, out2.getvalue(), runs

    res, done, text, runs = asyncio.run(scenario())
    assert done.exit_code == 0 and done.run.outcome == "exited 0"
    assert "Loading weights" not in text and "checkpoint shards" not in text  # only what is new
    assert "Generating hidden states: batch 3/3" in text and "Saved 96 samples" in text
    assert ("batches", 3, 3) in [(c.label, c.done, c.total) for c in done.progress]
    assert [(r.run_id, r.outcome) for r in runs.runs] == [(res.run_id, "exited 0")]


def test_crash_over_ssh_maps_to_finding_and_kills_are_never_running(server, root):
    async def scenario():
        conn = await connect(server.spec, **server.connect_kwargs())
        try:
            forced = await launch(conn, command=[HOST_PY, FAKE, "--outcome", "two-phase", "--shards", "2"],
                                  python=HOST_PY, run_dir_root=str(root), preflight=_clean_preflight(report(BREAKING)),
                                  force=True)
            crashed = await watch(conn, forced.run_id, python=HOST_PY, run_dir_root=str(root), interval=0.05,
                                  state_dir=root.parent / "state", quiet=True)
            hung = await launch(conn, command=[HOST_PY, FAKE, "--outcome", "hang", "--shards", "1"], python=HOST_PY,
                                run_dir_root=str(root), preflight=_clean_preflight())
            os.kill(hung.run.pid, signal.SIGKILL)

            async def state_of(run_id):
                runs = await list_runs(conn, python=HOST_PY, run_dir_root=str(root))
                return {r.run_id: r for r in runs.runs}[run_id]

            info = await state_of(hung.run_id)
            while info.state == "running":
                await asyncio.sleep(0.05)
                info = await state_of(hung.run_id)

            lost = await launch(conn, command=[HOST_PY, FAKE, "--outcome", "hang", "--shards", "1"], python=HOST_PY,
                                run_dir_root=str(root), preflight=_clean_preflight())
            status = json.loads((Path(lost.run_dir) / "status.json").read_text())
            os.kill(status["runner_pid"], signal.SIGKILL)
            os.kill(status["pid"], signal.SIGKILL)
            lost_info = await state_of(lost.run_id)
            while lost_info.state == "running":
                await asyncio.sleep(0.05)
                lost_info = await state_of(lost.run_id)
            return crashed, info, lost_info
        finally:
            await conn.close()

    crashed, killed, lost = asyncio.run(scenario())
    assert crashed.exit_code == 1 and crashed.diagnosis.error == TWO_PHASE_MSG
    assert crashed.diagnosis.findings[0].rule_id == "DRIFT301"  # read back from the run dir over SFTP
    assert killed.outcome == "killed (SIGKILL)"
    assert lost.state == "lost"


def test_cli_over_ssh(server, root, tmp_path, monkeypatch, capsys):
    import drift.pipeline.preflight

    async def hook(connector, settings):
        assert connector.name == server.spec
        return report(BREAKING)

    monkeypatch.setattr(drift.pipeline.preflight, "preflight_hook", hook)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    opts = ["-i", server.identity, "--known-hosts", server.known_hosts, "-F", server.write_ssh_config(""),
            "--python", HOST_PY, "--run-dir", str(root)]
    job = ["--", HOST_PY, FAKE, "--shards", "2", "--outcome", "block-hasher"]
    assert main(["launch", server.spec, *opts, *job]) == 1  # refused: breaking preflight
    assert "DRIFT301" in capsys.readouterr().err
    assert main(["launch", server.spec, *opts, "--force", *job]) == 0
    run_id = capsys.readouterr().out.strip()
    assert main(["watch", server.spec, run_id, *opts, "--interval", "0.05"]) == 1
    out = capsys.readouterr().out
    assert "AssertionError" in out and "Request block hasher" in out
    assert main(["runs", server.spec, *opts, "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [(r["run_id"], r["outcome"], r["forced"]) for r in runs] == [(run_id, "exited 1", True)]
    # an unknown host key is refused before anything runs: exit 3
    other = tmp_path / "empty_known_hosts"
    other.write_text("")
    assert main(["runs", server.spec, *opts, "--known-hosts", str(other)]) == 3
    assert "not in known_hosts" in capsys.readouterr().err
