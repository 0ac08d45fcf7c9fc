"""launch / watch / runs on this machine through the LocalConnector, with real detached jobs.

The job is tests/fake_extraction.py: real processes, real log, real signals. `--wait-for`
holds a job after shard loading until the test creates a file, so "is it running?" never
depends on timing.
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

import drift.jobs
import drift.pipeline.preflight
from drift.cli import main
from drift.remote.connectors.local import LocalConnector
from drift.findings import Finding, Fix, Location, Report, RuleKind, Severity
from drift.jobs import PreflightUnavailable, launch, list_runs, watch
from drift.jobs import runner as runner_mod
from tests.sshd_fixtures import wait_until

FAKE = str(Path(__file__).with_name("fake_extraction.py"))
PY = sys.executable
TWO_PHASE_MSG = "RuntimeError: State error: sample_tokens() must be called after execute_model() returns None."

BREAKING = Finding(
    rule_id="DRIFT301", kind=RuleKind.TWO_PHASE_PROTOCOL, severity=Severity.BREAKING,
    title="GPUModelRunner.execute_model now returns None; its output comes from sample_tokens()",
    consumer_site=Location("speculators/data_generation/vllm_hidden_states_generator.py", 301),
    predicted_failure=TWO_PHASE_MSG,
    fix=Fix("call sample_tokens() after execute_model() returns None", codemod="second_phase"),
)


def report(*findings: Finding) -> Report:
    return Report(consumer={"name": "speculators", "version": "0.3.0"}, target={"name": "vllm", "version": "0.16.0"},
                  baseline={"name": "vllm", "version": "0.11.0"}, findings=findings)


def _kill_leftovers(root: Path) -> None:
    """Kill jobs a failed test left running: by the pids their own status files record."""
    for status in root.glob("*/status.json"):
        data = json.loads(status.read_text())
        for key, start_key in (("pid", "pid_start"), ("runner_pid", "runner_start")):
            pid = data.get(key)
            stat = runner_mod._proc_stat(pid) if pid else None
            if stat and stat[1] == data.get(start_key):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


class Jobs:
    """One run root and offset store per test, and short-hands for the async API."""

    def __init__(self, tmp: Path):
        self.root = str(tmp / "runs")
        self.state = tmp / "state"
        self.gate = tmp / "gate"
        self.conn = LocalConnector()

    def launch(self, *job_args: str, pre=None, force=False, wait=False):
        argv = [PY, FAKE, *job_args] + (["--wait-for", str(self.gate)] if wait else [])

        async def preflight():
            return pre if pre is not None else report()

        return asyncio.run(launch(self.conn, command=argv, python=PY, run_dir_root=self.root,
                                  preflight=preflight, force=force))

    def watch(self, run_id="latest", follow=True):
        out = io.StringIO()
        console = Console(file=out, width=200, force_terminal=False)
        result = asyncio.run(watch(self.conn, run_id, python=PY, run_dir_root=self.root, follow=follow,
                                   interval=0.05, state_dir=self.state, console=console))
        return result, out.getvalue()

    def runs(self):
        return {r.run_id: r for r in asyncio.run(list_runs(self.conn, python=PY, run_dir_root=self.root)).runs}

    def state_of(self, run_id):
        return self.runs()[run_id]


@pytest.fixture
def jobs(tmp_path):
    j = Jobs(tmp_path)
    yield j
    _kill_leftovers(Path(j.root))


def test_launch_is_detached_and_watch_resumes_with_only_new_lines(jobs):
    res = jobs.launch("--shards", "8", "--batches", "3", wait=True)
    assert res.status == "started" and res.exit_code == 0
    assert res.run.state == "running" and res.run.pid
    # launch returned while the job is still blocked on the gate: it runs detached
    assert jobs.state_of(res.run_id).state == "running"
    run_dir = Path(res.run_dir)
    assert json.loads((run_dir / "job.json").read_text())["command"][1] == FAKE
    assert json.loads((run_dir / "preflight.json").read_text())["findings"] == []

    wait_until(lambda: b"Loading weights" in (run_dir / "log").read_bytes(), "shard loading")
    first, out1 = jobs.watch(res.run_id, follow=False)
    assert first.exit_code == 0 and first.run.state == "running"
    assert [(c.label, c.done, c.total) for c in first.progress] == [("checkpoint shards", 8, 8)]
    assert "Loading safetensors checkpoint shards: 100% Completed | 8/8" in out1
    assert "\r" not in out1

    jobs.gate.touch()
    second, out2 = jobs.watch(res.run_id)
    assert second.exit_code == 0 and second.run.outcome == "exited 0"
    assert "Loading weights" not in out2 and "checkpoint shards: 100%" not in out2  # only new lines
    assert "Generating hidden states: batch 3/3" in out2 and "Saved 96 samples" in out2
    assert ("batches", 3, 3) in [(c.label, c.done, c.total) for c in second.progress]
    assert second.offset == (run_dir / "log").stat().st_size

    third, out3 = jobs.watch(res.run_id)
    assert third.exit_code == 0 and out3 == "" and third.lines == ()


def test_crash_is_mapped_to_the_preflight_finding_and_force_is_recorded(jobs):
    refused = jobs.launch("--outcome", "two-phase", pre=report(BREAKING))
    assert refused.status == "refused" and refused.exit_code == 1
    assert refused.breaking == (BREAKING,)
    assert not Path(jobs.root).exists() or not os.listdir(jobs.root)  # nothing was started

    res = jobs.launch("--outcome", "two-phase", pre=report(BREAKING), force=True)
    assert res.status == "started" and res.forced
    assert json.loads((Path(res.run_dir) / "job.json").read_text())["forced"] is True
    result, out = jobs.watch(res.run_id)
    assert result.exit_code == 1 and result.run.outcome == "exited 1"
    diag = result.diagnosis
    assert diag.error == TWO_PHASE_MSG
    assert diag.known.name == "two-phase protocol"
    assert diag.findings[0].rule_id == "DRIFT301" and diag.findings[0].fix.codemod == "second_phase"
    assert jobs.state_of(res.run_id).forced


@pytest.mark.parametrize("outcome, known", [("block-hasher", "Request block hasher"),
                                            ("return-shape", "return-shape change"),
                                            ("keyword", "keyword removed"),
                                            ("required", "new required parameter")])
def test_each_known_crash_is_recognised(jobs, outcome, known):
    res = jobs.launch("--outcome", outcome, "--shards", "1")
    result, _ = jobs.watch(res.run_id)
    assert result.exit_code == 1
    assert result.diagnosis.known.name == known


def test_nonzero_exit_without_traceback(jobs):
    res = jobs.launch("--outcome", "exit:3", "--shards", "1")
    result, _ = jobs.watch(res.run_id)
    assert result.exit_code == 1 and result.run.outcome == "exited 3"
    assert result.diagnosis is not None and not result.diagnosis.explained


def test_sigkilled_job_is_killed_never_running(jobs):
    res = jobs.launch("--outcome", "hang", wait=False)
    wait_until(lambda: b"batch 3/3" in (Path(res.run_dir) / "log").read_bytes(), "batches")
    os.kill(res.run.pid, signal.SIGKILL)
    info = wait_until(lambda: (r := jobs.state_of(res.run_id)).state != "running" and r, "the runner to record the kill")
    assert info.state == "killed" and info.signal == signal.SIGKILL and info.outcome == "killed (SIGKILL)"
    result, _ = jobs.watch(res.run_id)
    assert result.exit_code == 1


def test_sigkilled_runner_and_job_is_lost(jobs):
    res = jobs.launch("--outcome", "hang")
    status = json.loads((Path(res.run_dir) / "status.json").read_text())
    os.kill(status["runner_pid"], signal.SIGKILL)
    info = wait_until(lambda: (r := jobs.state_of(res.run_id)).state != "running" and r, "runner death to show")
    assert info.state == "lost" and "still alive" in info.detail  # the orphaned job is named
    os.kill(status["pid"], signal.SIGKILL)
    info = wait_until(lambda: "gone" in (jobs.state_of(res.run_id).detail or "") and jobs.state_of(res.run_id),
                      "job death to show")
    assert info.state == "lost"
    assert jobs.watch(res.run_id)[0].exit_code == 1


def test_reused_pid_or_reboot_is_not_running(tmp_path):
    """A status claiming `running` for a live pid with another start time (or boot) is lost."""
    run = tmp_path / "r1"
    run.mkdir()
    me, stat = os.getpid(), runner_mod._proc_stat(os.getpid())
    base = {"state": "running", "run_id": "r1", "command": ["x"], "pid": me, "runner_pid": me,
            "boot_id": runner_mod._boot_id()}
    (run / "status.json").write_text(json.dumps(dict(base, pid_start=stat[1], runner_start=stat[1])))
    assert runner_mod.check_status(str(run))["state"] == "running"  # sanity: really alive
    (run / "status.json").write_text(json.dumps(dict(base, pid_start=stat[1] + 1, runner_start=stat[1] + 1)))
    assert runner_mod.check_status(str(run))["state"] == "lost"
    (run / "status.json").write_text(json.dumps(dict(base, pid_start=stat[1], runner_start=stat[1],
                                                     boot_id="00000000-0000-0000-0000-000000000000")))
    got = runner_mod.check_status(str(run))
    assert got["state"] == "lost" and "rebooted" in got["detail"]


def test_missing_command_is_recorded_as_exit_127(jobs):
    async def clean():
        return report()

    res = asyncio.run(launch(jobs.conn, command=["/nonexistent/bin/extract"], python=PY, run_dir_root=jobs.root,
                             preflight=clean))
    assert res.status == "started" and res.run.outcome == "exited 127"
    assert "No such file" in (res.run.detail or "")


def test_unavailable_preflight_refuses_unless_forced(jobs):
    async def unavailable():
        return PreflightUnavailable("no consumer configured")

    args = dict(command=[PY, FAKE, "--shards", "1"], python=PY, run_dir_root=jobs.root, preflight=unavailable)
    res = asyncio.run(launch(jobs.conn, **args))
    assert res.status == "refused" and res.exit_code == 2
    res = asyncio.run(launch(jobs.conn, **args, force=True))
    assert res.status == "started" and res.forced and res.notes


def test_watch_unknown_run(jobs):
    Path(jobs.root).mkdir()
    result, _ = jobs.watch("20200101-000000-abcd")
    assert result.exit_code == 2 and "no run" in result.error


# ---------------------------------------------------------------- the CLI


@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "runs"
    yield root
    _kill_leftovers(root)


def _hook_returning(rep):
    async def hook(connector, settings):
        return rep

    return hook


def test_cli_refuses_breaking_preflight(cli_env, monkeypatch, capsys):
    monkeypatch.setattr(drift.pipeline.preflight, "preflight_hook", _hook_returning(report(BREAKING)))
    code = main(["launch", "--run-dir", str(cli_env), "--python", PY, "--", PY, FAKE])
    err = capsys.readouterr().err
    assert code == 1
    assert "DRIFT301" in err and "speculators/data_generation/vllm_hidden_states_generator.py:301" in err
    assert "second_phase" not in err and "sample_tokens() after execute_model()" in err
    assert not cli_env.exists() or not os.listdir(cli_env)


def test_cli_launch_watch_runs_from_config(cli_env, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(drift.pipeline.preflight, "preflight_hook", _hook_returning(report(BREAKING)))
    (tmp_path / "drift.toml").write_text(
        f'python = "{PY}"\n[launch]\ncommand = ["{PY}", "{FAKE}", "--outcome", "keyword", "--shards", "2"]\n'
        f'run_dir = "{cli_env}"\n'
    )
    assert main(["launch", "--force", "--json"]) == 0
    launched = json.loads(capsys.readouterr().out)
    run_id = launched["run_id"]
    assert launched["status"] == "started" and launched["forced"] and launched["breaking"][0]["rule_id"] == "DRIFT301"

    assert main(["watch", run_id, "--interval", "0.05"]) == 1
    out = capsys.readouterr().out
    assert "get_kv_cache_config_from_groups() got an unexpected keyword argument 'kv_cache_specs'" in out
    assert "progress: checkpoint shards 2/2" in out
    assert f"run {run_id}: exited 1" in out and "keyword removed" in out
    assert list((tmp_path / "xdg" / "drift" / "runs" / "local").glob(f"{run_id}.offset"))

    assert main(["watch", "local", "latest", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["failure"]["known"] == "keyword removed"

    assert main(["runs", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [(r["run_id"], r["outcome"], r["forced"]) for r in runs] == [(run_id, "exited 1", True)]
    assert main(["runs"]) == 0
    assert "exited 1" in capsys.readouterr().out


def test_cli_usage_errors(cli_env, capsys):
    assert main(["launch", "--run-dir", str(cli_env)]) == 2
    assert "no command" in capsys.readouterr().err
    assert main(["launch", "gpu1", "python", "x.py"]) == 2
    assert "after `--`" in capsys.readouterr().err
    assert main(["watch", "a", "b", "c"]) == 2
    # the real preflight (drift scan) cannot run with a missing interpreter: refused, not launched
    assert main(["launch", "--run-dir", str(cli_env), "--python", "/nonexistent/python3", "--", PY, FAKE]) == 2
    err = capsys.readouterr().err
    assert "preflight could not run" in err and "pass --force" in err
    assert not cli_env.exists() or not os.listdir(cli_env)


@pytest.mark.corpus
def test_real_preflight_refuses_speculators_on_vllm_016(tmp_path, monkeypatch, host_venv, capsys):
    """No stand-in: drift scan of a real vllm 0.16.0 + speculators 0.3.0 install finds breaking drift."""
    python = str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))
    monkeypatch.chdir(tmp_path)  # the user's caches stay: the scan's fact cache makes this quick
    cli_env = tmp_path / "runs"
    code = main(["launch", "--run-dir", str(cli_env), "--python", python, "--json", "--", python, FAKE])
    result = json.loads(capsys.readouterr().out)
    assert code == 1 and result["status"] == "refused" and result["breaking"]
    assert not cli_env.exists() or not os.listdir(cli_env)


def test_bounded_reads_reassemble_lines(jobs):
    """Tiny reads split lines, tqdm redraws and UTF-8 anywhere; the shown lines are the same."""
    res = jobs.launch("--shards", "5", "--batches", "4")
    whole, _ = jobs.watch(res.run_id)
    jobs.state = jobs.state.with_name("state-small")
    out = io.StringIO()
    small = asyncio.run(watch(jobs.conn, res.run_id, python=PY, run_dir_root=jobs.root, interval=0.05,
                              max_bytes=97, state_dir=jobs.state, console=Console(file=out, width=200)))
    assert small.exit_code == 0 and small.lines == whole.lines and len(whole.lines) > 8
    assert small.progress == whole.progress


def test_missing_host_python_is_a_clear_failure(jobs):
    async def clean():
        return report()

    res = asyncio.run(launch(jobs.conn, command=[PY, FAKE], python="/nonexistent/python3", run_dir_root=jobs.root,
                             preflight=clean))
    assert res.status == "failed" and res.exit_code == 2
    assert "/nonexistent/python3" in res.reason and "not found" in res.reason


@pytest.fixture(scope="module")
def real_report(host_venv):
    """The preflight drift really produces for speculators 0.3.0 on an installed vLLM 0.16.0."""
    from drift.config import Config
    from drift.jobs.connect import JobSettings

    python = str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))
    settings = JobSettings(config=Config(python=python), host=None, known_hosts=None)
    rep = asyncio.run(drift.pipeline.preflight.preflight_hook(LocalConnector(), settings))
    if not isinstance(rep, Report):
        pytest.skip(f"no preflight report: {rep.reason}")
    return rep


@pytest.mark.corpus
@pytest.mark.parametrize("outcome, rule_id", [("two-phase", "DRIFT020"), ("return-shape", "DRIFT030"),
                                              ("block-hasher", "VLLM001"), ("keyword", "DRIFT010"),
                                              ("required", "DRIFT011")])
def test_crash_maps_to_the_real_preflight_finding(jobs, real_report, outcome, rule_id):
    res = jobs.launch("--outcome", outcome, "--shards", "1", pre=real_report, force=True)
    assert res.forced and len(res.breaking) == len(real_report.breaking)
    result, _ = jobs.watch(res.run_id)
    assert result.exit_code == 1
    assert result.diagnosis.findings and result.diagnosis.findings[0].rule_id == rule_id
