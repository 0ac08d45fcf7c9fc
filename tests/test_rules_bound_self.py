"""`self` inside a module-level function installed onto a target class (`Cls.m = fn`,
`setattr(Cls, "m", fn)`) is an instance of that class: its attribute reads, calls and method
calls are checked against the target like those in a subclass's method."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/moe.py": """
    class Topo:
        def __init__(self):
            self.split_k_and_v = True

    class Base:
        def inherited(self, a):
            return a

    class Runner(Base):
        def __init__(self, n):
            self.n = n

        def _pad(self, x):
            return x, 0

        def _unpadded_dim(self):
            return 1

        def forward(self, x):
            return x
    """}
AFTER = {"gizmo/moe.py": """
    class Topo:
        def __init__(self):
            self.other = True

    class Base:
        def inherited(self, a, ratio):
            return a

    class Runner(Base):
        def __init__(self, n):
            self.n = n

        def _pad(self, x):
            return x, 0, 0

        def forward(self, x):
            return x
    """}
CONSUMER = {"app/patch.py": """
    from gizmo.moe import Runner, Topo


    def _forward(self, x):
        a, b = self._pad(x)
        self._unpadded_dim()
        return self.n + a


    def _new_init(self, n):
        self.n = n
        self.topo = Topo()


    def _register(self):
        self.inherited(1)
        return self.topo.split_k_and_v


    def _fine(self):
        return self.n, self.topo


    def apply():
        Runner.forward = _forward
        setattr(Runner, "register", _register)


    Runner.__init__ = _new_init
    Runner.fine = _fine
    apply()
    """}


def test_self_in_an_installed_function_is_the_target_class(tmp_path):
    src = CONSUMER["app/patch.py"]
    findings = findings_of(tmp_path, Case("bound-self", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [
        ("DRIFT032", line_of(src, "a, b = self._pad(x)")),  # `return x, 0` became `return x, 0, 0`
        ("DRIFT060", line_of(src, "self._unpadded_dim()")),
        ("DRIFT011", line_of(src, "self.inherited(1)")),
        ("DRIFT060", line_of(src, "self.topo.split_k_and_v")),
    ])


def test_python_raises_what_drift_predicts(tmp_path):
    after = write_tree(tmp_path / "after", AFTER)
    before = write_tree(tmp_path / "before", BEFORE)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([before, app], "app.patch", "Runner(1).register()") is None
    assert raised_by([before, app], "app.patch", "Runner(1).fine()") is None
    assert raised_by([after, app], "app.patch", "Runner(1).fine()") is None
    assert raised_by([after, app], "app.patch", "Runner(1).forward(2)") == \
        "ValueError: too many values to unpack (expected 2)"
    assert raised_by([after, app], "app.patch", "Runner(1).inherited(1)") == \
        "TypeError: Base.inherited() missing 1 required positional argument: 'ratio'"
    app2 = write_tree(tmp_path / "app2", {"app/patch.py": CONSUMER["app/patch.py"].replace(
        "self.inherited(1)", "self.inherited(1, 2)")})
    assert raised_by([after, app2], "app.patch", "Runner(1).register()") == \
        "AttributeError: 'Topo' object has no attribute 'split_k_and_v'"
