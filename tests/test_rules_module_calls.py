"""A call of an instance of a target layer built on `torch.nn.Module` runs its `forward`
(`nn.Module.__call__` hands the arguments on): the signature rules judge `self.kernel(x,
inplace=True)` and `layer(x, cache)` against the target's `forward` (synthetic trees; torch is a
stand-in whose `Module.__call__` does what torch's does). A layer that writes its own `__call__`
is judged by that, never by `forward`."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

TORCH = {
    "torch/__init__.py": "",
    "torch/nn/__init__.py": """
        class Module:
            def __call__(self, *args, **kwargs):
                return self.forward(*args, **kwargs)
        """,
}
BEFORE = {"gizmo/kernels.py": """
    import torch.nn as nn


    class Kernel(nn.Module):
        def forward(self, x, inplace=False):
            return x


    class Block(nn.Module):
        def forward(self, x, cache, meta):
            return x


    class Custom(nn.Module):
        def __call__(self, x, inplace=False):
            return x

        def forward(self, x, inplace=False):
            return x
    """}
AFTER = {"gizmo/kernels.py": """
    import torch.nn as nn


    class Kernel(nn.Module):
        def forward(self, x):
            return x


    class Block(nn.Module):
        def forward(self, x):
            return x


    class Custom(nn.Module):
        def __call__(self, x, inplace=False):
            return x

        def forward(self, x):
            return x
    """}
CONSUMER = """
    from gizmo.kernels import Block, Custom, Kernel


    class Layer:
        def setup(self):
            self.kernel = Kernel()
            self.custom = Custom()

        def run(self, x):
            y = self.custom(x, inplace=True)
            return self.kernel(x, inplace=True) + y


    def step(x):
        block = Block()
        return block(x, None, None)
    """


def test_calling_a_layer_is_calling_its_forward(tmp_path):
    case = Case("module-calls", BEFORE, AFTER, {"app/layer.py": CONSUMER})
    found = {(f.rule_id, f.consumer_site.line, f.severity.value) for f in findings_of(tmp_path, case)
             if f.rule_id in ("DRIFT010", "DRIFT011", "DRIFT012")}
    # risky (drift/analysis/layer_calls.py): the layer's forward may be a per-platform replacement
    assert found == {("DRIFT010", line_of(CONSUMER, "self.kernel(x, inplace=True)"), "risky"),
                     ("DRIFT012", line_of(CONSUMER, "block(x, None, None)"), "risky")}
    # what the synthetic code really does on each side
    write_tree(tmp_path / "torch", TORCH)
    after = [tmp_path / "after", tmp_path / "consumer", tmp_path / "torch"]
    err = raised_by(after, "app.layer", "(lambda l: (l.setup(), l.run(1)))(Layer())")
    assert err == "TypeError: Kernel.forward() got an unexpected keyword argument 'inplace'"
    assert raised_by(after, "app.layer", "step(1)") == \
        "TypeError: Block.forward() takes 2 positional arguments but 4 were given"
    before = [tmp_path / "before", tmp_path / "consumer", tmp_path / "torch"]
    assert raised_by(before, "app.layer", "(lambda l: (l.setup(), l.run(1)))(Layer())") is None
    assert raised_by(before, "app.layer", "step(1)") is None


SHIFT_BEFORE = {"gizmo/heads.py": """
    import torch.nn as nn


    class Head(nn.Module):
        def forward(self, weight, hidden: int, meta: str = None, bias: float = None):
            return hidden
    """}
SHIFT_AFTER = {"gizmo/heads.py": """
    import torch.nn as nn


    class Head(nn.Module):
        def forward(self, weight, hidden: int, bias: float = None):
            return hidden
    """}
SHIFT_CONSUMER = """
    from gizmo.heads import Head


    def logits(h, meta):
        head = Head()
        direct = head.forward(None, h, meta)
        return head(None, h, meta), direct
    """


def test_a_value_shifted_through_a_layer_call_is_risky_where_python_accepts_the_call(tmp_path):
    """`head(None, h, meta)` now passes `meta` as `bias`: the annotations disagree, which makes the
    direct `head.forward(...)` breaking; through `__call__` the layer may be a platform's
    replacement, so the same shift is risky."""
    case = Case("shift", SHIFT_BEFORE, SHIFT_AFTER, {"app/head.py": SHIFT_CONSUMER})
    found = {f.consumer_site.line: f.severity.value for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT013"}
    assert found == {line_of(SHIFT_CONSUMER, "head.forward(None, h, meta)"): "breaking",
                     line_of(SHIFT_CONSUMER, "head(None, h, meta)"): "risky"}


BODY_BEFORE = {"gizmo/attn.py": """
    import torch.nn as nn


    class Attn(nn.Module):
        def forward(self, q, shape=None):
            if shape is not None:
                return shape[0]
            return q
    """}
BODY_AFTER = {"gizmo/attn.py": """
    import torch.nn as nn


    class Attn(nn.Module):
        def forward(self, q, shape=None):
            return shape[0]
    """}
BODY_CONSUMER = """
    from gizmo.attn import Attn


    def attend(q):
        attn = Attn()
        through_call = attn(q)
        direct = attn.forward(q)
        return through_call, direct
    """


def test_rules_on_the_forward_body_judge_direct_calls_only(tmp_path):
    """What the target's `forward` body does with an argument (here: now dereferences `shape`,
    left at None) is judged on `attn.forward(q)`; through `attn(q)` the layer may be a platform's
    replacement with another body, so only the binding rules look at that call."""
    case = Case("body", BODY_BEFORE, BODY_AFTER, {"app/attend.py": BODY_CONSUMER})
    findings = findings_of(tmp_path, case)
    assert [f.consumer_site.line for f in findings if f.rule_id == "DRIFT014"] == \
        [line_of(BODY_CONSUMER, "direct = attn.forward(q)")]
