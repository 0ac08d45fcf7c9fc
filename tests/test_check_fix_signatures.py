"""`drift check DIR --fix` with the signature fixes, through the real CLI: a scheduler subclass
whose super().__init__ call shifted and whose overrides lack the parameters the target now
passes is fixed in place (safe fixes only), re-checked with fewer breaking findings and nothing
new, runs on the target, and a second run changes nothing."""

from __future__ import annotations

from tests.rule_cases import raised_by, write_tree
from tests.test_check_fix import drift
from tests.test_rules_signature_fixes import AFTER, BEFORE, CONSUMER

PROBE = ("(lambda s: (s.registry, s.log_stats, s.block_size, step(s)))"
         "(build(__import__('app.sched').sched.BalanceScheduler))")


def test_check_fix_writes_the_signature_fixes(tmp_path):
    before, after = write_tree(tmp_path / "before", BEFORE), write_tree(tmp_path / "after", AFTER)
    consumer = write_tree(tmp_path / "consumer", {"app/__init__.py": "", **CONSUMER})
    args = ["-t", str(after), "-b", str(before), "--package", "gizmo"]
    assert raised_by([consumer, after], "gizmo.sched", PROBE) is not None
    res = drift("check", str(consumer), *args, "--fix")
    # LoggingScheduler.schedule ignores `mask`, which goes last: safe too, nothing left breaking
    assert res.returncode == 0, res.stderr
    assert "wrote 1 file(s): app/sched.py; breaking 2 -> 0" in res.stderr
    text = (consumer / "app" / "sched.py").read_text()
    # the consumer's line length (88 by default) wraps the grown call one argument per line
    assert ("        super().__init__(\n            config,\n            block_size,\n            registry=registry,\n"
            "            log_stats=log_stats,\n            hash_block_size=hash_block_size,\n        )\n") in text
    assert "return super().schedule(budget, now, mask=mask)" in text
    assert not list(consumer.rglob("__pycache__"))
    assert raised_by([consumer, after], "gizmo.sched", PROBE) is None
    again = drift("check", str(consumer), *args, "--fix")
    assert "nothing to change" in again.stderr and (consumer / "app" / "sched.py").read_text() == text
    assert "def schedule(self, budget, now=0.0, mask=None):\n        return (\"logged\", budget)" in text


def _as_vllm(files: dict[str, str], version: str) -> dict[str, str]:
    out = {k.replace("gizmo/", "vllm/"): v for k, v in files.items()}
    out["vllm/__init__.py"] = f'__version__ = "{version}"\n'
    out[f"vllm-{version}.dist-info/METADATA"] = f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n"
    return out


def test_a_range_consumer_gets_the_forward_gated_and_runs_on_both_releases(tmp_path):
    before = write_tree(tmp_path / "before", _as_vllm(BEFORE, "0.11.0"))
    after = write_tree(tmp_path / "after", _as_vllm(AFTER, "0.12.0"))
    consumer = write_tree(tmp_path / "consumer", {
        "pyproject.toml": '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["vllm>=0.11.0"]\n',
        "app/__init__.py": "", "app/sched.py": CONSUMER["app/sched.py"].replace("gizmo", "vllm")})
    probe = PROBE
    assert raised_by([consumer, after], "vllm.sched", probe, packages=("vllm", "app")) is not None
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert res.returncode == 0, res.stderr
    assert "re-checked against the baseline 0.11.0: nothing new" in res.stderr
    text = (consumer / "app" / "sched.py").read_text()
    assert "# drift-gate: vllm>=0.12.0" in text
    for release in (before, after):
        assert raised_by([consumer, release], "vllm.sched", probe, packages=("vllm", "app")) is None, release
    again = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert "nothing to change" in again.stderr and (consumer / "app" / "sched.py").read_text() == text


def test_a_def_under_a_version_branch_carries_its_guard(tmp_path):
    # drift's gate wraps a whole def (a class body's method) in the branch: calls inside it run
    # only on the versions the branch admits, as calls in a gated statement do
    from drift.consumer.usage import collect_usage
    tree = write_tree(tmp_path / "c", {"app/__init__.py": "", "app/sched.py": """
        import vllm
        from vllm.sched import Scheduler


        class Mine(Scheduler):
            if vllm.__version__ >= "0.12":
                def __init__(self, config):
                    super().__init__(config, 16, hash_block_size=32)
            else:
                def __init__(self, config):
                    super().__init__(config, 16)
        """})
    (mod,) = [m for m in collect_usage(tree, ["app"], ["vllm"]) if m["path"] == "app/sched.py"]
    guards = {c["line"]: c.get("guards") for c in mod["calls"] if c["callee_src"] == "super().__init__"}
    assert [g[0].get("negated", False) for _, g in sorted(guards.items())] == [False, True]
