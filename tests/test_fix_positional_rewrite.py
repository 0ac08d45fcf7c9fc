"""A positional call copied from vLLM's own gets the rewrite the target made to that very call
(own_rewrites.positional_rewrite, facts +pc), and a removed method's call the read the target's
own function switched to through the same holder (own_held_switch, +pc2), through the real CLI.

A synthetic `vllm` in two releases: 0.13.0's `Cache.common(request, n)` became
`common(request_id)`, and its own `Scheduler.schedule` now calls it with `(req.request_id)`
where 0.11.0's called `(req, len(self.running))`; 0.13.0's `Runner.dummy(cfg, sched)` gained a
required `sampled`, which its own `Runner.dummy_run` builds as `sampled = list(it.repeat(1,
num_reqs))` and passes; 0.13.0's `Runner.fresh` reads `self.cache.empty` where 0.11.0's called
`self.cache.create_empty()`. A consumer copying those calls gets the target's arguments by default
(safe); a call passing other arguments, or one whose function holds no `num_reqs`, is left as it
is, and a second run changes nothing.
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
            "vllm/core.py": body}


BEFORE = _vllm("0.11.0", """
    import itertools as it


    class Cache:
        def common(self, request, n):
            return ("old", request["id"], n)

        def create_empty(self):
            return []

        def get(self):
            return self.create_empty()


    class Runner:
        def __init__(self):
            self.cfg = "cfg"
            self.cache = Cache()
            self.running = []

        def dummy(self, cfg, sched, remove=True):
            return ("old", cfg, sched)

        def dummy_run(self, num_reqs):
            sched = num_reqs * 2
            return self.dummy(self.cfg, sched, True)

        def schedule(self):
            req = self.running[0]
            return self.cache.common(req, len(self.running))

        def fresh(self):
            return self.cache.create_empty()
    """)
AFTER = _vllm("0.13.0", """
    import itertools as it


    class Cache:
        def __init__(self):
            self.empty = []

        def common(self, request_id):
            return ("new", request_id)

        def get(self):
            return self.empty


    class Runner:
        def __init__(self):
            self.cfg = "cfg"
            self.cache = Cache()
            self.running = []

        def dummy(self, cfg, sched, sampled, activate=True, remove=True):
            return ("new", cfg, sched, sampled)

        def dummy_run(self, num_reqs, activate=True, remove=True):
            sched = num_reqs * 2
            sampled = list(it.repeat(1, num_reqs))
            return self.dummy(self.cfg, sched, sampled, activate, remove)

        def schedule(self):
            req = self.running[0]
            return self.cache.common(req.request_id)

        def fresh(self):
            return self.cache.empty
    """)
MAIN = """
    import itertools as it

    from vllm.core import Cache, Runner


    class Plugin(Runner):
        def __init__(self):
            super().__init__()
            self.cache = Cache()
            self.spare = Cache()
            self.running = [Req()]

        def fresh_blocks(self):
            return self.cache.create_empty()

        def spare_blocks(self):
            return self.spare.create_empty()

        def schedule(self):
            req = self.running[0]
            return self.cache.common(
                req, len(self.running))

        def schedule_other(self):
            req = self.running[0]
            return self.cache.common(req, 3)

        def warm(self, num_reqs):
            sched = num_reqs * 2
            return self.dummy(self.cfg,
                              sched)

        def warm_other(self, n):
            sched = n * 2
            return self.dummy(self.cfg, sched)


    class Req(dict):
        def __init__(self):
            super().__init__(id="r1")
            self.request_id = "r1"


    def run():
        p = Plugin()
        return p.schedule(), p.warm(2), p.fresh_blocks()
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


def test_the_targets_own_positional_rewrite_is_offered_safe(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm==0.11.0")
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--format", "json")
    assert res.returncode == 1, res.stderr
    found = {(f["rule_id"], f["consumer_site"]["line"]): f["fix"] for f in json.loads(res.stdout)["findings"]}
    common = found[("DRIFT012", 21)]
    assert common["codemod"] == "rewrite_arguments" and common["tier"] == "safe"
    assert common["args"]["before"] == ["req", "len(self.running)"] and common["args"]["after"] == ["req.request_id"]
    assert "as the target's own `Runner.schedule` rewrote this very call" in common["description"]
    dummy = found[("DRIFT011", 30)]
    assert dummy["codemod"] == "rewrite_arguments" and dummy["tier"] == "safe"
    # the target's local is written as what built it, by keyword (the baseline's third slot is
    # `remove`); the optional arguments after it are not passed
    assert dummy["args"]["after"] == ["self.cfg", "sched"]
    assert dummy["args"]["add"] == {"sampled": "list(it.repeat(1, num_reqs))"}
    assert dummy["args"]["names"] == {"it": "itertools", "num_reqs": ""}
    assert "`sampled` there is `list(it.repeat(1, num_reqs))`" in dummy["description"]
    # a removed method the target's own Runner.fresh stopped calling through `self.cache`, reading
    # `self.cache.empty` instead: safe through that holder, unsafe through another
    fresh, spare = found[("DRIFT060", 14)], found[("DRIFT060", 17)]
    assert fresh["codemod"] == spare["codemod"] == "call_to_attribute" and fresh["args"]["attr"] == "empty"
    assert fresh["tier"] == "safe" and "as the target's own `Runner.fresh` rewrote this very call" in fresh["description"]
    assert spare["tier"] == "unsafe"


def test_a_pinned_consumer_is_patched_where_the_call_is_the_baselines_and_a_second_run_is_a_no_op(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm==0.11.0")
    assert "TypeError" in run_under(after, consumer).stderr
    args = ["check", str(consumer), "-t", str(after), "-b", str(before), "--fix"]
    res = drift(*args)
    assert "Traceback" not in res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert "return self.cache.common(\n            req.request_id)\n" in main
    assert "return self.dummy(self.cfg,\n                          sched,\n                          sampled=list(it.repeat(1, num_reqs)))\n" in main
    assert "self.cache.common(req, 3)" in main and "return self.dummy(self.cfg, sched)\n" in main  # not the baseline's
    assert "return self.cache.empty\n" in main and "return self.spare.create_empty()\n" in main  # unsafe: held
    assert run_under(after, consumer).stdout.strip() == "(('new', 'r1'), ('new', 'cfg', 4, [1, 1]), [])"
    again = drift(*args)
    assert (consumer / "app" / "main.py").read_text() == main and "Traceback" not in again.stderr


def test_a_range_consumer_gets_it_in_a_version_branch(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert "re-checked against the baseline 0.11.0: nothing new" in res.stderr, res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert f"# {MARK} vllm>=0.13.0:" in main and "req.request_id)" in main and "req, len(self.running))" in main
    assert run_under(before, consumer).stdout.strip() == "(('old', 'r1', 1), ('old', 'cfg', 4), [])"
    assert run_under(after, consumer).stdout.strip() == "(('new', 'r1'), ('new', 'cfg', 4, [1, 1]), [])"
