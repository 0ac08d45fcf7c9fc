"""A host's job-runner replies are untrusted input, checked like probe replies (ids, offsets, types).

The stand-in `--python` (tests/sshd_fixtures.py's HostilePython) reads the runner drift sends and
answers crafted JSON, as a hostile or broken host could. Through the real CLI (`drift watch`,
`drift runs`, in a subprocess so a loop that never ends is caught by a bound rather than hanging
the suite): a path-like `run_id` writes nothing outside drift's cache, a negative or non-integer
`next_offset` ends (exit 2) instead of polling forever, and every malformed reply is one clear
`drift: error:` with exit 2, never a traceback.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import pytest

STATUS = {"run_id": "20260101-000000-abcd", "state": "exited", "exit_code": 0, "signal": None, "pid": 42,
          "started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:01Z",
          "command": ["python", "x.py"], "forced": False, "run_dir": "/runs/20260101-000000-abcd"}
LOG = b"step 1/2\nstep 2/2\n"


def poll(**change):
    reply = {"offset": 0, "next_offset": len(LOG), "size": len(LOG), "reset": False,
             "data": base64.b64encode(LOG).decode(), "status": dict(STATUS)}
    for key, value in change.items():
        if key.startswith("status_"):
            reply["status"][key[len("status_"):]] = value
        else:
            reply[key] = value
    return (json.dumps(reply) + "\n").encode()


def drift(tmp_path, *argv):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "home" / "cache"), NO_COLOR="1")
    res = subprocess.run([sys.executable, "-m", "drift.cli", *argv], capture_output=True, text=True,
                         env=env, timeout=120, cwd=tmp_path)
    assert "Traceback" not in res.stderr, res.stderr
    return res


def offsets_written(tmp_path):
    return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.offset"))


def test_the_honest_shape_is_shown_and_remembered(tmp_path, hostile_python):
    res = drift(tmp_path, "watch", "local", STATUS["run_id"], "--python", hostile_python.replying(poll()),
                "--no-follow")
    assert res.returncode == 0, res.stderr
    assert "step 2/2" in res.stdout
    assert offsets_written(tmp_path) == [f"home/cache/drift/runs/local/{STATUS['run_id']}.offset"]


@pytest.mark.parametrize("run_id", ["../../../../escape", "../escape", "/tmp/escape", ".hidden", "a/b", ""])
def test_a_path_like_run_id_writes_nothing_outside_the_cache(tmp_path, hostile_python, run_id):
    python = hostile_python.replying(poll(status_run_id=run_id))
    res = drift(tmp_path, "watch", "local", "latest", "--python", python, "--no-follow")
    assert res.returncode == 2, res.stdout + res.stderr
    assert "drift: error:" in res.stderr and "run id" in res.stderr
    assert offsets_written(tmp_path) == []
    assert not (tmp_path / "home" / "escape.offset").exists()


def test_a_run_id_given_on_the_command_line_must_be_a_plain_name_too(tmp_path, hostile_python):
    res = drift(tmp_path, "watch", "local", "../../../../escape", "--python", hostile_python.replying(poll()),
                "--no-follow")
    assert res.returncode == 2 and "drift: error:" in res.stderr
    assert offsets_written(tmp_path) == []


@pytest.mark.parametrize("next_offset", [-5, "7", 1.5, None, True])
def test_a_bad_next_offset_ends_instead_of_polling_forever(tmp_path, hostile_python, next_offset):
    python = hostile_python.replying(poll(next_offset=next_offset, data=""))
    res = drift(tmp_path, "watch", "local", STATUS["run_id"], "--python", python, "--no-follow")
    assert res.returncode == 2 and "next_offset" in res.stderr, res.stderr


MALFORMED = {
    "a list, not an object": b"[1, 2, 3]\n",
    "status missing": poll(status=None),
    "state unknown": poll(status_state={"x": 1}),
    "exit code a string": poll(status_exit_code="0; rm -rf /"),
    "data not base64": poll(data="%%%not base64%%%"),
    "data longer than the offsets say": poll(data=base64.b64encode(LOG * 3).decode()),
    "offsets out of order": poll(offset=50, next_offset=10, size=5),
    "no progress before the end": poll(offset=0, next_offset=0, size=100, data=""),
    "command not a list": poll(status_command="rm -rf /"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_watch_replies_are_clear_errors(tmp_path, hostile_python, case):
    res = drift(tmp_path, "watch", "local", STATUS["run_id"], "--python", hostile_python.replying(MALFORMED[case]),
                "--no-follow")
    assert res.returncode == 2, (case, res.stdout, res.stderr)
    assert "drift: error:" in res.stderr, res.stderr


@pytest.mark.parametrize("reply", [
    {"root": "/runs", "runs": [dict(STATUS, run_id="../../x")]},
    {"root": "/runs", "runs": "nope"},
    {"root": 5, "runs": []},
    {"root": "/runs", "runs": [7]},
    {"root": "/runs", "runs": [dict(STATUS, pid="12")]},
])
def test_malformed_runs_listings_are_clear_errors(tmp_path, hostile_python, reply):
    res = drift(tmp_path, "runs", "local", "--python", hostile_python.replying(json.dumps(reply).encode() + b"\n"))
    assert res.returncode == 2 and "drift: error:" in res.stderr and "malformed" in res.stderr, res.stderr
