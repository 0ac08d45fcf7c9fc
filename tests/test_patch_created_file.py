"""A module the patch creates (a range consumer's version helper), through the real LocalConnector,
the stdlib applier and the local checkout writer: created only where nothing is, removed on revert."""

from __future__ import annotations

import asyncio
import sys

from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.fixes import apply, plan, revert, unified_diff
from drift.fixes.gate import VersionGate
from drift.fixes.local import restore, write_plan
from drift.fixes.version_helper import choose_gate
from drift.remote.connectors.local import LocalConnector

PY = sys.executable
META = {"target_version": "0.12.0", "baseline_version": "0.11.0", "consumer": "pkg"}
FILES = {"pkg/__init__.py": b"", "pkg/a.py": b"from lib import make\n\n\ndef f():\n    return make(1, spec=2)\n"}
# `make` is imported, not a parameter: call edits refuse a callee the function takes as a parameter
# (test_fix_shared_callee.py), since the caller decides what it calls.


def gated_plan():
    finding = Finding(rule_id="T003", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING, title="t",
                      consumer_site=Location("pkg/a.py", 5),
                      fix=Fix("drop `spec=2`", codemod="drop_keyword", args={"callee": "make", "keyword": "spec"},
                              tier="safe"))
    gate = choose_gate(FILES, top="pkg", since="0.12.0", before="0.11.0")
    assert isinstance(gate, VersionGate) and gate.helper_path == "pkg/vllm_version.py"
    return plan(FILES, [finding], gate=gate)


def site(tmp_path):
    root = tmp_path / "site"
    for rel, data in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def test_host_applier_creates_the_helper_and_revert_removes_it(tmp_path):
    root, state = site(tmp_path), tmp_path / "state"
    p = gated_plan()
    assert [c.path for c in p.changes if c.created] == ["pkg/vllm_version.py"]
    assert "new file mode 100644\n--- /dev/null\n+++ b/pkg/vllm_version.py\n" in unified_diff(p)
    res = asyncio.run(apply(p, LocalConnector(), root=str(root), state_dir=str(state), meta=META, python=PY))
    assert res.status == "applied", res.reason
    helper = root / "pkg" / "vllm_version.py"
    assert helper.read_bytes() == p.changes[-1].after and helper.stat().st_mode & 0o777 == 0o644
    assert 'if vllm_version_at_least("0.12.0"):' in (root / "pkg" / "a.py").read_text()
    again = asyncio.run(apply(p, LocalConnector(), root=str(root), state_dir=str(state), meta=META, python=PY))
    assert again.status == "already_applied"
    back = asyncio.run(revert(LocalConnector(), state_dir=str(state), root=str(root), python=PY))
    assert back.status == "reverted", back.reason
    assert not helper.exists() and (root / "pkg" / "a.py").read_bytes() == FILES["pkg/a.py"]


def test_an_existing_file_in_the_helpers_place_is_never_overwritten(tmp_path):
    root, state = site(tmp_path), tmp_path / "state"
    (root / "pkg" / "vllm_version.py").write_text("mine = 1\n")
    p = gated_plan()
    res = asyncio.run(apply(p, LocalConnector(), root=str(root), state_dir=str(state), meta=META, python=PY))
    assert res.status == "refused" and "pkg/vllm_version.py changed since the diff" in res.reason
    local = write_plan(root, p)
    assert not local.written and "pkg/vllm_version.py would be created, but it exists" in local.problems[0]
    assert (root / "pkg" / "vllm_version.py").read_text() == "mine = 1\n"


def test_local_writer_creates_and_restore_removes(tmp_path):
    root = site(tmp_path)
    p = gated_plan()
    assert write_plan(root, p).written == ("pkg/a.py", "pkg/vllm_version.py")
    restore(root, p)
    assert not (root / "pkg" / "vllm_version.py").exists()
    assert (root / "pkg" / "a.py").read_bytes() == FILES["pkg/a.py"]
