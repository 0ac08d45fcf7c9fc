"""DRIFT070 stays quiet where the only evidence is a call on an object the target cannot type, of a
method whose declaration takes anything (`CustomOp.forward(self, *args, **kwargs)`): vLLM 0.10.1
made its linear layers CustomOps, and vllm-ascend's own linear layers' `forward` then "overrode" a
method vLLM calls elsewhere as `self.impl.forward(self, q, k, v, cache, meta, output=...)` on an
attention implementation (and a multimodal model's `super().forward(...)`, a class outside the
layers' family). A call on `self` (a typed object) still counts."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = {"gizmo/layers.py": """
    class Module:
        def __call__(self, *args, **kwargs):
            return self.forward(*args, **kwargs)


    class LinearBase(Module):
        def __init__(self, size):
            self.size = size


    class Attention(Module):
        def __init__(self, impl):
            self.impl = impl

        def forward(self, q, k, v):
            return self.impl.forward(self, q, k, v, None, None, output=None)


    class MultiModal(Module):
        def forward(self, ids, positions, tensors, embeds):
            return super().forward(ids, positions, tensors, embeds)
    """}
AFTER = {"gizmo/layers.py": BEFORE["gizmo/layers.py"].replace(
    "class LinearBase(Module):", """class CustomOp(Module):
        def forward(self, *args, **kwargs):
            return self.forward_native(*args, **kwargs)

        def forward_native(self, *args, **kwargs):
            return args


    class LinearBase(CustomOp):""")}
CONSUMER = """
    from gizmo.layers import LinearBase


    class MyLinear(LinearBase):
        def forward(self, x):
            return x
    """


def test_an_untyped_receiver_of_a_catch_all_method_is_no_caller(tmp_path):
    found = findings_of(tmp_path, Case("catch", BEFORE, AFTER, {"app/__init__.py": "", "app/lin.py": CONSUMER}))
    assert_findings(found, [])


def test_a_call_on_self_of_a_catch_all_method_still_counts(tmp_path):
    after = {"gizmo/layers.py": AFTER["gizmo/layers.py"].replace(
        "    class LinearBase(CustomOp):\n        def __init__(self, size):\n            self.size = size\n",
        "    class LinearBase(CustomOp):\n        def __init__(self, size):\n            self.size = size\n\n"
        "        def run(self, x, bias):\n            return self.forward(x, bias)\n")}
    assert "def run" in after["gizmo/layers.py"]
    found = findings_of(tmp_path, Case("self", BEFORE, after, {"app/__init__.py": "", "app/lin.py": CONSUMER}))
    assert_findings(found, [("DRIFT070", line_of(CONSUMER, "def forward"))])
