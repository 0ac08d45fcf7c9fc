"""One CLI for jobs (issue 24, item 8): `drift stop`, the `--python` environment first on PATH,
`-c` on launch, and options and run ids in any order for watch/runs/stop.

Real detached jobs through the real CLI, on this machine and over a real OpenSSH sshd. The job
that is stopped starts a child of its own (as torchrun starts workers) and writes both pids;
`drift stop` must end the whole process group, and `drift runs` must then say how it ended.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import drift.pipeline.preflight
from drift.cli import main
from tests.sshd_fixtures import pid_alive, wait_until
from tests.test_jobs_local import _kill_leftovers, report
from tests.test_jobs_ssh import HOST_PY

PY = sys.executable

# a launcher: starts a worker, records both pids, then waits for it forever
LAUNCHER = (
    "import os, subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
    "open(sys.argv[1] + '.tmp', 'w').write('%d %d' % (os.getpid(), child.pid))\n"
    "os.replace(sys.argv[1] + '.tmp', sys.argv[1])\n"
    "child.wait()\n"
)


def _clean_hook(seen: list | None = None):
    async def hook(connector, settings):
        if seen is not None:
            seen.append(settings.config.consumer)
        return report()

    return hook


@pytest.fixture
def runs_root(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "runs"
    yield root
    _kill_leftovers(root)


def _launch(capsys, *argv: str) -> str:
    assert main(["launch", *argv]) == 0, capsys.readouterr().err
    return capsys.readouterr().out.strip()


def test_stop_ends_the_whole_process_group_and_runs_records_it(runs_root, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(drift.pipeline.preflight, "preflight_hook", _clean_hook())
    pids = tmp_path / "pids"
    script = tmp_path / "launcher.py"
    script.write_text(LAUNCHER)
    run_id = _launch(capsys, "--run-dir", str(runs_root), "--python", PY, "--", PY, str(script), str(pids))
    job, worker = map(int, wait_until(lambda: pids.exists() and pids.read_text(), "the job's pids").split())
    assert pid_alive(job) and pid_alive(worker)

    # the run id before the options: watch, runs and stop take them in any order
    assert main(["stop", run_id, "--run-dir", str(runs_root), "--python", PY]) == 0
    assert f"run {run_id}: SIGTERM sent to its process group" in capsys.readouterr().out
    wait_until(lambda: not pid_alive(job) and not pid_alive(worker), "the job and its worker to end")

    def ended():
        assert main(["runs", "--json", "--run-dir", str(runs_root), "--python", PY]) == 0
        (run,) = json.loads(capsys.readouterr().out)["runs"]
        return run if run["state"] != "running" else None

    run = wait_until(ended, "the supervisor to record the end")
    assert (run["run_id"], run["outcome"]) == (run_id, "killed (SIGTERM)")
    assert "by drift stop" in (runs_root / run_id / "log").read_text()

    # stopping it again signals nothing and says so; an unknown run is exit 2
    assert main(["stop", "--run-dir", str(runs_root), "--python", PY, run_id]) == 0
    assert "not running (killed (SIGTERM)); nothing signalled" in capsys.readouterr().err
    assert main(["stop", "--run-dir", str(runs_root), "--python", PY, "20200101-000000-abcd"]) == 2
    assert "no run 20200101-000000-abcd" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad:
        main(["stop", "--run-dir", str(runs_root), "--signal", "HUP", run_id])
    assert bad.value.code == 2 and "invalid choice: 'HUP'" in capsys.readouterr().err


def test_a_launched_job_runs_with_the_python_environment_first_on_path(runs_root, tmp_path, monkeypatch, capsys):
    """`python` in the job's command is the --python interpreter's, not the login PATH's."""
    monkeypatch.setattr(drift.pipeline.preflight, "preflight_hook", _clean_hook())
    venv = tmp_path / "env"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # whatever `python` the login PATH has, it is not this venv's
    run_id = _launch(capsys, "--run-dir", str(runs_root), "--python", str(venv / "bin" / "python"), "--",
                     "python", "-c", "import os, sys; print('PREFIX', sys.prefix); print('VENV', os.environ['VIRTUAL_ENV'])")
    log = runs_root / run_id / "log"
    wait_until(lambda: "job exited" in log.read_text(), "the job to end")
    text = log.read_text()
    assert f"PREFIX {venv}" in text and f"VENV {venv}" in text
    assert "job exited 0" in text


def test_launch_takes_the_consumer_with_c(runs_root, monkeypatch, capsys):
    seen: list = []
    monkeypatch.setattr(drift.pipeline.preflight, "preflight_hook", _clean_hook(seen))
    _launch(capsys, "-c", "my-plugin", "--run-dir", str(runs_root), "--python", PY, "--", PY, "-c", "pass")
    _launch(capsys, "local", "--consumer", "other-plugin", "--run-dir", str(runs_root), "--python", PY, "--",
            PY, "-c", "pass")
    assert seen == ["my-plugin", "other-plugin"]


def test_watch_takes_options_between_host_and_run_id(runs_root, monkeypatch, capsys):
    monkeypatch.setattr(drift.pipeline.preflight, "preflight_hook", _clean_hook())
    run_id = _launch(capsys, "--run-dir", str(runs_root), "--python", PY, "--", PY, "-c", "print('hello from the job')")
    assert main(["watch", "local", "--run-dir", str(runs_root), run_id, "--interval", "0.05", "--python", PY]) == 0
    out = capsys.readouterr().out
    assert "hello from the job" in out and f"run {run_id}: exited 0" in out
    assert main(["runs", "--python", PY, "local", "--run-dir", str(runs_root)]) == 0
    assert run_id in capsys.readouterr().out


@pytest.mark.ssh
def test_stop_over_ssh_with_options_after_the_run_id(sshd_factory, runs_root, tmp_path, monkeypatch, capsys):
    server = sshd_factory()
    monkeypatch.setattr(drift.pipeline.preflight, "preflight_hook", _clean_hook())
    opts = ["-i", server.identity, "--known-hosts", server.known_hosts, "-F", server.write_ssh_config(""),
            "--python", HOST_PY, "--run-dir", str(runs_root)]
    pids = tmp_path / "pids"
    script = tmp_path / "launcher.py"
    script.write_text(LAUNCHER)
    run_id = _launch(capsys, server.spec, *opts, "--", HOST_PY, str(script), str(pids))
    job, worker = map(int, wait_until(lambda: pids.exists() and pids.read_text(), "the job's pids").split())
    assert main(["stop", server.spec, run_id, *opts, "--signal", "KILL", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["signalled"] and out["signal"] == "KILL" and out["run"]["run_id"] == run_id
    wait_until(lambda: not pid_alive(job) and not pid_alive(worker), "the job and its worker to end")
    assert main(["watch", server.spec, *opts[:6], run_id, *opts[6:], "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["run"]["outcome"] == "killed (SIGKILL)"
