"""CI that installs (issue 24, item 7): the example workflow and the composite action, run as
written in a throwaway repository with the GitHub Actions environment simulated.

drift is not published on a package index, so both install it from its repository: the
workflow with `pip install "$DRIFT_SPEC"` (a git URL; here a `git+file://` clone of this
checkout at a commit), the action with `pip install "$GITHUB_ACTION_PATH"` (its own checkout).
Both installs go into a fresh virtualenv; nothing of this test's own environment is used by
the gate. The `run:` scripts are taken from the YAML files and executed by bash with the
variables Actions sets (GITHUB_ACTIONS, GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
GITHUB_ACTION_PATH) and the `${{ ... }}` expressions they use filled in. The SARIF written by
the installed drift is validated against the SARIF 2.1.0 schema: helpUri on every rule (the
rule pages ship with the package), automationDetails, and a `fixes` entry for the codemod.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from tests.test_reports_sarif import sarif_validator  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / ".github" / "workflows" / "drift-gate.example.yml"
GIT = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", "-c", "commit.gpgsign=false"]


def _copy_of_drift(dest: Path) -> Path:
    """This checkout's files (as they are now, new files included) as a git repository."""
    shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__", ".pytest_cache",
                                                                "benchmarks"))
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "drift"], ["tag", "v0.1.0"]):
        subprocess.run(GIT + cmd, cwd=dest, check=True, capture_output=True)
    return dest


@pytest.fixture(scope="module")
def drift_repo(tmp_path_factory) -> Path:
    return _copy_of_drift(tmp_path_factory.mktemp("drift-src") / "drift")


@pytest.fixture(scope="module")
def runner_venv(tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("runner") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    return venv


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.fixture
def workspace(tmp_path) -> dict[str, Path]:
    """A consumer repository and two tiny "vllm" releases: a keyword removed in between."""
    _write(tmp_path / "vllm-before", {"vllm/__init__.py": "",
                                      "vllm/kv.py": "def get_config(groups, specs=None):\n    return groups\n"})
    _write(tmp_path / "vllm-after", {"vllm/__init__.py": "", "vllm/kv.py": "def get_config(groups):\n    return groups\n"})
    repo = tmp_path / "consumer"
    _write(repo, {"kvtool/__init__.py": "from vllm.kv import get_config\n\n\ndef setup(g):\n"
                                        "    return get_config(g, specs=None)\n",
                  "scripts/bench.py": "from vllm.kv import get_config\n\nget_config([1], specs=[2])\n"})
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "consumer"]):
        subprocess.run(GIT + cmd, cwd=repo, check=True, capture_output=True)
    return {"repo": repo, "before": tmp_path / "vllm-before", "after": tmp_path / "vllm-after", "tmp": tmp_path}


def _actions_env(ws: dict[str, Path], venv: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "DRIFT_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(
        PATH=f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", GITHUB_ACTIONS="true", CI="true",
        GITHUB_WORKSPACE=str(ws["repo"]), GITHUB_OUTPUT=str(ws["tmp"] / "github_output"),
        GITHUB_STEP_SUMMARY=str(ws["tmp"] / "step_summary.md"), GITHUB_ENV=str(ws["tmp"] / "github_env"),
        DRIFT_CACHE=str(ws["tmp"] / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1", **extra,
    )
    for name in ("github_output", "github_env"):
        (ws["tmp"] / name).touch()
    return env


_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _fill(text: str, values: dict[str, str]) -> str:
    """`${{ inputs.x }}`, `${{ github.action_path }}`... as Actions fills them (names only)."""
    return _EXPR.sub(lambda m: values[m.group(1)], text)


def _bash(script: str, *, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    # the shell Actions runs a `shell: bash` step with
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=900)


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def _check_sarif(sarif: dict, validator, *, help_prefix: str | None = None) -> dict:
    validator.validate(sarif)
    (run,) = sarif["runs"]
    assert run["automationDetails"]["id"]
    for rule in run["tool"]["driver"]["rules"]:
        uri = rule["helpUri"]
        if help_prefix:
            assert uri == f"{help_prefix}{rule['id']}.md"
        else:  # the page shipped with the installed package
            assert uri.startswith("file://") and "/site-packages/drift/rule_pages/" in uri
            assert Path(unquote(urlsplit(uri).path)).is_file()
    codemod = [r for r in run["results"] if r["ruleId"] == "DRIFT010"]
    assert codemod and all(r.get("fixes") for r in codemod)
    (change,) = codemod[0]["fixes"][0]["artifactChanges"]
    (edit,) = change["replacements"]
    assert "specs=" not in edit["insertedContent"]["text"]
    return run


def test_the_example_workflow_installs_from_the_repository_and_gates(drift_repo, runner_venv, workspace,
                                                                     sarif_validator) -> None:  # noqa: F811
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = {s.get("name"): s for s in doc["jobs"]["gate"]["steps"]}
    spec = doc["env"]["DRIFT_SPEC"]
    assert spec.startswith("git+https://github.com/") and "drift-vllm" not in WORKFLOW.read_text()
    # the same URL form, pointing at the copy of this repository instead of GitHub
    local = f"git+file://{drift_repo}@{spec.rsplit('@', 1)[1]}"
    env = _actions_env(workspace, runner_venv, DRIFT_SPEC=local)
    install = _bash(steps["Install drift"]["run"], env=env, cwd=workspace["repo"])
    assert install.returncode == 0, install.stderr[-2000:]
    # the gate step as written, but on the tiny releases instead of the PyPI ones
    gate = steps["drift gate"]["run"]
    gate = re.sub(r"--target vllm==\S+ --target vllm==\S+", f"--target {workspace['after']}", gate)
    gate += f" --baseline {workspace['before']}"
    proc = _bash(gate, env=env, cwd=workspace["repo"])
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "::error file=kvtool/__init__.py,line=5" in proc.stdout  # annotations under Actions
    assert "verdict: 2 breaking" in proc.stdout
    assert "breaking" in (workspace["tmp"] / "step_summary.md").read_text()
    sarif_file = steps["Upload SARIF (annotations on the pull request)"]["with"]["sarif_file"]
    _check_sarif(json.loads((workspace["repo"] / sarif_file).read_text()), sarif_validator)


def test_the_action_installs_itself_and_gates(drift_repo, runner_venv, workspace, sarif_validator) -> None:  # noqa: F811
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update(targets=f"{workspace['after']}\n", baseline=str(workspace["before"]), args="--exclude scripts/",
                  python=str(runner_venv / "bin" / "python"))
    values = {f"inputs.{k}": v for k, v in inputs.items()}
    values.update({"github.action_path": str(drift_repo), "github.action_repository": "acme/drift",
                   "github.action_ref": "v0.1.0"})
    env = _actions_env(workspace, runner_venv, GITHUB_ACTION_PATH=str(drift_repo))
    ran = []
    for step in action["runs"]["steps"]:
        if "uses" in step:  # the upload: it must name the file the gate wrote, under its category
            assert step["uses"].startswith("github/codeql-action/upload-sarif@")
            assert _fill(step["with"]["sarif_file"], values) == inputs["sarif"]
            assert _fill(step["with"]["category"], values) == "drift"
            values.update({f"steps.gate.outputs.{k}": v for k, v in _outputs(Path(env["GITHUB_OUTPUT"])).items()})
            continue
        step_env = dict(env, **{k: _fill(str(v), values) for k, v in (step.get("env") or {}).items()})
        proc = _bash(step["run"], env=step_env, cwd=workspace["repo"])
        ran.append((step["name"], proc.returncode))
        if step.get("id") == "gate":
            assert "verdict: 1 breaking" in proc.stdout, proc.stderr[-2000:]  # scripts/ excluded by `args`
            assert "scripts/bench.py" not in proc.stdout
    assert ran == [("Install drift from this action's checkout", 0), ("drift gate", 0), ("Verdict", 1)]
    assert _outputs(Path(env["GITHUB_OUTPUT"]))["exit-code"] == "1"
    run = _check_sarif(json.loads((workspace["repo"] / "drift.sarif").read_text()), sarif_validator,
                       help_prefix="https://github.com/acme/drift/blob/v0.1.0/docs/rules/")
    assert run["automationDetails"]["id"] == "drift/"


def test_the_pre_commit_hook_never_floats_to_the_newest_release(workspace) -> None:
    """The hook's entry refuses to gate without a pinned target; the documented example pins one."""
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    argv = hook["entry"].split()
    env = dict(os.environ, DRIFT_CACHE=str(workspace["tmp"] / "cache"), PIP_INDEX_URL="http://127.0.0.1:9/simple/")
    proc = subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", *argv[1:]],
                          cwd=workspace["repo"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no target" in proc.stderr and "--target, vllm==" in proc.stderr
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    example = docs[docs.index("# .pre-commit-config.yaml"):]
    assert re.search(r"args: \[--target, vllm==\d+\.\d+\.\d+\]", example)
    pinned = subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", *argv[1:], "--target",
                             str(workspace["after"]), "--baseline", str(workspace["before"])],
                            cwd=workspace["repo"], env=env, capture_output=True, text=True, timeout=300)
    assert pinned.returncode == 1 and "DRIFT010" in pinned.stdout, pinned.stderr
