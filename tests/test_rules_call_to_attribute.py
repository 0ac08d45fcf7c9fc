"""DRIFT060's call_to_attribute over synthetic before/after packages: the target replaced a
zero-argument method that built a value per call with an attribute built once, and rewrote its
own call (`self.empty_list()` -> `self.empty`); the consumer's call of the removed method gets
the same rewrite (unsafe: the object is now shared), the patched consumer runs on the target, and
a second plan changes nothing. Without the target's own rewrite the finding stays manual."""

from __future__ import annotations

from drift.findings import UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/kv.py": """
    class Blocks:
        def __init__(self, groups):
            self.groups = groups


    class Manager:
        def __init__(self, n):
            self.n = n

        def empty_list(self) -> Blocks:
            return Blocks(tuple(() for _ in range(self.n)))

        def lookup(self, hit):
            return (hit, 1) if hit else (self.empty_list(), 0)
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/kv.py": """
    class Blocks:
        def __init__(self, groups):
            self.groups = groups


    class Manager:
        def __init__(self, n):
            self.n = n
            self.empty = Blocks(tuple(() for _ in range(n)))

        def lookup(self, hit):
            return (hit, 1) if hit else (self.empty, 0)
    """}
CONSUMER = {"app/__init__.py": "", "app/sched.py": """
    from gizmo.kv import Manager


    class Sched:
        def __init__(self):
            self.manager = Manager(2)

        def step(self):
            blocks = self.manager.empty_list()
            return len(blocks.groups)
    """}


def test_the_call_becomes_the_attribute_the_target_reads_itself(tmp_path):
    findings = findings_of(tmp_path, Case("call-to-attr", BEFORE, AFTER, CONSUMER))
    f = only(findings, "DRIFT060")
    assert f.fix.codemod == "call_to_attribute" and f.fix.tier == UNSAFE
    assert f.fix.args == {"method": "empty_list", "attr": "empty"}
    assert "`Manager.lookup`" in f.fix.description
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("after"), "app.sched", "Sched().step()").startswith("AttributeError")
    rel = "app/sched.py"
    source = (tmp_path / "consumer" / rel).read_bytes()
    assert plan({rel: source}, list(findings)).empty
    patched = plan({rel: source}, list(findings), unsafe_fixes=True).changes[0].after.decode()
    assert "blocks = self.manager.empty\n" in patched
    (tmp_path / "consumer" / rel).write_text(patched)
    assert raised_by(roots("after"), "app.sched", "None if Sched().step() == 2 else 1 / 0") is None
    again = findings_of(tmp_path / "again", Case("call-to-attr-again", BEFORE, AFTER, {"app/__init__.py": "", rel: patched}))
    assert again == ()
    assert plan({rel: patched.encode()}, list(findings), unsafe_fixes=True).empty


def test_without_the_targets_own_rewrite_it_stays_manual(tmp_path):
    after = {**AFTER, "gizmo/kv.py": AFTER["gizmo/kv.py"].replace("(self.empty, 0)", "(None, 0)")}
    f = only(findings_of(tmp_path, Case("call-to-attr-manual", BEFORE, after, CONSUMER)), "DRIFT060")
    assert f.fix.codemod is None
