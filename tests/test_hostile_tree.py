"""The consumer tree stays a tree: no symlink leads drift out of the consumer, and a wheel's
`top_level.txt` names import names, not paths.

A consumer checkout with `pkg/rootfs -> /` made drift walk the whole filesystem; `pkg/link -> ../outside`
and `pkg/leak.py -> /outside/secret.py` made it read code the consumer does not hold. Through the
real CLI (`drift check` of a synthetic checkout against a synthetic vLLM tree) and the real
walk (probes/locate.walk_tree, the code a host runs) and wheel reader.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from drift.probes.locate import walk_tree
from drift.sources.wheels import top_level_packages

SECRET = "from vllm import gone\ngone()\n"  # a break, if drift ever reads it


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    vt = tmp_path / "vt" / "vllm"
    vt.mkdir(parents=True)
    (vt / "__init__.py").write_text("def keep(a, b=1):\n    return a\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(SECRET)
    cons = tmp_path / "cons"
    pkg = cons / "conpkg"
    pkg.mkdir(parents=True)
    (cons / "pyproject.toml").write_text('[project]\nname = "conpkg"\nversion = "0.1"\n')
    (pkg / "__init__.py").write_text("from vllm import keep\nkeep(1, b=2)\n")
    (pkg / "sub").mkdir()
    (pkg / "sub" / "inner.py").write_text("x = 1\n")
    os.symlink(outside, pkg / "link")
    os.symlink(outside / "secret.py", pkg / "leak.py")
    os.symlink("/", pkg / "rootfs")
    os.symlink(pkg / "sub", pkg / "alias")  # inside the package: not refused as leaving it
    return cons, tmp_path / "vt"


def test_the_walk_never_leaves_the_package(tmp_path):
    cons, _ = _tree(tmp_path)
    entries, errors = walk_tree(str(cons), "conpkg")
    listed = {rel: err for rel, _abs, _size, _mtime, err in entries}
    assert listed["conpkg/leak.py"] == "unreadable: a symlink that leaves the package"
    assert not [rel for rel in listed if rel.startswith(("conpkg/link/", "conpkg/rootfs/"))]
    assert {e["path"] for e in errors if "leaves the package" in e["error"]} == {"conpkg/link", "conpkg/rootfs"}
    assert "conpkg/sub/inner.py" in listed
    assert not [e for e in errors if e["path"] == "conpkg/alias" and "leaves" in e["error"]]


def test_check_reads_nothing_through_a_symlink_out_of_the_checkout(tmp_path):
    cons, vt = _tree(tmp_path)
    res = subprocess.run([sys.executable, "-m", "drift.cli", "check", str(cons), "-t", str(vt), "--json"],
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, DRIFT_CACHE=str(tmp_path / "cache")))
    assert "Traceback" not in res.stderr, res.stderr
    report = json.loads(res.stdout)
    assert res.returncode == 0, (res.stderr, report["findings"])
    assert report["findings"] == []  # secret.py's break is never seen
    assert any("conpkg/leak.py" in n and "leaves the package" in n for n in report["notes"]), report["notes"]


def test_top_level_txt_entries_must_be_plain_names(tmp_path):
    root = tmp_path / "a" / "b" / "c"
    info = root / "evil-1.0.dist-info"
    info.mkdir(parents=True)
    (tmp_path / "outside" / "pkg").mkdir(parents=True)
    (tmp_path / "outside" / "pkg" / "__init__.py").write_text(SECRET)
    (info / "top_level.txt").write_text("../../../outside/pkg\n/etc\nevil\n")
    (root / "evil").mkdir()
    assert top_level_packages(root, "evil") == ["evil"]
    (info / "top_level.txt").write_text("../../../outside/pkg\n")
    (info / "RECORD").write_text("../../../outside/pkg/__init__.py,,\nevil/__init__.py,,\n")
    assert top_level_packages(root, "evil") == ["evil"]
