"""A new required keyword passed as the target's own rewrite of the consumer's very call passes it
(own_additions.py), through the real CLI.

A synthetic `vllm` in two releases: 0.12.0's `Cache.__init__` gains a required `hash_size`; the
baseline's own `Engine.__init__` built `Cache(config=config, max_len=self.max_len)`, the target's
same function adds `hash_size=self.size`, a value read off the engine itself, which no
translation of the call's own arguments yields. A consumer class that copied the baseline's call
verbatim and stores `self.size` itself gets the same keyword by default (safe); a call that is not
the baseline's, or a class that keeps no `self.size`, stays manual.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.rule_cases import write_tree


def _vllm(version: str, body: str) -> dict[str, str]:
    return {"vllm/__init__.py": f'__version__ = "{version}"\n',
            f"vllm-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n",
            "vllm/core.py": body}


BEFORE = _vllm("0.11.0", """
    class Cache:
        def __init__(self, config, max_len, enable=True):
            self.hash_size = 1


    class Engine:
        def __init__(self, config):
            self.max_len = config["max_len"]
            self.size = config["size"]
            self.cache = Cache(config=config, max_len=self.max_len)
    """)
AFTER = _vllm("0.12.0", """
    class Cache:
        def __init__(self, config, max_len, hash_size, enable=True):
            self.hash_size = hash_size


    class Engine:
        def __init__(self, config):
            self.max_len = config["max_len"]
            self.size = config["size"]
            self.cache = Cache(config=config, max_len=self.max_len, hash_size=self.size)
    """)
MAIN = """
    from vllm.core import Cache


    class Plugin:
        def __init__(self, config):
            self.max_len = config["max_len"]
            self.size = config["size"] * 2
            self.cache = Cache(config=config, max_len=self.max_len)

        def other(self, config):
            return Cache(config=config, max_len=4)


    class Bare:
        def __init__(self, config):
            self.max_len = config["max_len"]
            self.cache = Cache(config=config, max_len=self.max_len)


    def run():
        return Plugin({"max_len": 8, "size": 4}).cache.hash_size
    """


def drift(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "drift.cli", *argv], capture_output=True, text=True, timeout=600)


def trees(tmp_path: Path) -> tuple[Path, Path, Path]:
    consumer = {"pyproject.toml": '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["vllm==0.11.0"]\n',
                "app/__init__.py": "", "app/main.py": MAIN}
    return (write_tree(tmp_path / "before", BEFORE), write_tree(tmp_path / "after", AFTER),
            write_tree(tmp_path / "consumer", consumer))


def run_under(vllm_tree: Path, consumer: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{vllm_tree}{os.pathsep}{consumer}", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", "from app.main import run; print(run())"],
                          capture_output=True, text=True, env=env, timeout=60)


def required(consumer: Path, before: Path, after: Path) -> dict[int, dict]:
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--format", "json")
    assert res.returncode == 1, res.stderr
    return {f["consumer_site"]["line"]: f["fix"] for f in json.loads(res.stdout)["findings"]
            if f["rule_id"] == "DRIFT011"}


def test_the_targets_own_value_is_offered_safe_only_for_the_copied_call_of_a_class_keeping_it(tmp_path):
    before, after, consumer = trees(tmp_path)
    found = required(consumer, before, after)
    copied = found[8]
    assert copied["codemod"] == "add_keyword" and copied["tier"] == "safe"
    assert copied["args"]["value"] == "self.size" and copied["args"]["keyword"] == "hash_size"
    assert "as the target's own `Engine.__init__` rewrote this very call" in copied["description"]
    assert not found[11].get("codemod")  # not the baseline's call: the target never wrote a value for it
    assert not found[17].get("codemod")  # the baseline's call, but this class keeps no `self.size`


def test_the_edit_runs_on_the_target_and_a_second_run_is_a_no_op(tmp_path):
    before, after, consumer = trees(tmp_path)
    assert "missing 1 required positional argument: 'hash_size'" in run_under(after, consumer).stderr
    args = ["check", str(consumer), "-t", str(after), "-b", str(before), "--fix"]
    res = drift(*args)
    assert "Traceback" not in res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert "self.cache = Cache(config=config, max_len=self.max_len, hash_size=self.size)" in main
    assert "return Cache(config=config, max_len=4)" in main  # manual: untouched
    assert run_under(after, consumer).stdout.strip() == "8"
    again = drift(*args)
    assert (consumer / "app" / "main.py").read_text() == main and "Traceback" not in again.stderr
