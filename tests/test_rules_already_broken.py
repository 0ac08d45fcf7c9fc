"""DRIFT070 findings that would hold against the baseline too are lowered to risky, not dropped:
an override the baseline's call from the same function already could not bind to, and a
function assigned over a target name that already lacked a required parameter of the
baseline's declaration. A failure at a caller the baseline did not have stays breaking."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, raised_by, write_tree

BEFORE = {"gizmo/moe.py": """
    class MethodBase:
        def apply(self, layer, x):
            raise NotImplementedError

    class MoELayer:
        def __init__(self, method):
            self.quant_method = method

        def forward_impl(self, x):
            return self.quant_method.apply(layer=self, x=x, top_k=2, expert_map=None)
    """, "gizmo/ops.py": """
    def kernel(a, b, mapping, n, factor):
        return a

    def launch(a, b):
        return a
    """}
AFTER = {"gizmo/moe.py": """
    class MethodBase:
        def apply(self, layer, x, **kwargs):
            raise NotImplementedError

    class MoELayer:
        def __init__(self, method):
            self.quant_method = method

        def forward_impl(self, x):
            return self.quant_method.apply(layer=self, x=x, top_k=2, expert_map=None, activation="silu")

        def forward_chunked(self, x):
            return self.quant_method.apply(layer=self, x=x, topk_weights=None)
    """, "gizmo/ops.py": """
    def kernel(a, b, mapping, n, factor, desc):
        return a

    def launch(a, b):
        return a
    """}


AFTER_SAME_CALLER = {**AFTER, "gizmo/moe.py": AFTER["gizmo/moe.py"].split("        def forward_chunked")[0]}
MY_METHOD = {"app/moe.py": """
    from gizmo.moe import MethodBase

    class MyMethod(MethodBase):
        def apply(self, layer, x, top_k):
            return x
    """}


def _drift070(tmp_path, consumer: dict, after: dict = AFTER) -> list:
    return [f for f in findings_of(tmp_path, Case("already", BEFORE, after, consumer)) if f.rule_id == "DRIFT070"]


def test_a_call_the_baseline_made_from_the_same_function_that_already_failed_is_risky(tmp_path):
    found = _drift070(tmp_path, MY_METHOD, AFTER_SAME_CALLER)
    assert len(found) == 1, [f.title for f in found]
    # MoELayer.forward_impl already passed expert_map= on the baseline: the same TypeError there
    assert found[0].severity.value == "risky"
    assert found[0].title.endswith("the baseline's call in the same function did not fit it either")
    assert "`MoELayer.forward_impl`" in found[0].details
    roots = [write_tree(tmp_path / "run-before", BEFORE), write_tree(tmp_path / "run-app", MY_METHOD)]
    assert raised_by(roots, "app.moe", "__import__('gizmo.moe').moe.MoELayer(MyMethod()).forward_impl(1)") == \
        "TypeError: MyMethod.apply() got an unexpected keyword argument 'expert_map'"


def test_a_new_caller_keeps_the_finding_breaking(tmp_path):
    # MoELayer.forward_chunked is a caller the baseline did not have: what it passes is the change,
    # and the lowered finding of the old caller does not hide it (one finding per site and symbol)
    found = _drift070(tmp_path, MY_METHOD)
    assert [f.severity.value for f in found] == ["breaking"], [f.title for f in found]
    assert "topk_weights" in found[0].predicted_failure


def test_an_override_that_fits_the_baselines_call_stays_breaking(tmp_path):
    consumer = {"app/moe.py": """
        from gizmo.moe import MethodBase

        class MyMethod(MethodBase):
            def apply(self, layer, x, top_k, expert_map):
                return x
        """}
    found = [f for f in _drift070(tmp_path, consumer) if "activation" in f.predicted_failure]
    assert len(found) == 1 and found[0].severity.value == "breaking", [f.title for f in found]


def test_a_replacement_that_lacked_the_baselines_required_parameters_is_risky(tmp_path):
    old_layout = {"app/ops.py": """
        import gizmo.ops

        def kernel(a, b, n):
            return a

        gizmo.ops.kernel = kernel
        """}
    found = _drift070(tmp_path, old_layout)
    assert [f.severity.value for f in found] == ["risky"], [f.title for f in found]
    assert "`desc`" in found[0].title
    assert "it already lacked the baseline's required `mapping`, `factor`" in found[0].title


def test_a_replacement_that_matched_the_baselines_declaration_stays_breaking(tmp_path):
    current = {"app/ops.py": """
        import gizmo.ops

        def kernel(a, b, mapping, n, factor):
            return a

        gizmo.ops.kernel = kernel
        """}
    found = _drift070(tmp_path, current)
    assert [f.severity.value for f in found] == ["breaking"], [f.title for f in found]
    assert "already lacked" not in found[0].title


def test_a_renamed_positional_slot_is_not_a_lacked_parameter(tmp_path):
    renamed = {"app/ops.py": """
        import gizmo.ops

        def kernel(a, b, mapping_table, n, factor):
            return a

        gizmo.ops.kernel = kernel
        """}
    found = _drift070(tmp_path, renamed)
    assert [f.severity.value for f in found] == ["breaking"], [f.title for f in found]


def test_an_override_some_baseline_call_fitted_stays_breaking(tmp_path):
    # the baseline also ran the override through a call it took (a legacy path the target removed):
    # the consumer's override worked there, so the target leaving only the failing caller is the change
    legacy = BEFORE["gizmo/moe.py"] + """
        def forward_legacy(self, x):
            return self.quant_method.apply(self, x, 2)
    """
    before = {**BEFORE, "gizmo/moe.py": legacy}
    found = [f for f in findings_of(tmp_path, Case("legacy", before, AFTER_SAME_CALLER, MY_METHOD))
             if f.rule_id == "DRIFT070"]
    assert [f.severity.value for f in found] == ["breaking"], [f.title for f in found]
    roots = [write_tree(tmp_path / "run-before", before), write_tree(tmp_path / "run-app", MY_METHOD)]
    assert raised_by(roots, "app.moe", "__import__('gizmo.moe').moe.MoELayer(MyMethod()).forward_legacy(1)") is None


def test_a_patch_whose_receiver_has_another_name_fits_the_baselines_call(tmp_path):
    # `def patched(layer_self, layer, x, top_k)` installed over MethodBase.apply is bound like a
    # method: the baseline's positional call fitted it, so the target's failing call stays breaking
    before = {**BEFORE, "gizmo/moe.py": BEFORE["gizmo/moe.py"] + """
        def forward_legacy(self, x):
            return self.quant_method.apply(self, x, 2)
    """}
    patch = {"app/moe.py": """
        from gizmo.moe import MethodBase

        def patched(method_self, layer, x, top_k):
            return x

        MethodBase.apply = patched
        """}
    found = [f for f in findings_of(tmp_path, Case("patched", before, AFTER_SAME_CALLER, patch))
             if f.rule_id == "DRIFT070"]
    assert [f.severity.value for f in found] == ["breaking"], [f.title for f in found]
