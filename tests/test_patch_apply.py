"""apply / revert / verify_compile through the real LocalConnector and the stdlib applier."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drift.fixes.applier import PAUSE_ENV
from drift.remote.connectors.local import LocalConnector
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.fixes import FileChange, PatchPlan, apply, plan, read_manifest, revert, verify_compile

PY = sys.executable
REPO = Path(__file__).resolve().parents[1]
META = {"target_version": "0.16.0", "baseline_version": "0.11.0", "consumer": "pkg"}

FILES = {
    "pkg/a.py": b"cfg = make(spec=1, b=2)  # build\n",
    "pkg/b.py": b"x = states[0]\n",
}


def findings() -> list[Finding]:
    def one(path, codemod, **args):
        return Finding(
            rule_id="T003",
            kind=RuleKind.KEYWORD_REMOVED,
            severity=Severity.BREAKING,
            title="t",
            consumer_site=Location(path, 1),
            fix=Fix("f", codemod=codemod, args=args, tier="safe"),
        )

    return [
        one("pkg/a.py", "drop_keyword", callee="make", keyword="spec"),
        one("pkg/b.py", "unwrap_index", index="0", name="states"),
    ]


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    for rel, data in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    os.chmod(root / "pkg/a.py", 0o640)
    return root, tmp_path / "state"


def run(coro):
    return asyncio.run(coro)


def do_apply(p, root, state, **kw):
    return run(apply(p, LocalConnector(), root=str(root), state_dir=str(state), meta=META, python=PY, **kw))


def do_revert(root, state, **kw):
    return run(revert(LocalConnector(), state_dir=str(state), root=str(root), python=PY, **kw))


def test_apply_writes_backup_and_manifest_then_is_idempotent(site):
    root, state = site
    p = plan(FILES, findings())
    res = do_apply(p, root, state)
    assert res.status == "applied", res.reason
    assert res.patch_id == p.patch_id and {f.action for f in res.files} == {"applied"}
    for c in p.changes:
        assert (root / c.path).read_bytes() == c.after
        assert (state / p.patch_id / "backup" / c.path).read_bytes() == c.before
    assert (root / "pkg/a.py").stat().st_mode & 0o777 == 0o640
    manifest = run(read_manifest(LocalConnector(), state_dir=str(state), patch_id=p.patch_id))
    assert manifest["status"] == "applied" and manifest["drift_version"]
    assert (manifest["target_version"], manifest["baseline_version"]) == ("0.16.0", "0.11.0")
    assert manifest["finding_ids"] == list(p.finding_keys)
    assert [(f["path"], f["before_sha256"], f["after_sha256"], f["state"]) for f in manifest["files"]] == [
        (c.path, c.before_sha256, c.after_sha256, "applied") for c in p.changes
    ]
    snapshot = {c.path: (root / c.path).stat().st_mtime_ns for c in p.changes}
    again = do_apply(p, root, state)
    assert again.status == "already_applied" and {f.action for f in again.files} == {"already"}
    assert {c.path: (root / c.path).stat().st_mtime_ns for c in p.changes} == snapshot
    assert not [n for n in os.listdir(root / "pkg") if n.endswith(".tmp")]


def test_refuses_a_file_changed_since_the_diff(site):
    root, state = site
    p = plan(FILES, findings())
    (root / "pkg/b.py").write_bytes(b"x = other[0]\n")
    res = do_apply(p, root, state)
    assert res.status == "refused" and "pkg/b.py changed since the diff" in res.reason
    assert (root / "pkg/a.py").read_bytes() == FILES["pkg/a.py"]
    assert not state.exists()


def test_refuses_another_installed_version(site):
    root, state = site
    res = do_apply(plan(FILES, findings()), root, state, installed_version="0.17.0")
    assert res.status == "refused" and "0.16.0" in res.reason and "0.17.0" in res.reason
    assert (root / "pkg/a.py").read_bytes() == FILES["pkg/a.py"]


def test_refuses_unsafe_paths(site, tmp_path):
    root, state = site
    (tmp_path / "outside.py").write_bytes(b"x = 1\n")
    bad = lambda path: PatchPlan(  # noqa: E731
        changes=(FileChange(path, "0" * 64, "1" * 64, b"x = 1\n", b"x = 2\n", ()),)
    )
    assert "'..'" in do_apply(bad("../outside.py"), root, state).reason
    assert "absolute" in do_apply(bad("/etc/passwd"), root, state).reason
    (root / "pkg/link.py").symlink_to(tmp_path / "outside.py")
    res = do_apply(bad("pkg/link.py"), root, state)
    assert res.status == "refused" and "leaves" in res.reason
    assert (tmp_path / "outside.py").read_bytes() == b"x = 1\n"


def test_revert_restores_originals_and_refuses_later_edits(site):
    root, state = site
    p = plan(FILES, findings())
    assert do_apply(p, root, state).status == "applied"
    (root / "pkg/a.py").write_bytes(b"# edited by hand\n")
    res = do_revert(root, state)
    assert res.status == "refused" and "pkg/a.py was changed after the patch" in res.reason
    assert (root / "pkg/b.py").read_bytes() == p.changes[1].after  # nothing restored
    res = do_revert(root, state, force=True)
    assert res.status == "reverted", res.reason
    for rel, data in FILES.items():
        assert (root / rel).read_bytes() == data
    manifest = json.loads((state / p.patch_id / "manifest.json").read_text())
    assert manifest["status"] == "reverted" and {f["state"] for f in manifest["files"]} == {"reverted"}
    assert do_revert(root, state).status == "nothing"
    assert do_revert(root, state, patch_id=p.patch_id).status == "already_reverted"
    # Apply again after a revert works and revert by id restores again.
    assert do_apply(p, root, state).status == "applied"
    assert do_revert(root, state, patch_id=p.patch_id).status == "reverted"
    assert (root / "pkg/a.py").read_bytes() == FILES["pkg/a.py"]


DRIVER = """
import asyncio, base64, json, sys
from drift.remote.connectors.local import LocalConnector
from drift.fixes import FileChange, PatchPlan, apply
spec = json.load(open(sys.argv[1]))
changes = tuple(FileChange(c["path"], c["b"], c["a"], base64.b64decode(c["before"]),
                           base64.b64decode(c["after"]), tuple(c["keys"])) for c in spec["changes"])
res = asyncio.run(apply(PatchPlan(changes=changes), LocalConnector(), root=spec["root"],
                        state_dir=spec["state"], meta=spec["meta"], python=sys.executable))
print(res.status)
"""


def test_killed_midway_leaves_each_file_old_or_new_and_the_manifest_says_which(site, tmp_path):
    root, state = site
    p = plan(FILES, findings())
    spec = {
        "root": str(root),
        "state": str(state),
        "meta": META,
        "changes": [
            {
                "path": c.path,
                "b": c.before_sha256,
                "a": c.after_sha256,
                "before": base64.b64encode(c.before).decode(),
                "after": base64.b64encode(c.after).decode(),
                "keys": list(c.finding_keys),
            }
            for c in p.changes
        ],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    pause = tmp_path / "paused"
    env = dict(os.environ, PYTHONPATH=str(REPO), **{PAUSE_ENV: str(pause)})
    driver = subprocess.Popen([PY, "-c", DRIVER, str(tmp_path / "spec.json")], env=env, stdout=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not (pause.exists() and pause.read_text().strip()):
            assert driver.poll() is None and time.monotonic() < deadline, "applier never paused"
            time.sleep(0.05)
        applier_pid = int(pause.read_text())
        os.kill(applier_pid, signal.SIGKILL)  # really killed, between the two files
        out, _ = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert out.decode().strip() == "failed"
    first, second = p.changes
    assert (root / first.path).read_bytes() == first.after
    assert (root / second.path).read_bytes() == second.before
    manifest = json.loads((state / p.patch_id / "manifest.json").read_text())
    assert manifest["status"] == "applying"
    assert {f["path"]: f["state"] for f in manifest["files"]} == {first.path: "applied", second.path: "pending"}
    assert not [n for n in os.listdir(root / "pkg") if n.endswith(".tmp")]

    res = do_apply(p, root, state)  # finishes the job
    assert res.status == "applied"
    assert {f.path: f.action for f in res.files} == {first.path: "already", second.path: "applied"}
    assert do_apply(p, root, state).status == "already_applied"
    assert do_revert(root, state).status == "reverted"
    for rel, data in FILES.items():
        assert (root / rel).read_bytes() == data


def test_verify_compile(site):
    root, _ = site
    (root / "pkg/bad.py").write_text("def broken(:\n")
    conn = LocalConnector()
    ok = run(verify_compile(conn, python=PY, paths=["pkg/a.py", "pkg/b.py"], root=str(root)))
    assert ok.ok and not ok.errors
    bad = run(verify_compile(conn, python=PY, paths=["pkg/a.py", "pkg/bad.py", "../x.py"], root=str(root)))
    assert not bad.ok
    assert [p for p, _ in bad.errors] == [str(root / "pkg/bad.py"), "../x.py"]
    assert "SyntaxError" in bad.errors[0][1]


def test_applier_is_python39_syntax():
    import ast

    src = (REPO / "drift" / "fixes" / "applier.py").read_text()
    ast.parse(src, feature_version=(3, 9))
    assert "import drift" not in src and "from drift" not in src
