"""The renames vLLM 0.11.0's own deprecation code names, applied to a plugin on vLLM 0.12.0 through
the real CLI (`drift check DIR --fix`) over the real releases from PyPI: `GuidedDecodingParams` ->
`StructuredOutputsParams` in the import and every use, `guided_decoding=` -> `structured_outputs=`.
The issue's harmful default edit was dropping `guided_decoding=` (the regex constraint silently
gone); here the safe fix keeps the constraint, and the patched plugin checks clean on both releases.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.rule_cases import src, write_tree

pytestmark = pytest.mark.corpus

PLUGIN = {
    "pyproject.toml": """
        [project]
        name = "myplugin"
        version = "0.1.0"
        dependencies = ["vllm==0.11.0"]
        """,
    "myplugin/gen.py": """
        from vllm.sampling_params import GuidedDecodingParams, SamplingParams


        def constrained(regex: str) -> SamplingParams:
            guide = GuidedDecodingParams(regex=regex)
            return SamplingParams(max_tokens=16, guided_decoding=guide)


        def from_options(regex: str) -> SamplingParams:
            options = {"max_tokens": 8, "guided_decoding": GuidedDecodingParams(regex=regex)}
            return SamplingParams(**options)
        """,
}


def _drift(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", *argv], check=False,
                          capture_output=True, text=True, timeout=600)


def test_deprecated_alias_and_keyword_follow_the_baselines_shims(tmp_path: Path, corpus_src) -> None:
    corpus_src("vllm==0.11.0"), corpus_src("vllm==0.12.0")
    root = write_tree(tmp_path / "plugin", PLUGIN)
    gen = root / "myplugin/gen.py"
    before = _drift("check", str(root), "-t", "vllm==0.12.0", "-b", "vllm==0.11.0")
    assert before.returncode == 1, before.stderr
    assert "fix safe: pass `structured_outputs=guide` instead of `guided_decoding=guide`" in before.stdout
    assert "fix safe: import `StructuredOutputsParams` from `vllm.sampling_params`" in before.stdout

    fixed = _drift("check", str(root), "-t", "vllm==0.12.0", "-b", "vllm==0.11.0", "--fix")
    assert "breaking 3 -> 0" in fixed.stderr, (fixed.stdout, fixed.stderr)
    text = gen.read_text()
    renamed = src(PLUGIN["myplugin/gen.py"]).replace("GuidedDecodingParams", "StructuredOutputsParams").replace(
        "guided_decoding", "structured_outputs")
    # as ruff would leave it: the renamed import sorted, the line the rename made too long wrapped
    assert text == renamed.replace("import StructuredOutputsParams, SamplingParams",
                                   "import SamplingParams, StructuredOutputsParams").replace(
        '{"max_tokens": 8, "structured_outputs": StructuredOutputsParams(regex=regex)}',
        '{\n        "max_tokens": 8,\n        "structured_outputs": StructuredOutputsParams(regex=regex),\n    }')
    compile(text, str(gen), "exec")
    assert not list(root.rglob("__pycache__"))

    for release in ("vllm==0.12.0", "vllm==0.11.0"):  # clean on the target and on the baseline it still runs on
        again = _drift("check", str(root), "-t", release, "-b", "vllm==0.11.0")
        assert again.returncode == 0, (release, again.stdout)
    second = _drift("check", str(root), "-t", "vllm==0.12.0", "-b", "vllm==0.11.0", "--fix")
    assert gen.read_text() == text and second.returncode == 0  # a second run changes nothing
