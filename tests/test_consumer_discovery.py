"""Discovery like ruff (issue 24, item 4): every `.py` under a checkout is read.

Real git repositories made here: a script-only repository (refused before as "not a Python
package"), a `tests/` folder reaching into the target's internals, a src layout, build output,
a virtualenv and a `.gitignore`d folder that must not be read, and include/exclude from the
command line and from `[tool.drift]`. The target is a small synthetic "vllm" before and after
a change; the real CLI runs in a subprocess and its JSON report says which lines it read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def target(tmp_path) -> dict[str, str]:
    """vllm before: `vllm.utils.cdiv` and `vllm.config.OldConfig`; after: both gone."""
    _write(tmp_path / "before", {"vllm/__init__.py": "", "vllm/utils.py": "def cdiv(a, b):\n    return -(a // -b)\n",
                                 "vllm/config.py": "class OldConfig:\n    pass\n"})
    _write(tmp_path / "after", {"vllm/__init__.py": "", "vllm/utils/__init__.py": "",
                                "vllm/utils/math_utils.py": "def cdiv(a, b):\n    return -(a // -b)\n",
                                "vllm/config.py": "class NewConfig:\n    pass\n"})
    return {"target": str(tmp_path / "after"), "baseline": str(tmp_path / "before")}


def _repo(root: Path, files: dict[str, str]) -> Path:
    _write(root, files)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
                   check=True)
    return root


def _check(repo: Path, target, *extra: str) -> tuple[int, dict, str]:
    env = dict(os.environ, DRIFT_CACHE=str(repo.parent / "cache"))
    proc = subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", "check", ".",
                           "-t", target["target"], "-b", target["baseline"], "--format", "json", *extra],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=300)
    report = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, report, proc.stderr


def _sites(report: dict) -> set[str]:
    return {f"{f['consumer_site']['path']}:{f['consumer_site']['line']}" for f in report.get("findings", [])}


SCRIPTS_ONLY = {
    "train.py": "from vllm.config import OldConfig\n",
    "scripts/bench.py": "import os\nfrom vllm.utils import cdiv\n",
    "tests/test_engine.py": "from vllm.config import OldConfig\n\n\ndef test_x():\n    assert OldConfig\n",
    "tests/fixtures/gen.py": "from vllm.utils import cdiv\n",
    "examples/demo.py": "print('no vllm here')\n",
    "build/lib/train.py": "from vllm.config import OldConfig\n",  # build output: never read
    ".venv/lib/site.py": "from vllm.config import OldConfig\n",  # a virtualenv: never read
    "scratch/try.py": "from vllm.utils import cdiv\n",  # ignored by .gitignore
    ".gitignore": "scratch/\n",
    "README.md": "scripts\n",
}


def test_a_script_only_repository_and_its_tests_are_checked(tmp_path, target) -> None:
    repo = _repo(tmp_path / "plugin", SCRIPTS_ONLY)
    code, report, err = _check(repo, target)
    assert code == 1, err
    # tests/test_engine.py:5 is the test's own use of the removed OldConfig (DRIFT005, risky): it changes too
    assert _sites(report) == {"train.py:1", "scripts/bench.py:2", "tests/test_engine.py:1", "tests/test_engine.py:5",
                              "tests/fixtures/gen.py:1"}
    assert report["consumer"]["name"] == "plugin"  # no package, no pyproject: the folder's name


def test_include_and_exclude_from_the_command_line(tmp_path, target) -> None:
    repo = _repo(tmp_path / "plugin", SCRIPTS_ONLY)
    _code, report, err = _check(repo, target, "--exclude", "tests/", "--exclude", "/train.py")
    assert _sites(report) == {"scripts/bench.py:2"}, err
    # `*` stops at `/`: tests/*.py is tests/test_engine.py, not tests/fixtures/gen.py
    _code, report, err = _check(repo, target, "--include", "tests/*.py")
    assert _sites(report) == {"tests/test_engine.py:1", "tests/test_engine.py:5"}, err
    _code, report, err = _check(repo, target, "--include", "tests/**/*.py,scripts/")
    assert _sites(report) == {"tests/test_engine.py:1", "tests/test_engine.py:5", "tests/fixtures/gen.py:1",
                              "scripts/bench.py:2"}, err
    code, _report, err = _check(repo, target, "--include", "docs/*.py")
    assert code == 2 and "include/exclude leave none" in err and "Traceback" not in err


def test_include_and_exclude_from_tool_drift_and_a_src_layout(tmp_path, target) -> None:
    repo = _repo(tmp_path / "kvplug", {
        "pyproject.toml": '[project]\nname = "kvplug"\nversion = "1.2"\ndependencies = ["vllm==0.0.1"]\n\n'
                          '[tool.drift]\nexclude = ["tests/fixtures/"]\n',
        "src/kvplug/__init__.py": "from kvplug.connector import Conn\n",
        "src/kvplug/connector.py": "from vllm.utils import cdiv\n\n\nclass Conn:\n    pass\n",
        "tests/test_conn.py": "from vllm.config import OldConfig\nfrom kvplug import Conn\n",
        "tests/fixtures/old.py": "from vllm.config import OldConfig\n",
    })
    code, report, err = _check(repo, target)
    assert code == 1, err
    assert _sites(report) == {"src/kvplug/connector.py:1", "tests/test_conn.py:1"}
    assert (report["consumer"]["name"], report["consumer"]["version"]) == ("kvplug", "1.2")
    # the named package alone, as before discovery (--consumer-package, repeatable)
    _code, report, err = _check(repo, target, "--consumer-package", "kvplug")
    assert _sites(report) == {"kvplug/connector.py:1"}, err


def test_consumer_package_twice(tmp_path, target) -> None:
    repo = _repo(tmp_path / "two", {"a/__init__.py": "from vllm.utils import cdiv\n",
                                    "b/__init__.py": "from vllm.config import OldConfig\n",
                                    "tests/test_a.py": "from vllm.config import OldConfig\n"})
    _code, report, err = _check(repo, target, "--consumer-package", "a", "--consumer-package", "b")
    assert _sites(report) == {"a/__init__.py:1", "b/__init__.py:1"}, err


def test_a_bad_glob_is_a_usage_error(tmp_path, target) -> None:
    repo = _repo(tmp_path / "plugin", SCRIPTS_ONLY)
    code, _report, err = _check(repo, target, "--exclude", "!")
    assert code == 2 and "bad include/exclude glob" in err and "Traceback" not in err
    (repo / "drift.toml").write_text('exclude = "tests/"\n')
    code, _report, err = _check(repo, target)
    assert code == 2 and "exclude must be a list of gitignore-style globs" in err
