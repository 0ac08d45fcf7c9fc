"""A type test that guards an exit types what follows, for the reads in place and for a helper.

`for m in model.modules(): if not isinstance(m, C): continue` is how consumers pick vLLM's layers
out of a model; what follows in the loop body runs only where `m` is a C, and so does a helper the
loop hands `m` to (its parameter is typed from that call site by the solved model). Here the
target turned the class into a factory function returning another class, which no longer has the
attributes the consumer reads: each read is reported, beside the isinstance itself (DRIFT066).
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/moe.py": """
    class FusedMoE:
        def __init__(self):
            self._expert_map = None
            self.global_num_experts = 0
    """}
AFTER = {"gizmo/moe.py": """
    class RoutedExperts:
        def __init__(self):
            self._expert_map = None
            self.global_num_experts = 0

    class MoERunner:
        def __init__(self):
            self.routed_experts = RoutedExperts()

    def FusedMoE() -> MoERunner:
        return MoERunner()
    """}
CONSUMER = """
    from gizmo.moe import FusedMoE

    def _source_indices(module):
        if module._expert_map is None:
            return None
        return module.global_num_experts

    def expert_maps(model):
        out = {}
        for name, module in model.named_modules():
            if not isinstance(module, FusedMoE):
                continue
            out[name] = _source_indices(module)
            out[name + ".map"] = module._expert_map
        return out
    """


def test_a_type_test_before_continue_types_the_loop_body_and_the_helper_it_calls(tmp_path):
    found = findings_of(tmp_path, Case("exits", BEFORE, AFTER, {"app/m.py": CONSUMER}))
    assert_findings(found, [("DRIFT060", line_of(CONSUMER, "if module._expert_map")),
                            ("DRIFT060", line_of(CONSUMER, "return module.global_num_experts")),
                            ("DRIFT066", line_of(CONSUMER, "isinstance")),
                            ("DRIFT060", line_of(CONSUMER, "= module._expert_map"))])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.m",
                     "_source_indices(__import__('gizmo.moe').moe.FusedMoE())") == \
        "AttributeError: 'MoERunner' object has no attribute '_expert_map'"


def test_without_the_exit_the_test_types_nothing_after_it(tmp_path):
    consumer = CONSUMER.replace("                continue\n", "                pass\n")
    found = findings_of(tmp_path, Case("no-exit", BEFORE, AFTER, {"app/m.py": consumer}))
    assert_findings(found, [("DRIFT066", line_of(consumer, "isinstance"))])
