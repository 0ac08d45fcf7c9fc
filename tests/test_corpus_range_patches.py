"""Issue 23's "Done when" for the range consumers: `drift check COPY --fix` on a copy of each
corpus release that supports a range of vLLM releases (verl 0.6.1: vllm>=0.8.5,<=0.11.0;
vllm-spyre 1.3.0: vllm>=0.10.2,<=0.11.0), through the real CLI. The patch is version-gated, the
CLI re-checks the written tree against the baseline (nothing new) and the target (no new finding,
fewer breaking ones) and restores the originals otherwise; a second run changes nothing, and no
`__pycache__` is left behind. The figures are read from what the CLI says, never hard-coded."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drift.fixes.gate import MARK

# each case runs about six full checks of a real release (the first run's check, the baseline's,
# the baseline trial of the plain edits, both re-checks, then the second run's): more than the
# suite's default ten minutes on a loaded machine
pytestmark = [pytest.mark.corpus, pytest.mark.timeout(2400)]

RANGE_CONSUMERS = [
    # (consumer spec, baseline, target), as in tests/corpus/<name>.toml
    ("verl==0.6.1", "vllm==0.11.0", "vllm==0.12.0"),
    ("vllm-spyre==1.3.0", "vllm==0.11.0", "vllm==0.11.1"),
]


def _drift(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "drift.cli", *argv], capture_output=True, text=True, timeout=3600)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("consumer", "baseline", "target"), RANGE_CONSUMERS, ids=[c[0] for c in RANGE_CONSUMERS])
def test_the_range_consumers_patch_keeps_its_baseline_and_a_second_run_changes_nothing(
        consumer, baseline, target, corpus_src, tmp_path):
    corpus_src(baseline), corpus_src(target)
    copy = tmp_path / "tree"
    shutil.copytree(corpus_src(consumer), copy, ignore=shutil.ignore_patterns("__pycache__"))
    original = _tree(copy)
    args = ["check", str(copy), "-t", target, "-b", baseline, "--fix", "--format", "concise"]
    res = _drift(*args)
    assert res.returncode in (0, 1), res.stderr[-3000:]
    assert "admits the baseline" in res.stderr and "version-gated edits" in res.stderr, res.stderr[-3000:]
    assert f"re-checked against the baseline {baseline.split('==')[1]}: nothing new" in res.stderr, res.stderr[-3000:]
    wrote = re.search(r"wrote (\d+) file\(s\): .*; breaking (\d+) -> (\d+)", res.stderr)
    assert wrote is not None, res.stderr[-3000:]
    assert int(wrote.group(1)) > 0 and int(wrote.group(3)) < int(wrote.group(2))
    patched = _tree(copy)
    changed = sorted(p for p in patched if original.get(p) != patched[p])
    assert changed and all(p.endswith(".py") for p in changed)
    for path in changed:
        compile(patched[path], path, "exec")
    assert f"# {MARK} vllm<" in "".join(patched[p].decode() for p in changed)  # a version branch kept the original
    assert not list(copy.rglob("__pycache__"))
    again = _drift(*args)
    assert again.returncode in (0, 1) and "nothing to change" in again.stderr, again.stderr[-3000:]
    assert _tree(copy) == patched
