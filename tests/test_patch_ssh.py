"""The same apply / revert / verify over a real OpenSSH sshd (loopback), via the SSH connector."""

from __future__ import annotations

import asyncio
import sys

import pytest

from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.fixes import apply, plan, revert, verify_compile

pytestmark = pytest.mark.ssh

FILES = {"pkg/gen.py": b"def go(ex, so):\n    # one step\n    ex.execute_model(so)\n"}
FINDING = Finding(
    rule_id="T004",
    kind=RuleKind.TWO_PHASE_PROTOCOL,
    severity=Severity.BREAKING,
    title="t",
    consumer_site=Location("pkg/gen.py", 3),
    fix=Fix("call sample_tokens", codemod="add_second_phase", args={}, tier="safe"),
)


def test_apply_verify_revert_over_ssh(sshd, tmp_path):
    from drift.remote.connectors.ssh import connect

    root, state = tmp_path / "site", tmp_path / "state"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/gen.py").write_bytes(FILES["pkg/gen.py"])
    p = plan(FILES, [FINDING])

    async def go():
        conn = await connect(sshd.spec, **sshd.connect_kwargs())
        try:
            kw = dict(root=str(root), state_dir=str(state), meta={"target_version": "0.16.0"}, python=sys.executable)
            first = await apply(p, conn, **kw)
            second = await apply(p, conn, **kw)
            compiled = await verify_compile(conn, python=sys.executable, paths=["pkg/gen.py"], root=str(root))
            patched = (root / "pkg/gen.py").read_bytes()
            back = await revert(conn, state_dir=str(state), root=str(root), python=sys.executable)
            return first, second, compiled, patched, back
        finally:
            await conn.close()

    first, second, compiled, patched, back = asyncio.run(go())
    assert first.status == "applied", first.reason
    assert second.status == "already_applied"
    assert compiled.ok, compiled.errors
    assert b"    if ex.execute_model(so) is None:\n        ex.sample_tokens(None)\n" in patched
    assert back.status == "reverted", back.reason
    assert (root / "pkg/gen.py").read_bytes() == FILES["pkg/gen.py"]
