"""A tiny synthetic target in two releases (`demo`: `run(job, retries=3)` becomes keyword-only) with
a consumer that breaks on it, and the real CLI run on them in a subprocess. Shared by the CLI-output
and hostile-input tests, which all need a quick, real check to point their inputs at."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_drift(*argv: str, cwd: Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`drift ARGV` in `cwd`, with the user's pip settings and GitHub variables left out and the
    caches under `cwd`, so a test sees only what it set up."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "GITHUB_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", DRIFT_CACHE=str(cwd / "cache"),
               XDG_CACHE_HOME=str(cwd / "xdg"), **(env_extra or {}))
    return subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", *argv], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=300)


def demo_trees(tmp_path: Path) -> dict[str, str]:
    for name, api in (("before", "def run(job, retries=3):\n    return job\n"),
                      ("after", "def run(job, *, retries=3):\n    return job\n")):
        (tmp_path / name / "demo").mkdir(parents=True)
        (tmp_path / name / "demo" / "__init__.py").write_text("")
        (tmp_path / name / "demo" / "api.py").write_text(api)
    (tmp_path / "consumer" / "uses_demo").mkdir(parents=True)
    (tmp_path / "consumer" / "uses_demo" / "__init__.py").write_text("from demo.api import run\n\nrun('x', 5)\n")
    return {"root": str(tmp_path), "consumer": str(tmp_path / "consumer"), "target": str(tmp_path / "after"),
            "baseline": str(tmp_path / "before")}


def check_demo(trees: dict[str, str], *extra: str, cwd: Path, target: str | None = None) -> subprocess.CompletedProcess:
    return run_drift("check", trees["consumer"], "-t", target or trees["target"], "-b", trees["baseline"],
                     "--package", "demo", *extra, cwd=cwd)
