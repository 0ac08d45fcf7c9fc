"""A function made a method of a target class or object however it is bound: `Cls.m = fn` with
`fn` defined in another consumer module (one that never names the target),
`types.MethodType(fn, obj)` on an object of a target class, and `Cls.m =
functools.partialmethod(fn, ...)`. Inside `fn` the first parameter is that class's instance, so
its reads, calls and method calls are checked against the target as a method's would be."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/moe.py": """
    class Runner:
        def __init__(self, n):
            self.n = n
            self.old = 1

        def gone(self):
            return 1

        def forward(self, x):
            return x
    """}
AFTER = {"gizmo/moe.py": """
    class Runner:
        def __init__(self, n):
            self.n = n

        def forward(self, x, y):
            return x
    """}

# the bodies live in a module that never imports gizmo: only the binding module names it
BODIES = """
    def _step(self, x):
        self.gone()
        return self.n + x


    def _run(self, x):
        return self.forward(x)


    def _read(self, k=1):
        return self.old * k


    def _callback(self):
        return self.gone()
    """
CONSUMER = {
    "app/bodies.py": BODIES,
    "app/install.py": """
    import functools
    import types

    from gizmo.moe import Runner

    from app.bodies import _callback, _read, _run, _step


    class Settings:
        pass


    Runner.step = _step
    setattr(Runner, "run", _run)
    Runner.read = functools.partialmethod(_read, k=2)


    def attach(runner: Runner):
        runner.later = types.MethodType(_step, runner)


    def keep(settings: Settings):
        settings.callback = _callback
    """,
}


def test_functions_bound_from_another_module_are_methods_of_the_target(tmp_path):
    findings = findings_of(tmp_path, Case("bound-methods", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [
        ("DRIFT060", line_of(BODIES, "self.gone()")),
        ("DRIFT011", line_of(BODIES, "self.forward(x)")),
        ("DRIFT060", line_of(BODIES, "self.old * k")),
    ])
    assert {f.consumer_site.path for f in findings} == {"app/bodies.py"}


def test_a_function_stored_on_a_consumer_object_is_not_judged(tmp_path):
    """`settings.callback = _callback`: Settings is the consumer's own class, so `self.gone()` in
    _callback says nothing about the target (the same body bound onto Runner would)."""
    consumer = dict(CONSUMER)
    consumer["app/install.py"] = consumer["app/install.py"].replace("Runner.step = _step", "pass")
    consumer["app/install.py"] = consumer["app/install.py"].replace(
        "runner.later = types.MethodType(_step, runner)", "pass")
    findings = findings_of(tmp_path, Case("stored-on-own", BEFORE, AFTER, consumer))
    assert_findings(findings, [
        ("DRIFT011", line_of(BODIES, "self.forward(x)")),
        ("DRIFT060", line_of(BODIES, "self.old * k")),
    ])


def test_method_type_alone_binds_the_function(tmp_path):
    """Only `types.MethodType(_step, runner)` makes _step a method of a Runner."""
    consumer = {"app/bodies.py": BODIES, "app/install.py": """
        from types import MethodType

        from gizmo.moe import Runner

        from app.bodies import _step


        def attach(runner: Runner):
            return MethodType(_step, runner)
        """}
    findings = findings_of(tmp_path, Case("method-type", BEFORE, AFTER, consumer))
    assert_findings(findings, [("DRIFT060", line_of(BODIES, "self.gone()"))])


def test_python_fails_where_the_findings_say(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    for expr in ("Runner(1).step(2)", "Runner(1).run(2)", "Runner(1).read()",
                 "types.MethodType(_step, Runner(1))(2)"):
        assert raised_by([before, app], "app.install", expr) is None, expr
    assert raised_by([after, app], "app.install", "Runner(1).step(2)") == \
        "AttributeError: 'Runner' object has no attribute 'gone'"
    assert raised_by([after, app], "app.install", "Runner(1).run(2)") == \
        "TypeError: Runner.forward() missing 1 required positional argument: 'y'"
    assert raised_by([after, app], "app.install", "Runner(1).read()") == \
        "AttributeError: 'Runner' object has no attribute 'old'"
    assert raised_by([after, app], "app.install", "types.MethodType(_step, Runner(1))(2)") == \
        "AttributeError: 'Runner' object has no attribute 'gone'"


TABLE_CONSUMER = {"app/bodies.py": BODIES, "app/install.py": """
    from gizmo.moe import Runner

    from app.bodies import _run, _step

    PATCHES = [
        (Runner, "step", _step),
        (Runner, "run", _run),
    ]


    def apply():
        for cls, name, fn in PATCHES:
            setattr(cls, name, fn)
    """}


def test_functions_installed_from_a_literal_table_are_methods(tmp_path):
    findings = findings_of(tmp_path, Case("table", BEFORE, AFTER, TABLE_CONSUMER))
    assert_findings(findings, [
        ("DRIFT060", line_of(BODIES, "self.gone()")),
        ("DRIFT011", line_of(BODIES, "self.forward(x)")),
    ])


def test_python_fails_in_the_table_installed_methods(tmp_path):
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", TABLE_CONSUMER)
    assert raised_by([after, app], "app.install", "(apply(), Runner(1).step(2))") == \
        "AttributeError: 'Runner' object has no attribute 'gone'"
    assert raised_by([after, app], "app.install", "(apply(), Runner(1).run(2))") == \
        "TypeError: Runner.forward() missing 1 required positional argument: 'y'"
