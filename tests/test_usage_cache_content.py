"""The consumer's usage cache is keyed by each file's content, not by its size and mtime
(probes/consumer_scan.py `_consumer_usage`): through the real CLI, on a real git repository whose
two commits carry the same version string, in a private DRIFT_CACHE.

A synthetic library drops `size=` from `make`; the consumer's first commit calls
`make(1, size=2)` (one breaking finding), its second replaces that call by a same-length
`make(1)  # siz2` (none). Both commits say `version = "1.0"` in pyproject.toml.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rule_cases import src, write_tree

BEFORE = {
    "gizmo/core.py": """
        def make(a, size=1):
            return [a] * size
        """,
}
AFTER = {
    "gizmo/core.py": """
        def make(a):
            return [a]
        """,
}
MAIN = """
    from gizmo.core import make


    def build():
        return make(1, size=2)
    """
FIXED = MAIN.replace("make(1, size=2)", "make(1)  # siz2")
PYPROJECT = '[project]\nname = "app"\nversion = "1.0"\n'

pytestmark = pytest.mark.skipif(shutil.which("git") is None and os.environ.get("CI") != "true",
                                reason="needs git")


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A git repository of the consumer: (its path, the first commit, the second)."""
    repo = write_tree(tmp_path / "repo", {"app/main.py": MAIN})
    (repo / "pyproject.toml").write_text(PYPROJECT)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "calls make with size")
    first = git(repo, "rev-parse", "HEAD")
    (repo / "app" / "main.py").write_text(src(FIXED))
    git(repo, "commit", "-qam", "drops size")
    return repo, first, git(repo, "rev-parse", "HEAD")


def check(consumer: Path, tmp_path: Path) -> list[str]:
    """The breaking findings' titles of `drift check` on the consumer tree (answer cache kept on:
    a stale usage would read a stale answer too)."""
    env = {**os.environ, "DRIFT_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "drift.cli", "check", str(consumer), "-t", str(tmp_path / "after"),
                           "-b", str(tmp_path / "before"), "--package", "gizmo", "--format", "json"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    assert report["consumer"]["version"] == "1.0"
    return [f["title"] for f in report["findings"] if f["severity"] == "breaking"]


def _libs(tmp_path: Path) -> None:
    write_tree(tmp_path / "before", BEFORE)
    write_tree(tmp_path / "after", AFTER)


def test_an_edit_that_keeps_size_and_mtime_is_read(tmp_path):
    """`git checkout` of the other commit, then the file's mtime set back to what it was (as a CI
    cache restored from a tarball, `cp -p` or `touch -r` leave it): same size, same mtime, same
    version string, other content."""
    _libs(tmp_path)
    repo, first, second = _repo(tmp_path)
    main = repo / "app" / "main.py"
    git(repo, "checkout", "-q", first)
    assert len(check(repo, tmp_path)) == 1
    st = main.stat()
    git(repo, "checkout", "-q", second)
    os.utime(main, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert main.stat().st_size == st.st_size and main.stat().st_mtime_ns == st.st_mtime_ns
    assert check(repo, tmp_path) == []
    git(repo, "checkout", "-q", first)  # and back: the first commit's finding again
    assert len(check(repo, tmp_path)) == 1


def test_two_work_trees_of_one_version_keep_their_own_uses(tmp_path):
    """Two clones of the repository at its two commits (one version string, same file sizes,
    the second's mtimes made the first's), checked one after the other and again."""
    _libs(tmp_path)
    repo, first, second = _repo(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(repo), str(a))
    git(tmp_path, "clone", "-q", str(repo), str(b))
    git(a, "checkout", "-q", first)
    git(b, "checkout", "-q", second)
    st = (a / "app" / "main.py").stat()
    os.utime(b / "app" / "main.py", ns=(st.st_atime_ns, st.st_mtime_ns))
    for _ in range(2):
        assert len(check(a, tmp_path)) == 1
        assert check(b, tmp_path) == []


def test_an_unchanged_tree_reports_the_same_bytes(tmp_path):
    """The warm path: checked three times unchanged, one report."""
    _libs(tmp_path)
    repo, first, _second = _repo(tmp_path)
    git(repo, "checkout", "-q", first)
    env = {**os.environ, "DRIFT_CACHE": str(tmp_path / "cache")}
    args = [sys.executable, "-m", "drift.cli", "check", str(repo), "-t", str(tmp_path / "after"),
            "-b", str(tmp_path / "before"), "--package", "gizmo", "--format", "json"]
    outs = [subprocess.run(args, capture_output=True, text=True, env=env, timeout=300).stdout for _ in range(3)]
    assert outs[0] == outs[1] == outs[2] and json.loads(outs[0])["findings"]
