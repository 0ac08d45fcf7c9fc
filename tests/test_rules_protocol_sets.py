"""DRIFT147: an override reads what the overridden class's other methods stored on the object
vLLM hands both (paroquant on vLLM 0.19: `layer.num_groups`, stored by the AWQ-Marlin method's
`create_weights` on 0.17 and kept local on 0.19, read by the plugin's `process_weights_after_loading`).
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by, write_tree

BEFORE = {"gizmo/quant.py": """
    class LinearMethod:
        def create_weights(self, layer, size):
            layer.weight = [0] * size
            layer.num_groups = size // 2
            layer.workspace = None

        def process_weights_after_loading(self, layer):
            layer.ready = True
    """,
    "gizmo/kernel.py": """
    class Kernel:
        def __init__(self):
            self.workspace = None
    """}
AFTER = {"gizmo/quant.py": """
    class LinearMethod:
        def create_weights(self, layer, size):
            layer.weight = [0] * size
            num_groups = size // 2
            self.groups = num_groups

        def process_weights_after_loading(self, layer):
            layer.ready = True
    """,
    "gizmo/kernel.py": """
    class Kernel:
        def __init__(self, layer):
            layer.workspace = None
    """}
MINE = """
    from gizmo.quant import LinearMethod


    class Layer:
        pass


    class MyMethod(LinearMethod):
        def create_weights(self, layer, size):
            super().create_weights(layer, size)
            layer.parts = 2

        def process_weights_after_loading(self, layer):
            groups = layer.num_groups
            parts = layer.parts
            space = layer.workspace
            weight = layer.weight
            super().process_weights_after_loading(layer)
            return groups, parts, space, weight
    """


def _run(method_cls: str) -> str:
    return f"[{method_cls}().create_weights(l := __import__('app.mine').mine.Layer(), 4), " \
           f"{method_cls}().process_weights_after_loading(l)]"


def test_an_attribute_the_base_no_longer_stores_on_the_protocol_object(tmp_path):
    case = Case("protocol", BEFORE, AFTER, {"app/mine.py": MINE},
                [("DRIFT147", line_of(MINE, "groups = layer.num_groups"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    found = only(findings, "DRIFT147")
    assert "create_weights" in found.title
    assert found.baseline_evidence[0].line == line_of(BEFORE["gizmo/quant.py"], "layer.num_groups = size // 2")
    # silent: `parts` the consumer stores itself, `workspace` the target still assigns somewhere
    # (another object may carry it), `weight` the target's create_weights still stores
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", {"app/mine.py": MINE})
    assert raised_by([before, app], "app.mine", _run("MyMethod")) is None
    assert raised_by([after, app], "app.mine", _run("MyMethod")) \
        == "AttributeError: 'Layer' object has no attribute 'num_groups'"


def test_an_override_that_never_runs_the_storing_method_is_silent(tmp_path):
    mine = MINE.replace("            super().create_weights(layer, size)\n", "            layer.weight = None\n")
    case = Case("protocol-own", BEFORE, AFTER, {"app/mine.py": mine}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_unchanged_target_is_silent(tmp_path):
    case = Case("protocol-unchanged", BEFORE, BEFORE, {"app/mine.py": MINE}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
