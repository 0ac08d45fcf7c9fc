"""Functions the consumer installs onto a target class (`Cls.m = fn`, `Cls.__init__ = fn`) run
with `self` an instance of that class, on both sides: every attribute and call rule judges their
bodies as it judges the class's own methods. These cases hold the ways the class is reached."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

# The target keeps an old class name as a module-level alias of the new class (a backward
# compatibility shim); the consumer patches the class through the old name.
ALIAS_BEFORE = {
    "gizmo/topo.py": """
        class Topology:
            def __init__(self, n):
                self.n = n

            @property
            def split(self):
                return self.n > 1
        """,
    "gizmo/pull.py": """
        from gizmo.topo import Topology

        class PullWorker:
            def __init__(self, n):
                self.topo = Topology(n)

            def to_kernel(self, ids):
                return list(ids)
        """,
    "gizmo/worker.py": """
        from gizmo.pull import PullWorker

        Worker = PullWorker
        """,
}
ALIAS_AFTER = {
    "gizmo/topo.py": """
        class Topology:
            def __init__(self, n):
                self.n = n
        """,
    "gizmo/pull.py": """
        from gizmo.topo import Topology

        class PullWorker:
            def __init__(self, n):
                self.topo = Topology(n)

            def to_kernel(self, ids, ratio):
                return [i * ratio for i in ids]
        """,
    "gizmo/worker.py": ALIAS_BEFORE["gizmo/worker.py"],
}
ALIAS_CONSUMER = {"app/patch.py": """
    from gizmo.worker import Worker


    def register(self):
        return self.topo.split


    def post(self, ids):
        return self.to_kernel(ids)


    def fine(self):
        return self.topo.n


    Worker.register = register
    Worker.post = post
    Worker.fine = fine
    """}


def test_installed_methods_through_a_target_alias_are_judged(tmp_path):
    patch = ALIAS_CONSUMER["app/patch.py"]
    findings = findings_of(tmp_path, Case("alias", ALIAS_BEFORE, ALIAS_AFTER, ALIAS_CONSUMER))
    assert_findings(findings, [
        ("DRIFT060", line_of(patch, "return self.topo.split")),
        ("DRIFT011", line_of(patch, "return self.to_kernel(ids)")),
    ])


def test_python_fails_where_the_findings_say(tmp_path):
    after = write_tree(tmp_path / "after", ALIAS_AFTER)
    app = write_tree(tmp_path / "app", ALIAS_CONSUMER)
    assert raised_by([after, app], "app.patch", "Worker(2).register()") == \
        "AttributeError: 'Topology' object has no attribute 'split'"
    assert raised_by([after, app], "app.patch", "Worker(2).post([1])") == \
        "TypeError: PullWorker.to_kernel() missing 1 required positional argument: 'ratio'"
    assert raised_by([after, app], "app.patch", "Worker(2).fine()") is None
