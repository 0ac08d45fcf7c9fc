"""A host that never answers, over the real sshd: `--timeout` gives up on it, and on a timeout or
Ctrl-C the probe's whole process group on the host is ended (drift's bootstrap watchdog sees
the channel close), not left running for hours on a GPU box."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from drift.cli import main
from tests.sshd_fixtures import pids_gone

pytestmark = [pytest.mark.ssh]


def ssh_args(server):
    return ["-i", server.identity, "--known-hosts", server.known_hosts, "-F", server.write_ssh_config("")]


def _pids(path, wait=60.0):
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if path.exists() and len(path.read_text().split()) == 2:
            return [int(x) for x in path.read_text().split()]
        time.sleep(0.05)
    raise AssertionError(f"the stand-in never wrote {path}")


@contextlib.contextmanager
def _children_get_ctrl_c():
    """Children started inside get SIGINT at its default, as a command typed at a terminal has it.
    An ignored signal stays ignored through exec, and a shell without job control starts every
    background command (`... &`, so a suite run in the background) with SIGINT ignored: drift
    would then rightly never see the Ctrl-C this test sends, and hang on the host. A signal this
    process catches is reset to its default at exec instead, so it is caught here meanwhile."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_timeout_ends_the_remote_process_group(sshd, hostile_python, tmp_path, capsys):
    pids = tmp_path / "pids"
    python = hostile_python.hanging(sys.executable, pids)
    code = main(["scan", sshd.spec, "--python", python, *ssh_args(sshd), "--timeout", "3"])
    out, err = capsys.readouterr()
    assert code == 3, err
    assert "timed out after 3s" in err and "Traceback" not in err
    running = _pids(pids)
    assert pids_gone(running) == []  # the script and the child it forked


def test_ctrl_c_ends_the_remote_process_group(sshd, hostile_python, tmp_path):
    pids = tmp_path / "pids"
    python = hostile_python.hanging(sys.executable, pids)
    with _children_get_ctrl_c():
        proc = subprocess.Popen([sys.executable, "-m", "drift.cli", "scan", sshd.spec, "--python", python,
                                 *ssh_args(sshd)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        running = _pids(pids)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err
    assert pids_gone(running) == []


def test_slow_host_within_the_timeout_still_answers(sshd, hostile_python, capsys):
    from tests.sshd_fixtures import crafted_reply

    python = hostile_python.replying(crafted_reply({"schema": 1, "error": "bad request: testing"}), delay=2)
    code = main(["scan", sshd.spec, "--python", python, *ssh_args(sshd), "--timeout", "60"])
    out, err = capsys.readouterr()
    assert code == 2 and "bad request: testing" in err  # the slow answer arrived and was read


def test_timeout_must_be_positive(capsys):
    code = main(["scan", "local", "--timeout", "0"])
    assert code == 2 and "--timeout" in capsys.readouterr().err


def test_the_ctrl_c_test_reaches_drift_from_a_suite_run_in_the_background():
    """Why `_children_get_ctrl_c` is there: with this process ignoring SIGINT (pytest started by
    `... &` in a script), a child started inside it still gets Python's Ctrl-C handler."""
    probe = [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        inherited = subprocess.run(probe, capture_output=True, text=True, check=True).stdout
        with _children_get_ctrl_c():
            reset = subprocess.run(probe, capture_output=True, text=True, check=True).stdout
        left = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert (inherited.strip(), reset.strip(), left) == ("False", "True", signal.SIG_IGN)
