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
    # LoggingScheduler.schedule ignores `mask`: its add_parameters is unsafe, still breaking
    assert res.returncode == 1, res.stderr
    assert "not applied (unsafe, --unsafe-fixes applies it): app/sched.py:14 add `mask=None` after `now`" in res.stderr
    assert "wrote 1 file(s): app/sched.py; breaking 2 -> 1" in res.stderr
    text = (consumer / "app" / "sched.py").read_text()
    assert ("super().__init__(config, block_size, registry=registry, log_stats=log_stats, "
            "hash_block_size=hash_block_size)") in text
    assert "return super().schedule(budget, now, mask=mask)" in text
    assert not list(consumer.rglob("__pycache__"))
    assert raised_by([consumer, after], "gizmo.sched", PROBE) is None
    again = drift("check", str(consumer), *args, "--fix")
    assert "nothing to change" in again.stderr and (consumer / "app" / "sched.py").read_text() == text
    res = drift("check", str(consumer), *args, "--fix", "--unsafe-fixes")
    assert res.returncode == 0, res.stderr
    assert "def schedule(self, budget, now=0.0, mask=None):\n        return (\"logged\", budget)" in \
        (consumer / "app" / "sched.py").read_text()
