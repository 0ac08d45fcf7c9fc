"""`drift patch --revert` trusts only what drift computed, never the manifest's word for where to write.

The manifest lives in a state directory on the host, where anything with the user's rights can
edit it. An edited manifest that names another directory (with a backup to match) must not make
revert overwrite a file there: the real CLI refuses with exit 2 and nothing outside is written.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from drift.cli import main
from drift.fixes import apply, plan
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.remote.connectors.local import LocalConnector

BEFORE = b"cfg = make(spec=1, b=2)\n"


@pytest.fixture
def host(tmp_path):
    """A real interpreter (a venv) with a synthetic consumer `hostilepkg` installed, patched once."""
    import asyncio

    venv = tmp_path / "hostenv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "hostilepkg").mkdir()
    (site / "hostilepkg" / "__init__.py").write_bytes(b"")
    (site / "hostilepkg" / "a.py").write_bytes(BEFORE)
    finding = Finding(rule_id="T003", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING, title="t",
                      consumer_site=Location("hostilepkg/a.py", 1),
                      fix=Fix("f", codemod="drop_keyword", args={"callee": "make", "keyword": "spec"}, tier="safe"))
    the_plan = plan({"hostilepkg/a.py": BEFORE}, [finding])
    state = tmp_path / "state"
    python = str(venv / "bin" / "python")
    res = asyncio.run(apply(the_plan, LocalConnector(), root=str(site), state_dir=str(state),
                            meta={"consumer": "hostilepkg"}, python=python))
    assert res.status == "applied", res.reason
    return python, site, state, the_plan


def revert_cli(capsys, python, state):
    code = main(["patch", "local", "--python", python, "--consumer-package", "hostilepkg",
                 "--state-dir", str(state), "--revert", "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out) if out.strip() else None, err


def _edit(state: Path, patch_id: str, change) -> None:
    mpath = state / patch_id / "manifest.json"
    manifest = json.loads(mpath.read_text())
    change(manifest)
    mpath.write_text(json.dumps(manifest))


def test_a_manifest_naming_another_root_is_refused_and_nothing_outside_is_written(host, tmp_path, capsys):
    python, site, state, the_plan = host
    outside = tmp_path / "outside"
    (outside / "hostilepkg").mkdir(parents=True)
    victim = outside / "hostilepkg" / "a.py"
    patched = (site / "hostilepkg" / "a.py").read_bytes()
    victim.write_bytes(patched)  # what the manifest says is "after": revert would put the backup here
    _edit(state, the_plan.patch_id, lambda m: m.update(root=str(outside)))

    code, result, err = revert_cli(capsys, python, state)
    assert code == 2, (result, err)
    assert result["status"] == "refused" and str(outside) in result["reason"], result
    assert victim.read_bytes() == patched
    assert (site / "hostilepkg" / "a.py").read_bytes() == patched  # nothing reverted anywhere


def test_a_manifest_naming_another_packages_file_is_refused(host, capsys):
    python, site, state, the_plan = host
    other = site / "otherpkg"
    other.mkdir()
    (other / "a.py").write_bytes((site / "hostilepkg" / "a.py").read_bytes())
    backup = state / the_plan.patch_id / "backup"
    (backup / "otherpkg").mkdir()
    (backup / "otherpkg" / "a.py").write_bytes(BEFORE)
    _edit(state, the_plan.patch_id, lambda m: m["files"][0].update(path="otherpkg/a.py"))

    code, result, _ = revert_cli(capsys, python, state)
    assert code == 2 and result["status"] == "refused" and "otherpkg/a.py" in result["reason"], result
    assert (other / "a.py").read_bytes() != BEFORE


@pytest.mark.parametrize("damage", [
    lambda m: m.update(root=None),
    lambda m: m.update(files="x"),
    lambda m: m["files"][0].update(path=7),
    lambda m: m.clear(),
])
def test_a_malformed_manifest_is_refused_without_a_traceback(host, capsys, damage):
    python, site, state, the_plan = host
    _edit(state, the_plan.patch_id, damage)
    code, result, _ = revert_cli(capsys, python, state)
    assert code == 2 and result["status"] in ("refused", "nothing"), result


def test_the_untouched_manifest_still_reverts(host, capsys):
    python, site, state, _ = host
    code, result, _ = revert_cli(capsys, python, state)
    assert code == 0 and result["status"] == "reverted", result
    assert (site / "hostilepkg" / "a.py").read_bytes() == BEFORE
