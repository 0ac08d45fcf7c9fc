"""A missing attribute is reported where it is read, not at every later use of a local (or a
module-level alias) whose value came from that read: Python raises at the read only."""

from __future__ import annotations

from tests.rule_cases import assert_findings, findings_of, line_of, raised_by, Case, write_tree

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/core.py": """
        class Thing:
            def __init__(self):
                self.size = 1

            def foo(self):
                return 1

            def bar(self):
                return 2

        class Runner:
            def __init__(self):
                self.batch = Thing()

            def gone(self) -> Thing:
                return Thing()

            def present(self) -> Thing:
                return Thing()
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/core.py": """
        class Thing:
            def __init__(self):
                self.size = 1

            def foo(self):
                return 1

        class Runner:
            def __init__(self):
                self.batch = Thing()

            def present(self) -> Thing:
                return Thing()
        """,
}
CONSUMER = """
    from gizmo.core import Runner

    _orig_gone = Runner.gone


    class Mine(Runner):
        def go(self):
            x = self.gone()
            x.foo()
            if x.size:
                return x.foo() + 1
            return x

        def walrus(self):
            if (y := self.gone()) is not None:
                y.foo()

        def kept(self):
            z = self.present()
            z.foo()
            return z.bar()

        def branches(self, flag):
            if flag:
                w = self.gone()
            else:
                w = self.present()
            return w.foo()


    def call_saved(r):
        return _orig_gone(r).foo()
    """


def test_missing_method_reported_at_the_read_not_at_uses_of_its_result(tmp_path):
    findings = findings_of(tmp_path, Case("derived", BEFORE, AFTER, {"app/main.py": CONSUMER}))
    assert_findings(findings, [
        ("DRIFT060", line_of(CONSUMER, "x = self.gone()")),
        ("DRIFT060", line_of(CONSUMER, "y := self.gone()")),
        ("DRIFT060", line_of(CONSUMER, "w = self.gone()")),
        ("DRIFT060", line_of(CONSUMER, "_orig_gone = Runner.gone")),
        # a step the use itself reads is still reported there: `bar` left Thing
        ("DRIFT060", line_of(CONSUMER, "return z.bar()")),
    ])


def test_python_raises_at_the_read(tmp_path):
    """What the rule assumes: the AttributeError comes from the line that names the attribute."""
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", {"app/main2.py": CONSUMER.replace("_orig_gone = Runner.gone", "")})
    got = raised_by([after, app], "app.main2", "Mine().go()")
    assert got == "AttributeError: 'Mine' object has no attribute 'gone'"
