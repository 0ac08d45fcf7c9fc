"""The host drops in the middle of `drift patch --apply`: nothing is lost.

The applier pauses after its first file (test hook set through a wrapper interpreter, since
sshd passes no environment); the test then kills the SSH session and the applier itself, as a
dropped host would. Each file is old or new, the manifest says which, and after reconnecting a
second apply completes the patch and a revert restores the originals byte for byte.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from drift.fixes.applier import PAUSE_ENV
from drift.remote.connectors.base import ConnectorError
from drift.remote.connectors.ssh import connect
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.fixes import apply, plan, revert

pytestmark = pytest.mark.ssh

A = "pkg/a.py"
B = "pkg/b.py"
SRC = "def run(x):\n    return x.go(fast=True, size=2)\n"


def _finding(path: str) -> Finding:
    return Finding(rule_id="DRIFT010", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING,
                   title="`go` no longer accepts `fast=`", consumer_site=Location(path, 2),
                   fix=Fix("drop it", codemod="drop_keyword", args={"callee": "go", "keyword": "fast"}, tier="safe"))


def _ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _comm(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().strip()


def test_host_dropping_during_apply_loses_nothing(sshd, tmp_path):
    root = tmp_path / "site"
    (root / "pkg").mkdir(parents=True)
    for p in (A, B):
        (root / p).write_text(SRC)
    before = {p: (root / p).read_bytes() for p in (A, B)}
    the_plan = plan(before, [_finding(A), _finding(B)])
    assert len(the_plan.changes) == 2
    pause = tmp_path / "paused"
    wrapper = tmp_path / "py-wrapper"
    wrapper.write_text(f"#!/bin/sh\nexport {PAUSE_ENV}={pause}\nexec {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    state = tmp_path / "state"
    meta = {"target_version": "0.16.0", "finding_ids": list(the_plan.finding_keys)}

    async def interrupted():
        conn = await connect(sshd.spec, **sshd.connect_kwargs())
        task = asyncio.create_task(apply(the_plan, conn, root=str(root), state_dir=str(state), meta=meta,
                                         python=str(wrapper)))
        deadline = time.monotonic() + 60
        while not (pause.exists() and pause.read_text().strip()):
            assert time.monotonic() < deadline and not task.done(), "applier never paused"
            await asyncio.sleep(0.05)
        applier = int(pause.read_text())
        session = applier
        while _comm(session) != "sshd" and session > 1:
            session = _ppid(session)
        assert session > 1, "no sshd ancestor"
        os.kill(session, signal.SIGKILL)  # the link is gone
        os.kill(applier, signal.SIGKILL)  # and the remote process with it
        try:
            return await asyncio.wait_for(task, 30)
        except ConnectorError as exc:
            return exc
        finally:
            try:
                await conn.close()
            except Exception:
                pass

    outcome = asyncio.run(interrupted())
    assert isinstance(outcome, ConnectorError) or not outcome.ok
    manifest = json.loads(next(state.glob("*/manifest.json")).read_text())
    assert manifest["status"] == "applying"
    states = {f["path"]: f["state"] for f in manifest["files"]}
    for change in the_plan.changes:
        now = (root / change.path).read_bytes()
        assert now in (change.before, change.after)  # never half-written
        assert (now == change.after) == (states[change.path] == "applied")
    assert sorted(states.values()) == ["applied", "pending"]

    async def finish():
        conn = await connect(sshd.spec, **sshd.connect_kwargs())
        try:
            res = await apply(the_plan, conn, root=str(root), state_dir=str(state), meta=meta,
                              python=sys.executable)
            rev = await revert(conn, state_dir=str(state), root=str(root), python=sys.executable)
            return res, rev
        finally:
            await conn.close()

    res, rev = asyncio.run(finish())
    assert res.status == "applied", res.reason
    assert rev.status == "reverted", rev.reason
    for p in (A, B):
        assert hashlib.sha256((root / p).read_bytes()).digest() == hashlib.sha256(before[p]).digest()
