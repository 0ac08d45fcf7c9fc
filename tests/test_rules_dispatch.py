"""A method the target reaches through a bound method its class chose at construction
(`self._method = self.choose()`, `def forward(self, *args, **kwargs): return self._method(*args,
**kwargs)`): a consumer's `forward_oot`, patched over the class's or overriding it, is held to
the target's `self.forward(...)` calls (DRIFT070, rules/dispatch.py), each prediction held to what
the synthetic code really raises; a `.forward(...)` on some other object is no such call."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

OP = """
    OOT = True


    class Op:
        def __init__(self):
            self._method = self.choose()

        def forward(self, *args, **kwargs):
            return self._method(*args, **kwargs)

        def forward_native(self, *args, **kwargs):
            raise NotImplementedError

        def forward_oot(self, *args, **kwargs):
            return self.forward_native(*args, **kwargs)

        def choose(self):
            if OOT:
                return self.forward_oot
            return self.forward_native
    """
BEFORE = OP + """

    class Scale(Op):
        def forward_native(self, x, factor=1):
            return x * factor

        def apply(self, x):
            return self.forward(x, factor=2)
    """
AFTER = OP + """

    class Scale(Op):
        def forward_native(self, x, factor=1, bias=0):
            return x * factor + bias

        def apply(self, x):
            return self.forward(x, factor=2, bias=0)
    """
AFTER_ELSEWHERE = OP + """

    class Scale(Op):
        def forward_native(self, x, factor=1, bias=0):
            return x * factor + bias

        def apply(self, x):
            return self.forward(x, factor=2)


    def run(layer, x):
        return layer.forward(x, bias=1)
    """
PATCH = """
    from gizmo.op import Scale


    def forward_oot(self, x, factor=1):
        return x * factor


    Scale.forward_oot = forward_oot
    """
OVERRIDE = """
    from gizmo.op import Scale


    class MyScale(Scale):
        def forward_oot(self, x, factor=1):
            return x * factor
    """


def test_a_patched_chosen_method_is_held_to_the_public_methods_calls(tmp_path):
    case = Case("dispatched-patch", {"gizmo/op.py": BEFORE}, {"gizmo/op.py": AFTER}, {"app/patch.py": PATCH},
                [("DRIFT070", line_of(PATCH, "def forward_oot"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "gizmo.op",
                       "__import__('app.patch') and Scale().apply(3)")
    assert raised == only(findings, "DRIFT070").predicted_failure \
        == "TypeError: forward_oot() got an unexpected keyword argument 'bias'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "gizmo.op",
                     "__import__('app.patch') and Scale().apply(3)") is None


def test_an_overriding_chosen_method_is_held_to_the_public_methods_calls(tmp_path):
    case = Case("dispatched-override", {"gizmo/op.py": BEFORE}, {"gizmo/op.py": AFTER},
                {"app/mine.py": OVERRIDE}, [("DRIFT070", line_of(OVERRIDE, "def forward_oot"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "MyScale().apply(3)")
    assert raised is not None and raised.startswith("TypeError:") and "'bias'" in raised
    assert "'bias'" in only(findings, "DRIFT070").predicted_failure


def test_a_call_of_the_public_method_on_another_object_is_no_dispatch(tmp_path):
    case = Case("dispatched-elsewhere", {"gizmo/op.py": BEFORE}, {"gizmo/op.py": AFTER_ELSEWHERE},
                {"app/patch.py": PATCH}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
