"""The CI files users copy: the example workflow's gate command and the pre-commit hook.

The workflow's `drift gate` line is run as written (on a small checkout written here), so the
documented command cannot rot; its SARIF and artifact steps must name the files it writes.
The hook manifest is loaded by pre-commit's own schema, and `pre-commit try-repo` installs
drift from this repository and runs the hook on a checkout, as a user's pre-commit would.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from drift import exitcodes
from drift.cli import main
from drift.sources.errors import FetchError
from tests.test_gate_inputs import KV_CALL, _checkout

pytestmark = pytest.mark.corpus

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "drift-gate.example.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
PINNED_EXTRA = '[project.optional-dependencies]\nserve = ["vllm==0.11.0"]'


@pytest.fixture(scope="module")
def releases(corpus_src) -> None:
    for spec in ("vllm==0.11.0", "vllm==0.16.0"):
        try:
            corpus_src(spec)
        except FetchError as exc:
            pytest.skip(f"cannot fetch {spec}: {exc}")


def _steps() -> list[dict]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["gate"]["steps"]


def _gate_argv() -> list[str]:
    [step] = [s for s in _steps() if "drift gate" in s.get("run", "")]
    argv = shlex.split(step["run"])
    assert argv[:2] == ["drift", "gate"]
    return argv[1:]


def _outputs(argv: list[str]) -> dict[str, str]:
    formats = [argv[i + 1] for i, a in enumerate(argv) if a == "--format"]
    files = [argv[i + 1] for i, a in enumerate(argv) if a == "-o"]
    return dict(zip(formats, files))


def test_workflow_is_an_example_with_the_permissions_it_needs() -> None:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert WORKFLOW.name.endswith(".example.yml")  # does not run in drift's own repository
    assert doc["permissions"]["security-events"] == "write"
    uses = [s.get("uses", "") for s in _steps()]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert any(u.startswith("actions/cache@") for u in uses)


def test_workflow_steps_name_the_files_the_gate_writes() -> None:
    files = _outputs(_gate_argv())
    assert set(files) == {"sarif", "junit", "html", "json"}
    by_use = {s.get("uses", "").split("@")[0]: s for s in _steps()}
    assert by_use["github/codeql-action/upload-sarif"]["with"]["sarif_file"] == files["sarif"]
    kept = by_use["actions/upload-artifact"]["with"]["path"].split()
    assert sorted(kept) == sorted(files.values())
    cache = by_use["actions/cache"]["with"]["path"]
    assert cache == "~/.cache/drift"


def test_workflow_gate_command_runs_as_written(releases, tmp_path, monkeypatch, capsys) -> None:
    repo = _checkout(tmp_path / "repo", name="kvtool", deps=PINNED_EXTRA, code=KV_CALL)
    monkeypatch.chdir(repo)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    argv = _gate_argv()
    assert main(argv) == exitcodes.DRIFT
    assert "verdict: 1 breaking" in capsys.readouterr().out  # the trailing --format terminal
    files = _outputs(argv)
    for name in files.values():
        assert (repo / name).stat().st_size > 0, name
    sarif = json.loads((repo / files["sarif"]).read_text(encoding="utf-8"))
    [result] = sarif["runs"][0]["results"]
    assert result["ruleId"] == "DRIFT010"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "kvtool/__init__.py"
    assert "1 of 2 targets clean" in summary.read_text(encoding="utf-8")


# --- pre-commit ---------------------------------------------------------------------------------

HAS_PRE_COMMIT = importlib.util.find_spec("pre_commit") is not None
needs_pre_commit = pytest.mark.skipif(not HAS_PRE_COMMIT, reason="pre-commit not installed (pip install pre-commit)")


def test_hook_manifest_entry() -> None:
    [hook] = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert hook["id"] == "drift-gate" and hook["entry"] == "drift gate --require-target"
    assert hook["language"] == "python" and hook["pass_filenames"] is False


@needs_pre_commit
def test_hook_manifest_is_valid_for_pre_commit() -> None:
    from pre_commit.clientlib import load_manifest

    [hook] = load_manifest(str(HOOKS))
    assert hook["id"] == "drift-gate" and hook["stages"] == ["pre-push", "manual"]


@needs_pre_commit
def test_pre_commit_try_repo_runs_the_gate(releases, tmp_path) -> None:
    """pre-commit installs drift from this repository into its own env and runs the hook."""
    repo = _checkout(tmp_path / "repo", name="kvtool", deps=PINNED_EXTRA, code=KV_CALL)
    # without a target the gate checks the newest release; the project pins the one it gates on
    (repo / "drift.toml").write_text('target = "vllm==0.16.0"\n', encoding="utf-8")
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "consumer"]):
        subprocess.run(git + cmd, cwd=repo, check=True, capture_output=True)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never")
    env.pop("GITHUB_STEP_SUMMARY", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "drift-gate", "--all-files",
         "--hook-stage", "manual", "--verbose"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300,
    )
    out = proc.stdout + proc.stderr
    offline = ("NewConnectionError", "Temporary failure in name resolution", "No matching distribution")
    if proc.returncode == 3 and any(marker in out for marker in offline):
        pytest.skip(f"pre-commit could not fetch drift's dependencies from the index: {out[-400:]}")
    assert proc.returncode == 1, out[-3000:]
    assert "drift gate (vLLM API drift)" in out and "Failed" in out
    assert "DRIFT010" in out and "kvtool/__init__.py:6" in out and "verdict: 1 breaking" in out, out[-3000:]  # the keyword's line
