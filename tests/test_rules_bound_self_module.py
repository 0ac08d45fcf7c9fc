"""`self` in a function bound onto a target layer built on `torch.nn.Module` (`Layer.forward_oot =
fn`): a property the baseline's class defined and the target's dropped is reported at each read,
risky, though nn.Module's `__getattr__` (which drift never reads) keeps the target's class open.
A read guarded by such a read is still reported: the guard may not raise."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = {"gizmo/moe.py": """
    import torch.nn as nn


    class CustomOp(nn.Module):
        def forward_oot(self, *args):
            return args


    class Layer(CustomOp):
        def __init__(self, n):
            super().__init__()
            self.n = n
            self.ranks = 2
            self.width = 4

        @property
        def dp_size(self):
            return self.ranks

        @property
        def dp_rank(self):
            return 0
    """}
AFTER = {"gizmo/moe.py": """
    import torch.nn as nn


    class CustomOp(nn.Module):
        def forward_oot(self, *args):
            return args


    class Layer(CustomOp):
        def __init__(self, n):
            super().__init__()
            self.n = n
            self.ranks = 2
    """}
CONSUMER = {"app/patch.py": """
    from gizmo.moe import Layer


    def forward_rbln(self, x):
        if self.dp_size > 1:
            x = x * self.dp_rank
        return x + self.width


    Layer.forward_oot = forward_rbln
    """}


def test_a_dropped_property_read_on_a_bound_self_is_risky(tmp_path):
    src = CONSUMER["app/patch.py"]
    findings = findings_of(tmp_path, Case("bound-module-self", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [
        ("DRIFT060", line_of(src, "if self.dp_size > 1")),
        ("DRIFT060", line_of(src, "x = x * self.dp_rank")),  # under the first read's test
    ])  # `self.width`, set in the baseline's __init__, may be registered on the module now: silent
    assert {f.severity.value for f in findings} == {"risky"}
    assert all("torch.nn.Module" in f.details for f in findings)
