"""A target name the consumer assigns its own function over (`gizmo.ops.start = my_start`):
the consumer's later calls through that name (`from gizmo.ops import start; start(...)`,
`gizmo.ops.start(...)`) reach its own function, so the target's new signature does not judge
them; calls of names it did not rebind, and of the original it saved before, still are."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/ops.py": """
    class Engine:
        def __init__(self, name, size=0):
            self.name = name

    def start(name, engine=0):
        return name

    def stop(name, engine=0):
        return name
    """}
AFTER = {"gizmo/ops.py": """
    class Engine:
        def __init__(self, name, device=None, size=0):
            self.name = name

    def start(name):
        return name

    def stop(name):
        return name
    """}
CONSUMER = {
    "app/__init__.py": "from app import patch  # noqa: F401\n",
    "app/impl.py": """
        def my_start(name, engine=0):
            return name + str(engine)
        """,
    "app/patch.py": """
        import gizmo.ops
        from app.impl import my_start

        _saved = gizmo.ops.start
        gizmo.ops.start = my_start


        class MyEngine(gizmo.ops.Engine):
            def __init__(self, name, size=0):
                super().__init__(name, size)


        gizmo.ops.Engine = MyEngine


        def call_saved():
            return _saved("s", engine=3)
        """,
    "app/use.py": """
        import gizmo.ops
        from gizmo.ops import start, stop


        def run():
            return start("x", engine=1) + gizmo.ops.start("y", engine=2)


        def control():
            return stop("z", engine=1)
        """,
}


def test_calls_through_a_rebound_name_reach_the_consumers_function(tmp_path):
    use, patch = CONSUMER["app/use.py"], CONSUMER["app/patch.py"]
    findings = findings_of(tmp_path, Case("rebound", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [("DRIFT010", line_of(use, 'return stop("z", engine=1)')),
                               ("DRIFT010", line_of(patch, 'return _saved("s", engine=3)')),  # vLLM's, saved before
                               # the stand-in's own super() call reaches the class it subclasses
                               ("DRIFT013", line_of(patch, "super().__init__(name, size)")),
                               ("DRIFT070", line_of(patch, "def __init__(self, name, size=0)"))])


def test_python_runs_the_rebound_calls(tmp_path):
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([after, app], "app.use", "run()") is None
    assert raised_by([after, app], "app.use", "control()") == "TypeError: stop() got an unexpected keyword argument 'engine'"
    assert raised_by([after, app], "app.patch", "call_saved()") == \
        "TypeError: start() got an unexpected keyword argument 'engine'"
