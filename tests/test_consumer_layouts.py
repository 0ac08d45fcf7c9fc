"""Checkouts laid out as services and scripts in folders whose names are no identifiers
(`llama3.1-8b-instruct/service.py`, `examples/my-app/`): read as files, their relative imports
resolved within the folder, and the report says how many files were read and what was left out.

A synthetic "vllm" before/after and a real git checkout; the CLI runs in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from drift.consumer.discover import Selection, discover
from drift.probes.locate import consumer_module


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


SERVICES = {
    # a service folder named after a model: a dot and dashes, no __init__.py
    "llama3.1-8b-instruct/service.py": "from .helpers import build\n\n\ndef serve():\n    return build()\n",
    "llama3.1-8b-instruct/helpers.py": "from vllm.engine import make_engine\n\n\ndef build():\n"
                                       "    return make_engine(model='m', swap_space=4)\n",
    "examples/my-app/run.py": "from vllm.config import OldConfig\n",
    "run-server.py": "from vllm.config import OldConfig\n",
    "node_modules/x/y.py": "from vllm.config import OldConfig\n",  # a tool folder: not read, but said
    "scratch/try.py": "from vllm.config import OldConfig\n",  # .gitignore'd: not read, but said
    ".gitignore": "scratch/\n",
}


def test_module_names_of_script_folders():
    assert consumer_module("llama3.1-8b-instruct/service.py") == "llama3_1_8b_instruct.service"
    assert consumer_module("examples/my-app/__init__.py") == "examples.my_app"
    assert consumer_module("9lives/run.py") == "_9lives.run"
    assert consumer_module("pkg/sub/mod.py") == "pkg.sub.mod"  # importable names are left as they are


def test_discover_reads_folders_with_any_name_and_says_what_it_skipped(tmp_path):
    found = discover(_write(tmp_path / "repo", SERVICES), Selection())
    assert set(found.packages) == {"llama3.1-8b-instruct", "examples", "run-server"}
    skipped = dict(found.skipped)
    assert set(skipped) == {"node_modules/", "scratch/"}
    assert "default excludes" in skipped["node_modules/"] and ".gitignore" in skipped["scratch/"]
    found = discover(tmp_path / "repo", Selection(exclude=("examples/",)))
    assert dict(found.skipped)["examples/"] == "excluded by the user's `exclude`"


def _check(repo: Path, target: Path, baseline: Path) -> tuple[int, dict, str]:
    env = dict(os.environ, DRIFT_CACHE=str(repo.parent / "cache"))
    proc = subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", "check", ".",
                           "-t", str(target), "-b", str(baseline), "--format", "json"],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=300)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else {}, proc.stderr


def test_a_checkout_of_service_folders_is_checked(tmp_path):
    before = _write(tmp_path / "before", {
        "vllm/__init__.py": "", "vllm/config.py": "class OldConfig:\n    pass\n",
        "vllm/engine.py": "def make_engine(model, swap_space=4):\n    return model\n"})
    after = _write(tmp_path / "after", {
        "vllm/__init__.py": "", "vllm/config.py": "class NewConfig:\n    pass\n",
        "vllm/engine.py": "def make_engine(model):\n    return model\n"})
    repo = _write(tmp_path / "repo", SERVICES)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    code, report, err = _check(repo, after, before)
    assert code == 1, err
    sites = {f"{f['consumer_site']['path']}:{f['consumer_site']['line']}" for f in report["findings"]}
    # the removed keyword in the service's helper, the removed class in the example and the script
    assert sites == {"llama3.1-8b-instruct/helpers.py:5", "examples/my-app/run.py:1", "run-server.py:1"}, sites
    notes = "\n".join(report["notes"])
    assert "read 4 Python files under repo/" in notes
    assert "node_modules/ (a tool, build or environment folder" in notes and "scratch/ (listed in .gitignore)" in notes
