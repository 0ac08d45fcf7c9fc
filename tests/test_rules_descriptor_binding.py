"""A function bound onto a target layer with the descriptor call `fn.__get__(m, LlamaAttention)`
(inside an `nn.Module.apply` callback, where `m` is any module) is a method of that class: its
`self` reads are held to the class. The layer extends `torch.nn.Module`, whose registered
attributes drift cannot see; a plain attribute the baseline's `__init__` set and the target's
drops is still reported when the target never writes the name as a string (`register_buffer("x")`,
`setattr(self, "x", v)`, the ways an unseen base could still provide it)."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import LIB, consumer_of, facts_of, line_of, write_tree

BEFORE = {"gizmo/llama.py": """
    import torch


    class LlamaAttention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.kv_scale = 1.0
            self.q_size = 8
    """}
AFTER = {"gizmo/llama.py": """
    import torch


    class LlamaAttention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.q_size = 8
    """}
CONSUMER = {"app/__init__.py": "", "app/patch.py": """
    from gizmo.llama import LlamaAttention


    def attn_forward(self, x):
        return x * self.kv_scale + self.q_size


    def patch(model):
        def update(m):
            if isinstance(m, LlamaAttention):
                m.forward = attn_forward.__get__(m, LlamaAttention)

        model.apply(update)
    """}


def findings(tmp_path, after: dict) -> list:
    """DRIFT060 over trees whose sources stay on this machine (`target.root`), as a release's do:
    the target's text can then be searched for the name written as a string."""
    sides = {}
    for side, files in (("before", BEFORE), ("after", after)):
        root = write_tree(tmp_path / side, files)
        sides[side] = facts_of(root) | {"target": {"root": str(root)}}
    cons = consumer_of(write_tree(tmp_path / "consumer", CONSUMER))
    outcome = check(consumer=cons, target_facts=sides["after"], baseline_facts=sides["before"], target_package=LIB)
    assert outcome.error is None and outcome.report is not None, outcome.error
    return [f for f in outcome.report.findings if f.rule_id == "DRIFT060"]


def test_a_descriptor_bound_functions_self_is_the_named_class(tmp_path):
    src = CONSUMER["app/patch.py"]
    found = findings(tmp_path, AFTER)
    assert [(f.consumer_site.line, f.symbol) for f in found] == [
        (line_of(src, "self.kv_scale"), "gizmo.llama.LlamaAttention.kv_scale")], [f.title for f in found]


def test_a_name_the_target_writes_as_a_string_may_be_registered_unseen(tmp_path):
    after = {"gizmo/llama.py": AFTER["gizmo/llama.py"] + """

    def load(layer, w):
        layer.register_buffer("kv_scale", w)
    """}
    assert findings(tmp_path, after) == []
