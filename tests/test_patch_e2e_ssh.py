"""scan → patch --apply → scan over a real sshd, on real speculators 0.3.0 + vllm 0.16.0.

The host venv is a throwaway copy for the consumer (speculators is patched in place) that sees
the cached vllm install through a .pth file, so the shared cache is never modified.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drift.cli import main

pytestmark = [pytest.mark.ssh, pytest.mark.corpus]

FILES = ("speculators/data_generation/vllm_hidden_states_generator.py",
         "speculators/data_generation/custom_worker.py")


@pytest.fixture()
def patched_host(host_venv, tmp_path):
    base = Path(host_venv(("vllm==0.16.0", "speculators==0.3.0")))
    base_site = next(base.parent.parent.glob("lib/python*/site-packages"))
    venv = tmp_path / "hostenv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    for item in base_site.iterdir():
        if item.name.startswith("speculators"):
            shutil.copytree(item, site / item.name)
    (site / "zz_cached_vllm.pth").write_text(str(base_site) + "\n")
    return venv / "bin" / "python", site


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_patch_apply_rescan_revert(sshd, patched_host, tmp_path, capsys, corpus_src):
    corpus_src("vllm==0.11.0")
    python, site = patched_host
    ssh = ["-i", sshd.identity, "--known-hosts", sshd.known_hosts, "-F", sshd.write_ssh_config("")]
    state = str(tmp_path / "state")
    before = {f: _sha(site / f) for f in FILES}

    code, out, err = _run(capsys, "scan", sshd.spec, "--python", str(python), *ssh, "--json")
    assert code == 1, err
    assert any(f["rule_id"] == "DRIFT020" for f in json.loads(out)["findings"])

    # safe fixes only by default: the placeholder second phase and the dropped keyword are unsafe; the
    # family rename is safe (every model class that lost the method has the new one, own or inherited)
    code, out, err = _run(capsys, "patch", sshd.spec, "--python", str(python), *ssh, "--state-dir", state, "--json")
    assert code == 1, err
    safe = json.loads(out)
    assert "sample_tokens" not in safe["diff"] and "block_hasher=self._drift_block_hasher" in safe["diff"]
    assert "self.embed_input_ids(" in safe["diff"]
    assert {u["key"].split(":")[0] for u in safe["unsafe"]} == {"DRIFT010", "DRIFT020"}

    # dry run with --unsafe-fixes: a diff that git apply accepts, nothing written
    code, out, err = _run(capsys, "patch", sshd.spec, "--python", str(python), *ssh, "--state-dir", state,
                          "--unsafe-fixes", "-o", str(tmp_path / "fix.patch"), "--json")
    assert code == 1, err
    dry = json.loads(out)
    assert "+                self.executor.sample_tokens(None)" in dry["diff"]
    assert dry["unsafe"] == []
    assert {f: _sha(site / f) for f in FILES} == before
    check = subprocess.run(["git", "apply", "--check", str(tmp_path / "fix.patch")], cwd=site,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr

    code, out, err = _run(capsys, "patch", sshd.spec, "--python", str(python), *ssh, "--state-dir", state,
                          "--apply", "--unsafe-fixes", "--json")
    result = json.loads(out)
    assert result["apply"]["status"] == "applied", result
    assert result["reviewed_plan"] is True  # the --unsafe-fixes dry run above, not the safe-only one
    assert result["verify"]["compiled"] is True
    assert result["verify"]["fixable_breaking_left"] == []
    assert code == 0
    manifest = json.loads(next(Path(state).glob("*/manifest.json")).read_text())
    assert manifest["meta"]["target_version"] == "0.16.0" if "meta" in manifest else manifest["target_version"] == "0.16.0"

    code, out, err = _run(capsys, "scan", sshd.spec, "--python", str(python), *ssh, "--json")
    assert code == 0, out
    assert not [f for f in json.loads(out)["findings"] if f["severity"] == "breaking"]

    # second apply: nothing to do
    code, out, err = _run(capsys, "patch", sshd.spec, "--python", str(python), *ssh, "--state-dir", state,
                          "--apply", "--unsafe-fixes", "--json")
    assert json.loads(out)["apply"]["status"] in ("nothing", "already_applied")

    code, out, err = _run(capsys, "patch", sshd.spec, "--python", str(python), *ssh, "--state-dir", state,
                          "--revert", "--json")
    assert code == 0, out
    assert {f: _sha(site / f) for f in FILES} == before


def test_apply_refuses_a_file_edited_after_the_diff(sshd, patched_host, tmp_path, capsys, corpus_src):
    """The plan is computed, then the file changes under it: the applier refuses, nothing lost."""
    import asyncio

    from drift.remote.connectors.ssh import connect
    from drift.fixes import apply, plan
    from drift.pipeline.scan import ScanSettings, scan_connector

    python, site = patched_host

    async def go():
        conn = await connect(sshd.spec, **sshd.connect_kwargs())
        try:
            scan = await scan_connector(conn, host=sshd.spec, settings=ScanSettings(python=str(python)))
            report = scan.outcome.report
            fixable = [f for f in report.findings if f.fix and f.fix.codemod]
            files = {p: (site / p).read_bytes() for p in {f.consumer_site.path for f in fixable}}
            the_plan = plan(files, fixable)
            target = site / FILES[0]
            target.write_text(target.read_text() + "\n# edited by a human after the diff\n")
            edited = _sha(target)
            res = await apply(the_plan, conn, root=str(site), state_dir=str(tmp_path / "st"),
                              meta={"target_version": "0.16.0"}, python=str(python), installed_version="0.16.0")
            return res, edited
        finally:
            await conn.close()

    res, edited = asyncio.run(go())
    assert res.status == "refused"
    assert FILES[0].rsplit("/", 1)[-1] in (res.reason or "")
    assert _sha(site / FILES[0]) == edited


def test_apply_of_a_reviewed_diff_refuses_a_file_edited_since(sshd, patched_host, tmp_path, capsys, corpus_src):
    """`drift patch` (dry run) then a human edit then `drift patch --apply`: refused, nothing written."""
    corpus_src("vllm==0.11.0")
    python, site = patched_host
    ssh = ["-i", sshd.identity, "--known-hosts", sshd.known_hosts, "-F", sshd.write_ssh_config("")]
    state = str(tmp_path / "state")
    code, out, err = _run(capsys, "patch", sshd.spec, "--python", str(python), *ssh, "--state-dir", state, "--json")
    assert code == 1 and json.loads(out)["saved_plan"], err
    target = site / FILES[0]
    target.write_text(target.read_text().replace("MAX_NUM_SEQS = 32", "MAX_NUM_SEQS = 64"))
    edited = _sha(target)
    code, out, err = _run(capsys, "patch", sshd.spec, "--python", str(python), *ssh, "--state-dir", state,
                          "--apply", "--json")
    result = json.loads(out)
    assert code == 2
    assert result["apply"]["status"] == "refused"
    assert "vllm_hidden_states_generator.py" in result["apply"]["reason"]
    assert _sha(target) == edited
    assert _sha(site / FILES[1]) == _sha(corpus_src("speculators==0.3.0") / FILES[1])
    # a fresh plan (computed against the edited file) applies cleanly
    code, out, err = _run(capsys, "patch", sshd.spec, "--python", str(python), *ssh, "--state-dir", state,
                          "--apply", "--fresh", "--json")
    assert json.loads(out)["apply"]["status"] == "applied", out
    assert "MAX_NUM_SEQS = 64" in target.read_text()
