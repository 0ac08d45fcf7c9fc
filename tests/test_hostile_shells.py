"""Remote work through every login shell a host may have (bash, dash, zsh, fish, tcsh) and a
forced command, over the real sshd: the command line is `<python> -` and everything else
travels on stdin, so no quoting scheme is relied on and a run dir full of quotes is a path.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sys
from pathlib import Path

import pytest

from drift.cli import main
from drift.remote.connectors.ssh import connect
from drift.jobs.remote import call_runner
from drift.fixes.remote import run_applier
from tests.sshd_fixtures import LOGIN_SHELLS, login_user

pytestmark = [pytest.mark.ssh]

# fish reads `\'` inside single quotes as an escaped quote, so shlex.join's quoting of this
# run dir used to end the quote there and run `touch` on the host
HOSTILE_DIR = "run\\'\";touch {sentinel};#"


@pytest.fixture(params=LOGIN_SHELLS)
def shell_host(request, sshd):
    """(spec, sshd) of a login whose shell is the parameter."""
    user = login_user(request.param)
    return f"{user}@127.0.0.1:{sshd.port}", sshd


def ssh_args(server):
    return ["-i", server.identity, "--known-hosts", server.known_hosts, "-F", server.write_ssh_config("")]


def _with(spec, server, fn):
    async def go():
        conn = await connect(spec, **server.connect_kwargs())
        try:
            return await fn(conn)
        finally:
            await conn.close()
    return asyncio.run(go())


@pytest.mark.corpus
def test_scan_through_each_login_shell(shell_host, host_venv, capsys, corpus_src):
    corpus_src("vllm==0.11.0")
    spec, server = shell_host
    python = str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))
    code = main(["scan", spec, "--python", python, *ssh_args(server), "--json"])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert {"DRIFT020", "VLLM001"} <= {f["rule_id"] for f in json.loads(out)["findings"]}


def test_apply_and_revert_through_each_login_shell(shell_host, tmp_path):
    spec, server = shell_host
    root = tmp_path / "site"
    root.mkdir()
    target = root / "mod.py"
    before, after = b"x = f(a=1)\n", b"x = f(a=1, b=2)\n"
    target.write_bytes(before)
    state = tmp_path / "state"
    sha = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    payload = {"root": str(root), "patch_id": "p1", "state_dir": str(state), "manifest": {"findings": []},
               "files": [{"path": "mod.py", "before_sha256": sha(before), "after_sha256": sha(after),
                          "after_b64": base64.b64encode(after).decode()}]}
    applied = _with(spec, server, lambda c: run_applier(c, python=sys.executable, action="apply", payload=payload))
    assert applied["status"] == "applied", applied
    assert target.read_bytes() == after
    reverted = _with(spec, server, lambda c: run_applier(c, python=sys.executable, action="revert",
                                                         payload={"state_dir": str(state), "patch_id": "p1", "root": str(root)}))
    assert reverted["status"] == "reverted", reverted
    assert target.read_bytes() == before


def test_run_dir_with_quotes_is_a_path_in_each_login_shell(shell_host, tmp_path):
    spec, server = shell_host
    sentinel = tmp_path / "PWNED"
    root = str(tmp_path / HOSTILE_DIR.format(sentinel=sentinel))
    reply = _with(spec, server, lambda c: call_runner(c, sys.executable, "prepare", root, "r1"))
    assert reply.ok, reply.error
    assert Path(reply.data["run_dir"]) == Path(root) / "r1" and Path(root, "r1").is_dir()
    assert not sentinel.exists()


def test_runs_with_a_hostile_run_dir_from_the_command_line(shell_host, tmp_path, capsys):
    spec, server = shell_host
    sentinel = tmp_path / "PWNED"
    code = main(["runs", spec, "--python", sys.executable, "--run-dir",
                 str(tmp_path / HOSTILE_DIR.format(sentinel=sentinel)), *ssh_args(server), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not sentinel.exists()


def test_forced_command_host_is_a_clear_error(sshd, sshd_factory, capsys):
    forced = sshd_factory(user_key=Path(sshd.identity), extra_config="ForceCommand /bin/echo this host only says hello\n")
    code = main(["scan", forced.spec, "--python", sys.executable, *ssh_args(forced)])
    out, err = capsys.readouterr()
    assert code == 2
    assert "marker" in err and "hello" in err and "Traceback" not in err
