"""A removed keyword dropped as the target rewrote its own identical call (own_rewrites.py),
through the real CLI.

A synthetic `vllm` in two releases: 0.12.0's `Model.load` loses `padding=` and `modules=` and
gains an optional `vocab_size=`; the baseline's own `Manager.add` called it with
`padding=self.vocab + self.extra, modules=self.modules`, the target's `Manager.add` calls it with
`vocab_size=self.vocab`. A consumer whose call passes those very expressions gets the same rewrite
by default (safe): the padding keyword becomes `vocab_size=self.vocab` in its place, `modules=`
goes. The same holds for a sibling method that lost `padding=` too (`Model.from_tensors`), which
the target's own code never calls with those expressions. A call passing another value keeps the plain drop, unsafe; a callee whose rewrite needs a new required
keyword gets no drop at all (it would still raise): a manual fix naming that keyword.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from drift.fixes.gate import MARK
from tests.rule_cases import write_tree


def _vllm(version: str, body: str) -> dict[str, str]:
    return {"vllm/__init__.py": f'__version__ = "{version}"\n',
            f"vllm-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n",
            "vllm/lora/__init__.py": body}


BEFORE = _vllm("0.11.0", """
    class Model:
        @classmethod
        def load(cls, path, *, padding=None, modules=None):
            return ("old", path, padding, modules)

        @classmethod
        def from_tensors(cls, t, *, padding=None):
            return ("old", t, padding)

        @classmethod
        def scale(cls, x, *, factor=None):
            return x if factor is None else x * factor


    def build(a, *, tag=None):
        return (a, tag)


    class Manager:
        def __init__(self):
            self.vocab, self.extra, self.modules, self.cls = 10, 2, ["m"], Model

        def add(self, path):
            return self.cls.load(path, padding=self.vocab + self.extra, modules=self.modules)

        def make(self, a):
            return build(a, tag=self.modules)

        def grow(self, x):
            return self.cls.scale(x, factor=self.vocab)
    """)
AFTER = _vllm("0.12.0", """
    class Model:
        @classmethod
        def load(cls, path, *, vocab_size=None):
            return ("new", path, vocab_size)

        @classmethod
        def from_tensors(cls, t, *, vocab_size=None):
            return ("new", t, vocab_size)

        @classmethod
        def scale(cls, x, *, params=None):
            return x


    def build(a, *, kind):
        return (a, kind)


    class Manager:
        def __init__(self):
            self.vocab, self.modules, self.cls = 10, ["m"], Model

        def add(self, path):
            return self.cls.load(path, vocab_size=self.vocab)

        def make(self, a):
            return build(a, kind=a)

        def grow(self, x):
            return self.cls.scale(x, params=self.config.params)
    """)
MAIN = """
    from vllm.lora import Model, build


    class Plugin:
        def __init__(self):
            self.vocab, self.extra, self.modules = 10, 2, ["m"]

        def add(self, path):
            return Model.load(
                path,
                padding=self.vocab + self.extra,
                modules=self.modules,
            )

        def other(self, path):
            return Model.load(path, padding=self.vocab * 2)

        def make(self, a):
            return build(a, tag=self.modules)

        def tensors(self, t):
            return Model.from_tensors(t, padding=self.vocab + self.extra)

        def grow(self, x):
            return Model.scale(x, factor=self.vocab)


    def run():
        p = Plugin()
        return p.add("x")
    """


def drift(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "drift.cli", *argv], capture_output=True, text=True, timeout=600)


def trees(tmp_path: Path, requires: str) -> tuple[Path, Path, Path]:
    consumer = {"pyproject.toml": f'[project]\nname = "app"\nversion = "1.0"\ndependencies = ["{requires}"]\n',
                "app/__init__.py": "", "app/main.py": MAIN}
    return (write_tree(tmp_path / "before", BEFORE), write_tree(tmp_path / "after", AFTER),
            write_tree(tmp_path / "consumer", consumer))


def run_under(vllm_tree: Path, consumer: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{vllm_tree}{os.pathsep}{consumer}", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", "from app.main import run; print(run())"],
                          capture_output=True, text=True, env=env, timeout=60)


def fixes(consumer: Path, before: Path, after: Path) -> list[dict]:
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--format", "json")
    assert res.returncode == 1, res.stderr
    return [f for f in json.loads(res.stdout)["findings"] if f["rule_id"] == "DRIFT010"]


def test_the_targets_own_rewrite_is_offered_safe_only_for_the_identical_call(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm==0.11.0")
    found = {(f["consumer_site"]["line"], f["title"].split("`")[3]): f["fix"] for f in fixes(consumer, before, after)}
    padding, modules = found[(11, "padding=")], found[(12, "modules=")]
    assert padding["tier"] == "safe" and padding["args"]["add"] == {"vocab_size": "self.vocab"}
    assert "as the target's own `Manager.add` rewrote this very call" in padding["description"]
    assert modules["tier"] == "safe" and padding["args"]["migration"].endswith("vllm/lora/__init__.py:24")
    assert found[(16, "padding=")]["tier"] == "unsafe"  # another value: the target never made that call
    # the target's call passes a new required `kind=`: dropping `tag=` alone would still raise, so no
    # drop is offered in any tier; the fix is manual and names the missing parameter (round 19)
    tag = found[(19, "tag=")]
    assert tag["tier"] == "manual" and tag["codemod"] is None and "`kind`" in tag["description"]
    sibling = found[(22, "padding=")]  # vLLM never called from_tensors so, but rewrote load's identical call
    assert sibling["tier"] == "safe" and sibling["args"]["add"] == {"vocab_size": "self.vocab"}
    assert "its identical call of `load` (a sibling that lost `padding` too)" in sibling["description"]
    # the target's rewrite reads `self.config`, which the consumer's call never read: not written, unsafe
    assert found[(25, "factor=")]["tier"] == "unsafe" and "add" not in found[(25, "factor=")]["args"]


def test_a_pinned_consumer_gets_the_rewrite_by_default_and_a_second_run_is_a_no_op(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm==0.11.0")
    assert "unexpected keyword argument 'padding'" in run_under(after, consumer).stderr
    args = ["check", str(consumer), "-t", str(after), "-b", str(before), "--fix"]
    res = drift(*args)
    assert "Traceback" not in res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert "return Model.load(\n            path,\n            vocab_size=self.vocab,\n        )\n" in main
    assert "Model.load(path, padding=self.vocab * 2)" in main and "build(a, tag=self.modules)" in main  # held
    assert run_under(after, consumer).stdout.strip() == "('new', 'x', 10)"
    assert "return Model.from_tensors(t, vocab_size=self.vocab)\n" in main
    again = drift(*args)
    assert (consumer / "app" / "main.py").read_text() == main and "Traceback" not in again.stderr


def test_a_range_consumer_gets_it_in_a_version_branch_that_keeps_the_baseline_call(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert "re-checked against the baseline 0.11.0: nothing new" in res.stderr, res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert f"# {MARK} vllm>=0.12.0:" in main and "vocab_size=self.vocab," in main
    assert "padding=self.vocab + self.extra," in main and "modules=self.modules," in main  # the old arm
    assert run_under(before, consumer).stdout.strip() == "('old', 'x', 12, ['m'])"
    assert run_under(after, consumer).stdout.strip() == "('new', 'x', 10)"
