"""A new stub reached only through a base's dispatch the class overrides is risky, not breaking.

The target makes `LinearBase` a `CustomOp`: `CustomOp.__init__` keeps `self.dispatch_forward()`
(which returns `self.forward_oot`) in `self._forward_method`, `CustomOp.forward` calls it, and
`forward_oot` calls `forward_native`, a new stub that only raises NotImplementedError. A consumer
class whose `forward` is its own (over the target's `RowLinear.forward`, which is not CustomOp's
either) never runs the dispatch: no NotImplementedError, so the finding is risky. A consumer class
that keeps `CustomOp.forward` runs it and fails: still breaking.
"""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by

MODULE = """
    class Module:
        def __call__(self, *args):
            return self.forward(*args)
    """
OP = """
    from gizmo.module import Module

    class CustomOp(Module):
        def __init__(self):
            self._forward_method = self.dispatch_forward()

        def forward(self, *args):
            return self._forward_method(*args)

        def forward_native(self, *args):
            raise NotImplementedError

        def forward_oot(self, *args):
            return self.forward_native(*args)

        def dispatch_forward(self):
            return self.forward_oot
    """
LINEAR_AFTER = """
    from gizmo.op import CustomOp

    class LinearBase(CustomOp):
        def __init__(self, size):
            super().__init__()
            self.size = size

    class RowLinear(LinearBase):
        def forward(self, x):
            return x * self.size
    """
LINEAR_BEFORE = LINEAR_AFTER.replace("from gizmo.op import CustomOp", "from gizmo.module import Module as CustomOp")
OPS = """
    from gizmo.linear import LinearBase, RowLinear

    class MyRowLinear(RowLinear):
        def forward(self, x):
            return x + self.size

    class PlainLinear(LinearBase):
        def helper(self):
            return self.size
    """
CASE = Case("dispatch-overridden",
            {"gizmo/module.py": MODULE, "gizmo/linear.py": LINEAR_BEFORE},
            {"gizmo/module.py": MODULE, "gizmo/op.py": OP, "gizmo/linear.py": LINEAR_AFTER},
            {"app/ops.py": OPS})


def test_a_stub_reached_only_through_an_overridden_dispatch_is_risky_and_a_kept_dispatch_stays_breaking(tmp_path):
    found = {f.consumer_site.line: f for f in findings_of(tmp_path, CASE) if f.rule_id == "DRIFT071"}
    overriding, plain = line_of(OPS, "class MyRowLinear"), line_of(OPS, "class PlainLinear")
    assert sorted(found) == [overriding, plain]
    assert found[overriding].severity is Severity.RISKY
    assert found[overriding].symbol == "gizmo.op.CustomOp.forward_native"
    assert found[plain].severity is Severity.BREAKING
    assert "`forward_oot` calls it" in found[plain].predicted_failure
    # what really runs on the target
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.ops", "MyRowLinear(2)(3)") is None
    assert raised_by(roots, "app.ops", "PlainLinear(2)(3)") == "NotImplementedError: "


def test_another_classs_super_call_of_the_dispatched_method_does_not_run_it_here(tmp_path):
    """vllm-ascend 0.10.0rc1: `CustomSiluAndMul.forward_oot` ends `return super().forward_oot(x)`,
    which runs that class's own chain; its linear layers, whose `forward` overrides CustomOp's,
    still never run the dispatch. The overriding class stays risky."""
    ops = OPS + """

    class Act(LinearBase):
        def forward_native(self, x):
            return x

        def forward_oot(self, x):
            return super().forward_oot(x)
    """
    case = Case("dispatch-super-elsewhere", CASE.before, CASE.after, {"app/ops.py": ops})
    found = {f.consumer_site.line: f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT071"}
    assert found[line_of(ops, "class MyRowLinear")].severity is Severity.RISKY
    assert found[line_of(ops, "class PlainLinear")].severity is Severity.BREAKING
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.ops", "MyRowLinear(2)(3)") is None
