"""A second `drift check` of unchanged inputs reads the rules' answer back (drift/pipeline/check_cache.py),
and any changed input runs the rules again; through the real CLI, on synthetic trees, in a
private DRIFT_CACHE.

A synthetic library drops `size=` from `make`; the consumer calls `make(1, size=2)`.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

from tests.rule_cases import src, write_tree

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/core.py": """
        def make(a, size=1):
            return [a] * size
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/core.py": """
        def make(a):
            return [a]
        """,
}
CONSUMER = {
    "app/__init__.py": "",
    "app/main.py": """
        from gizmo.core import make


        def build():
            return make(1, size=2)
        """,
}
USER_RULES = '''
    from drift.findings import Finding, RuleKind, Severity
    from drift.analysis.rules.base import rule


    def every_make(ctx):
        """Every call to gizmo.core.make is reported (a house policy)."""
        for rc in ctx.calls:
            if rc.target is not None and rc.target.dotted == "gizmo.core.make":
                yield Finding(rule_id="USER001", kind=RuleKind.SEMANTIC, severity=Severity.BREAKING,
                              title="`make` is banned here", consumer_site=rc.site, symbol=rc.dotted)


    RULES = [rule("USER001", RuleKind.SEMANTIC)(every_make)]
    '''


def _setup(tmp_path: Path) -> tuple[list[str], dict[str, str], Path]:
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    consumer = write_tree(tmp_path / "consumer", CONSUMER)
    env = {**os.environ, "DRIFT_CACHE": str(tmp_path / "cache")}
    args = ["check", str(consumer), "-t", str(after), "-b", str(before), "--package", "gizmo", "--format", "json"]
    return args, env, tmp_path / "cache" / "checked"


def drift(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "drift.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return done


def titles(out: str) -> list[str]:
    return [f["title"] for f in json.loads(out)["findings"]]


def answers(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.marshal")) if folder.is_dir() else []


def test_a_second_check_reads_the_answer_back_and_reports_the_same_bytes(tmp_path):
    args, env, folder = _setup(tmp_path)
    first = drift(args, env)
    assert any("size" in t for t in titles(first.stdout)), first.stdout
    [stored] = answers(folder)
    second = drift(args, env)
    assert second.stdout == first.stdout
    assert second.returncode == first.returncode == 1
    assert answers(folder) == [stored]

    # the answer really is what the second run reports: an answer edited on disk shows up
    data = marshal.loads(stored.read_bytes())
    data["findings"][0]["title"] = "read from the stored answer"
    stored.write_bytes(marshal.dumps(data))
    assert "read from the stored answer" in titles(drift(args, env).stdout)


def test_a_changed_consumer_file_runs_the_rules_again(tmp_path):
    args, env, folder = _setup(tmp_path)
    assert titles(drift(args, env).stdout)
    main = tmp_path / "consumer" / "app" / "main.py"
    main.write_text(src(CONSUMER["app/main.py"]).replace("make(1, size=2)", "make(1)  # size dropped  "))
    assert titles(drift(args, env).stdout) == []
    assert len(answers(folder)) == 2


def test_a_changed_target_runs_the_rules_again(tmp_path):
    args, env, folder = _setup(tmp_path)
    assert titles(drift(args, env).stdout)
    (tmp_path / "after" / "gizmo" / "core.py").write_text(src(BEFORE["gizmo/core.py"]))
    assert titles(drift(args, env).stdout) == []


def test_an_unreadable_answer_runs_the_rules_and_reports_the_same(tmp_path):
    args, env, folder = _setup(tmp_path)
    first = drift(args, env)
    [stored] = answers(folder)
    stored.write_bytes(b"\x00not marshal")
    assert drift(args, env).stdout == first.stdout
    assert marshal.loads(stored.read_bytes())["findings"]  # written again, whole


def test_a_rules_file_always_runs_its_rules(tmp_path):
    args, env, folder = _setup(tmp_path)
    rules = tmp_path / "house_rules.py"
    rules.write_text(src(USER_RULES))
    with_rules = args + ["--rules", str(rules)]
    assert "`make` is banned here" in titles(drift(with_rules, env).stdout)
    assert answers(folder) == []
    rules.write_text(src(USER_RULES).replace("banned here", "banned from now on"))
    assert "`make` is banned from now on" in titles(drift(with_rules, env).stdout)
