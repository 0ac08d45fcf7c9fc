"""DRIFT070 on what a consumer assigns over a target class. A function (a factory) (`runner_mod.GraphManager = make_manager`,
at module level or inside a method that installs it): the target's own `GraphManager(...)` calls
now call the consumer's function, so it is held to what the class's constructor now takes, as a
function assigned over a target function is held to that function's parameters. A stand-in class
whose property stands for a data attribute the target turned into a method it calls is reported."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/graph.py": """
        class Manager:
            def __init__(self, a, b):
                self.a = a
        """,
    "gizmo/runner.py": """
        from gizmo.graph import Manager

        class Runner:
            def __init__(self):
                self.m = Manager(1, 2)
        """,
}
AFTER = dict(BEFORE, **{
    "gizmo/graph.py": """
        class Manager:
            def __init__(self, a, b, ubatch=None):
                self.a = a
        """,
    "gizmo/runner.py": """
        from gizmo.graph import Manager

        class Runner:
            def __init__(self):
                self.m = Manager(1, 2, ubatch=3)
        """,
})
TOP = """
    from gizmo import runner as vr


    def top_factory(a, b):
        return (a, b)


    vr.Manager = top_factory
    """
NESTED = """
    from gizmo import runner as vr


    class Mine:
        def setup(self):
            def factory(a, b):
                return (a, b)

            vr.Manager = factory
    """
KEEPS = """
    from gizmo import runner as vr


    def open_factory(a, b, **kwargs):
        return (a, b)


    vr.Manager = open_factory
    """


def test_a_function_assigned_over_a_target_class_is_held_to_its_constructor(tmp_path):
    found = findings_of(tmp_path, Case("factory", BEFORE, AFTER,
                                       {"app/top.py": TOP, "app/nested.py": NESTED, "app/keeps.py": KEEPS}))
    assert_findings(found, [
        ("DRIFT070", line_of(TOP, "def top_factory")),
        ("DRIFT070", line_of(NESTED, "def factory")),
    ])
    assert all("does not accept `ubatch`" in f.title and "Manager.__init__" in f.title for f in found)
    # Python agrees: the target's runner calls the consumer's function with the new keyword
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.top", "__import__('gizmo.runner').runner.Runner()") == \
        "TypeError: top_factory() got an unexpected keyword argument 'ubatch'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.top",
                     "__import__('gizmo.runner').runner.Runner()") is None


BUF_BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/buf.py": """
        class Buffer:
            def __init__(self, n):
                self.n = n
                self.uva = [0] * n
        """,
    "gizmo/user.py": """
        from gizmo import buf

        def use(n):
            return buf.Buffer(n).uva[0]
        """,
}
BUF_AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/buf.py": """
        class Buffer:
            def __init__(self, n):
                self.n = n
                self._uva = [0] * n

            def uva(self, k=None):
                return self._uva[:k]
        """,
    "gizmo/user.py": """
        from gizmo import buf

        def use(n):
            return buf.Buffer(n).uva(2)
        """,
}
WRAPPER = """
    from gizmo import buf


    class Wrapper:
        def __init__(self, n):
            self._data = [1] * n

        @property
        def uva(self):
            return self._data

        @property
        def extra(self):
            return 0


    buf.Buffer = Wrapper
    """


def test_a_stand_ins_property_the_target_now_calls_as_a_method_is_reported(tmp_path):
    """A stand-in (assigned over the class, not extending it) that serves a member as a property,
    where the replaced class's data attribute became a method the target calls."""
    found = findings_of(tmp_path, Case("uva", BUF_BEFORE, BUF_AFTER, {"app/patch.py": WRAPPER}))
    assert_findings(found, [("DRIFT070", line_of(WRAPPER, "def uva"))])
    assert found[0].severity.value == "risky" and "became a method" in found[0].title
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.patch", "__import__('gizmo.user').user.use(3)") == \
        "TypeError: 'list' object is not callable"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.patch",
                     "__import__('gizmo.user').user.use(3)") is None
