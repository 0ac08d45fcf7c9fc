"""LocalConnector: the same interface as SSH, on this machine, without a shell."""

import asyncio
import os

import pytest

from drift.remote.connectors.base import ConnectorError
from drift.remote.connectors.local import LocalConnector


def run(coro):
    return asyncio.run(coro)


def test_argv_is_not_shell_interpreted_and_stdin_flows(tmp_path):
    c = LocalConnector()
    res = run(c.run(["printf", "%s", "$(id); `id` *"]))
    assert res.ok and res.stdout == b"$(id); `id` *"
    assert run(c.run(["cat"], stdin=b"\x00\x01abc")).stdout == b"\x00\x01abc"
    bad = run(c.run(["sh", "-c", "echo e >&2; exit 3"]))
    assert (bad.exit_status, bad.stderr) == (3, b"e\n")


def test_missing_binary_looks_like_a_shell_127():
    res = run(LocalConnector().run(["/nonexistent/python3", "-"], stdin=b""))
    assert res.exit_status == 127 and b"No such file" in res.stderr


def test_timeout_kills_and_raises():
    with pytest.raises(ConnectorError, match="timed out"):
        run(LocalConnector().run(["sleep", "30"], timeout=0.3))


def test_killed_by_signal_has_no_exit_status():
    res = run(LocalConnector().run(["sh", "-c", "kill -9 $$"]))
    assert res.exit_status is None and not res.ok


def test_put_atomic_get_and_errors(tmp_path):
    c = LocalConnector()
    target = tmp_path / "out.json"
    target.write_text("old")
    run(c.put(str(target), b"new", mode=0o600))
    assert run(c.get(str(target))) == b"new"
    assert oct(target.stat().st_mode & 0o777) == oct(0o600)
    assert os.listdir(tmp_path) == ["out.json"]
    with pytest.raises(ConnectorError) as err:
        run(c.get(str(tmp_path / "absent")))
    assert err.value.category == "usage"
    with pytest.raises(ConnectorError):
        run(c.put(str(tmp_path / "nodir" / "x"), b""))


def test_bad_argv_is_usage_error():
    with pytest.raises(ConnectorError) as err:
        run(LocalConnector().run([]))
    assert err.value.category == "usage"
