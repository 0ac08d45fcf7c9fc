"""The installed distribution puts only `drift` on the import path: the repository's probes/ and
reports/ install as drift.probes and drift.reports, never as top-level packages that collide with
other projects' (issue 13, packaging)."""

from __future__ import annotations

import ast
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOP_LEVEL = {"probes", "reports"}


def _top_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [f"{path}:{node.lineno}" for a in node.names if a.name.split(".")[0] in TOP_LEVEL]
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in TOP_LEVEL:
            out.append(f"{path.relative_to(REPO)}:{node.lineno}")
    return out


def test_no_code_imports_probes_or_reports_as_top_level_packages():
    bad = []
    for folder in ("drift", "probes", "reports", "tests", "benchmarks"):
        for path in (REPO / folder).rglob("*.py"):
            bad += _top_level_imports(path)
    assert not bad, f"import drift.probes / drift.reports instead: {bad}"


def test_the_wheel_holds_only_drift_and_runs_from_it(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(REPO)],
                   check=True, capture_output=True, cwd=tmp_path)
    (wheel,) = tmp_path.glob("drift_vllm-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert "drift" in tops and all(t == "drift" or t.endswith(".dist-info") for t in tops), tops
    assert "drift/probes/bundle.py" in names and "drift/reports/schemas/report-1.json" in names
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    deps = sysconfig.get_paths()["purelib"]
    # -S: no .pth files, so the editable checkout of this repository is out of the way
    code = ("import sys; sys.path[:0] = [%r, %r]; import importlib, importlib.util as u, pkgutil, drift; "
            "assert drift.__file__.startswith(%r), drift.__file__; "
            "[importlib.import_module(m.name) for m in pkgutil.walk_packages(drift.__path__, 'drift.')]; "
            "print(u.find_spec('probes'), u.find_spec('reports'))") % (str(unpacked), deps, str(unpacked))
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["None", "None"]
