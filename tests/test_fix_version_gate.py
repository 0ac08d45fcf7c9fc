"""Version-gated fixes for a consumer that supports a range of vLLM releases, through the real CLI.

A synthetic `vllm` in two releases (0.11.0 -> 0.12.0: `cdiv` moves to `vllm.utils.math_utils`,
`make` loses `size=`) and a consumer whose Requires-Dist admits 0.10 to 0.11. `drift check --fix`
must keep 0.11 working: each edit a version branch, the patched tree re-checked against both
releases, and the patched code run under both synthetic releases.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from drift.consumer.support import support
from drift.fixes.gate import MARK, VersionGate, gate_file
from drift.fixes.style import line_length
from drift.fixes.version_helper import choose_gate
from tests.rule_cases import write_tree


def _vllm(version: str, utils: dict[str, str]) -> dict[str, str]:
    return {"vllm/__init__.py": f'__version__ = "{version}"\n',
            f"vllm-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n",
            **utils}


BEFORE = _vllm("0.11.0", {"vllm/utils/__init__.py": """
    def cdiv(a, b):
        return -(a // -b)


    def make(a, size=1):
        return [a] * size
    """})
AFTER = _vllm("0.12.0", {"vllm/utils/__init__.py": """
    def make(a):
        return [a]
    """, "vllm/utils/math_utils.py": """
    def cdiv(a, b):
        return -(a // -b)
    """})
MAIN = """
    from vllm.utils import cdiv, make


    def pages(n):
        return cdiv(n, 16)


    def build():
        return make(1, size=1)
    """


def consumer_tree(requires: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    return {"pyproject.toml": f'[project]\nname = "app"\nversion = "1.0"\ndependencies = ["{requires}"]\n',
            "app/__init__.py": "", "app/main.py": MAIN, **(extra or {})}


def drift(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "drift.cli", *argv], capture_output=True, text=True, timeout=600)


def trees(tmp_path: Path, requires: str, extra: dict[str, str] | None = None) -> tuple[Path, Path, Path]:
    return (write_tree(tmp_path / "before", BEFORE), write_tree(tmp_path / "after", AFTER),
            write_tree(tmp_path / "consumer", consumer_tree(requires, extra)))


def run_under(vllm_tree: Path, consumer: Path) -> str:
    """The patched consumer's code paths, imported and called under one synthetic vLLM release."""
    env = {**os.environ, "PYTHONPATH": f"{vllm_tree}{os.pathsep}{consumer}", "PYTHONDONTWRITEBYTECODE": "1"}
    res = subprocess.run([sys.executable, "-c", "from app.main import pages, build; print(pages(33), build())"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def test_range_consumer_gets_gated_edits_that_run_on_both_releases(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    args = ["check", str(consumer), "-t", str(after), "-b", str(before), "--fix"]
    res = drift(*args)
    assert res.returncode == 0, res.stderr
    assert "Requires-Dist: vllm>=0.10.0,<=0.11.0 admits the baseline 0.11.0" in res.stderr
    assert "re-checked against the baseline 0.11.0: nothing new" in res.stderr
    # the moved import would raise on 0.11: a version branch; `size=1` is 0.11's default too: plain
    assert "gated where a plain edit breaks the baseline: app/main.py:1" in res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert main.count('if vllm_version_at_least("0.12.0"):') == 1
    assert main.count(f"# {MARK} vllm>=0.12.0:") == 1 and main.count(f"# {MARK} vllm<0.12.0:") == 1
    assert main.startswith("from app.vllm_version import vllm_version_at_least\n\nif vllm_version_at_least")
    assert "    from vllm.utils import make\n    from vllm.utils.math_utils import cdiv\nelse:\n" in main
    assert "    return make(1)\n" in main and "size=1" not in main
    helper = (consumer / "app" / "vllm_version.py").read_text()
    assert "Version(Version(vllm.__version__).base_version) >= Version(version)" in helper
    for path in (consumer / "app").glob("*.py"):
        compile(path.read_text(), str(path), "exec")
    assert run_under(before, consumer) == "3 [1]"
    assert run_under(after, consumer) == "3 [1]"
    assert not list(consumer.rglob("__pycache__"))
    again = drift(*args)
    assert again.returncode == 0 and "nothing to change" in again.stderr
    assert (consumer / "app" / "main.py").read_text() == main


def test_dev_build_counts_as_its_release(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    assert drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix").returncode == 0
    dev = write_tree(tmp_path / "dev", {**AFTER, "vllm/__init__.py": '__version__ = "0.12.0.dev3+g1a2b3c"\n'})
    assert run_under(dev, consumer) == "3 [1]"


def test_single_version_and_pinned_consumers_get_plain_edits(tmp_path):
    before, after, consumer = trees(tmp_path / "a", "vllm>=0.10.0,<=0.11.0")
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix", "--single-version")
    assert res.returncode == 0, res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert MARK not in main and "return make(1)\n" in main and not (consumer / "app" / "vllm_version.py").exists()

    before, after, consumer = trees(tmp_path / "b", "vllm==0.11.0")
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert res.returncode == 0, res.stderr
    assert MARK not in (consumer / "app" / "main.py").read_text()
    assert run_under(after, consumer) == "3 [1]"

    res = drift("check", str(consumer), "-t", str(after), "--single-version")
    assert res.returncode == 2 and "go with --fix" in res.stderr and "Traceback" not in res.stderr


def test_the_consumers_own_equality_helper_is_used(tmp_path):
    own = {"app/compat.py": """
        import vllm


        def vllm_version_is(version):
            return vllm.__version__ == version
        """}
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0", own)
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert res.returncode == 0, res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert 'if vllm_version_is("0.11.0"):' in main and "from app.compat import vllm_version_is\n" in main
    # the old release's branch first
    assert main.index("from vllm.utils import cdiv, make") < main.index("from vllm.utils.math_utils import cdiv")
    assert not (consumer / "app" / "vllm_version.py").exists()
    assert run_under(before, consumer) == "3 [1]" and run_under(after, consumer) == "3 [1]"


def test_gate_keeps_comments_strings_and_nested_blocks_exact():
    before = 'def f(x):\n    # keep me\n    s = """a\nb"""\n    return g(x, old=1)\n'
    after = 'def f(x):\n    # keep me\n    s = """a\nb"""\n    return g(x)\n'
    gate = VersionGate("0.12.0", "0.11.0", 'at_least("0.12.0")', import_from="pkg.v", name="at_least",
                       line_length=60)
    out = gate_file(before, after, gate, [(4, "drop `old=1` from the call")])
    assert out.problem is None and out.gated == 1
    assert 's = """a\nb"""\n' in out.source and "    # keep me\n" in out.source
    assert all(len(line) <= 60 for line in out.source.splitlines())
    compile(out.source, "f.py", "exec")
    assert gate_file(before, before, gate).source == before


def test_support_and_line_length(tmp_path):
    assert support(["vllm>=0.8.5,<=0.11.0"], baseline="0.11.0").is_range
    assert not support(["vllm==0.11.0"], baseline="0.11.0").is_range
    assert not support([], baseline="0.11.0").is_range
    assert support([], baseline="0.11.0", declared=">=0.10").is_range
    assert not support(["vllm>=0.8"], baseline="0.11.0", declared="nonsense").is_range
    assert line_length(tmp_path) == 88
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = 120\n")
    assert line_length(tmp_path) == 120
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert line_length(tmp_path) == 100
    gate = choose_gate({"app/utils/__init__.py": b""}, top="app", since="0.12.0", before="0.11.0")
    assert gate.helper_path == "app/utils/vllm_version.py" and gate.import_from == "app.utils.vllm_version"


def test_gated_imports_follow_the_import_block_and_only_named_lines_are_gated():
    before = ('"""Doc."""\nimport os\n\nfrom vllm.utils import A, B\nfrom vllm.v1 import y\n\nfrom pkg.a import b\n\n'
              'x = 1\n\n\ndef f():\n    return g(1, old=None)\n')
    after = before.replace("from vllm.utils import A, B\n",
                           "from vllm.utils.b_utils import B\nfrom vllm.utils.a_utils import A\n").replace(
        "g(1, old=None)", "g(1)")
    gate = VersionGate("0.12.0", "0.11.0", 'at_least("0.12.0")', import_from="pkg.version", name="at_least")
    out = gate_file(before, after, gate, [(4, "import `A` from `vllm.utils.a_utils`")], only=frozenset({4}))
    assert out.problem is None and out.gated == 1
    assert out.source == (
        '"""Doc."""\nimport os\n\nfrom vllm.v1 import y\n\nfrom pkg.a import b\nfrom pkg.version import at_least\n\n'
        'if at_least("0.12.0"):\n    # drift-gate: vllm>=0.12.0: import `A` from `vllm.utils.a_utils`\n'
        '    from vllm.utils.a_utils import A\n    from vllm.utils.b_utils import B\nelse:\n'
        '    # drift-gate: vllm<0.12.0: delete this branch once vllm<0.12.0 is unsupported\n'
        '    from vllm.utils import A, B\n\nx = 1\n\n\ndef f():\n    return g(1)\n')
    assert gate_file(before, after, gate, only=frozenset()).source == after  # nothing to gate: plain edits


def test_files_of_an_installed_consumer_are_gated_and_rechecked_before_writing(tmp_path):
    """What `drift patch` does for a range consumer on a host: only the files it fixes, checked
    here with baseline and target swapped, before and after the edits."""
    from drift.fixes import plan
    from drift.pipeline.recheck import gate_on_files
    from drift.pipeline.run import run_check

    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    report = run_check(consumer_spec=str(consumer), target_spec=str(after), baseline_spec=str(before)).report
    files = {"app/main.py": (consumer / "app" / "main.py").read_bytes()}
    gate = choose_gate(files, top="app", since="0.12.0", before="0.11.0")
    findings = list(report.findings)
    gated, new, why = gate_on_files(files, plan(files, findings),
                                    lambda lines: plan(files, findings, gate=gate, gate_lines=lines),
                                    packages=["app"], baseline_spec=str(before), target_spec=str(after))
    assert why is None and new == []
    text = {c.path: c.after.decode() for c in gated.changes}
    assert set(text) == {"app/main.py", "app/vllm_version.py"}
    assert text["app/main.py"].count("if vllm_version_at_least") == 1 and "return make(1)\n" in text["app/main.py"]
    # every edit plain: the moved import is what the baseline re-check catches
    _, new, why = gate_on_files(files, plan(files, findings), lambda lines: plan(files, findings),
                                packages=["app"], baseline_spec=str(before), target_spec=str(after))
    assert why is None and [(f.rule_id, f.consumer_site.line) for f in new] == [("DRIFT002", 2)]


def _ruff(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *argv], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_patched_files_pass_the_consumers_own_ruff_config(tmp_path):
    """ruff from the test extras: the consumer's lint rules (isort order, line length, pyupgrade)
    and formatter find nothing in the gated patch that they did not find before."""
    ruff_config = '\n[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint]\nselect = ["E", "F", "I", "W", "UP"]\n'
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    with (consumer / "pyproject.toml").open("a") as fh:
        fh.write(ruff_config)
    assert _ruff("check", "--no-cache", ".", cwd=consumer).returncode == 0
    assert _ruff("format", "--no-cache", "--check", ".", cwd=consumer).returncode == 0
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert res.returncode == 0, res.stderr
    assert MARK in (consumer / "app" / "main.py").read_text()
    lint = _ruff("check", "--no-cache", ".", cwd=consumer)
    assert lint.returncode == 0, lint.stdout
    fmt = _ruff("format", "--no-cache", "--check", ".", cwd=consumer)
    assert fmt.returncode == 0, fmt.stdout


def test_the_consumers_own_version_constant_is_used(tmp_path):
    own = {"app/compat.py": """
        import vllm
        from packaging.version import Version

        VLLM_VERSION = Version(vllm.__version__)
        """}
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0", own)
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert res.returncode == 0, res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert main.startswith("from packaging.version import Version\n\nfrom app.compat import VLLM_VERSION\n\n"
                           'if Version(VLLM_VERSION.base_version) >= Version("0.12.0"):\n'), main
    assert not (consumer / "app" / "vllm_version.py").exists()
    assert run_under(before, consumer) == "3 [1]" and run_under(after, consumer) == "3 [1]"
    dev = write_tree(tmp_path / "dev", {**AFTER, "vllm/__init__.py": '__version__ = "0.12.0rc1.dev3+g1a2b"\n'})
    assert run_under(dev, consumer) == "3 [1]"
    again = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert again.returncode == 0 and "nothing to change" in again.stderr


def test_a_line_the_branch_pushes_past_the_line_length_is_wrapped():
    before = "def f(engine):\n    out = engine.build(alpha=1, beta_value=2, gamma=3, old=4)\n    return out\n"
    after = before.replace(", old=4", "")
    gate = VersionGate("0.12.0", "0.11.0", 'at_least("0.12.0")', import_from="pkg.v", name="at_least",
                       line_length=56)
    out = gate_file(before, after, gate, [(2, "drop `old=4`")])
    assert ("        out = engine.build(\n            alpha=1,\n            beta_value=2,\n            gamma=3,\n"
            "        )\n    else:\n") in out.source
    # the original line was already longer than 56: it stays as it was, one indent deeper
    assert "        out = engine.build(alpha=1, beta_value=2, gamma=3, old=4)\n" in out.source
    compile(out.source, "f.py", "exec")


def test_supports_in_drift_toml_makes_a_pinned_consumer_a_range_one(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm==0.11.0")
    (consumer / "drift.toml").write_text('supports = ">=0.10.0"\n')
    res = subprocess.run([sys.executable, "-m", "drift.cli", "check", str(consumer), "-t", str(after), "-b",
                          str(before), "--fix"], capture_output=True, text=True, timeout=600, cwd=consumer)
    assert res.returncode == 0, res.stderr
    assert "supports = '>=0.10.0' in drift.toml admits the baseline 0.11.0" in res.stderr
    assert 'if vllm_version_at_least("0.12.0"):' in (consumer / "app" / "main.py").read_text()
    assert run_under(before, consumer) == "3 [1]" and run_under(after, consumer) == "3 [1]"
    (consumer / "drift.toml").write_text('supports = 3\n')
    bad = subprocess.run([sys.executable, "-m", "drift.cli", "check", str(consumer), "-t", str(after), "-b",
                          str(before), "--fix"], capture_output=True, text=True, timeout=600, cwd=consumer)
    assert bad.returncode == 2 and bad.stderr.startswith("drift: error:") and "supports" in bad.stderr
    assert "Traceback" not in bad.stderr
    (consumer / "drift.toml").write_text('supports = "newest"\n')
    bad = subprocess.run([sys.executable, "-m", "drift.cli", "check", str(consumer), "-t", str(after), "-b",
                          str(before), "--fix"], capture_output=True, text=True, timeout=600, cwd=consumer)
    assert bad.returncode == 2 and "drift: error: supports = 'newest' in drift.toml is not a version range" in bad.stderr
