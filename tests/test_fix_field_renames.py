"""DRIFT060's fix for a field the target renamed, told by the target's own constructions of the
class: vLLM 0.29 renamed `KVCacheTensor.shared_by` to `layers`, and its own offload scheduler went
from `KVCacheTensor(..., shared_by=list(t.shared_by))` to `KVCacheTensor(..., layers=list(t.layers))`
in the same function. tpu-inference read `kv_cache_tensor.shared_by` seven times; the edit is
`rename_attribute`, safe. No spelling match links the two names.
"""

from __future__ import annotations

from drift.findings import SAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, line_of, src

TENSOR_BEFORE = """
    from dataclasses import dataclass


    @dataclass
    class KVCacheTensor:
        size: int
        shared_by: list


    def derive(t, blocks):
        return KVCacheTensor(size=t.size * blocks, shared_by=list(t.shared_by))
    """
TENSOR_AFTER = TENSOR_BEFORE.replace("shared_by: list", "layers: list").replace(
    "shared_by=list(t.shared_by)", "layers=list(t.layers)")

CONSUMER = """
    from gizmo.kv import KVCacheTensor


    def layer_names(tensor: KVCacheTensor):
        return tensor.shared_by
    """


def _case(before: str, after: str) -> Case:
    return Case("field-rename", {"gizmo/kv.py": before}, {"gizmo/kv.py": after},
                {"app/__init__.py": "", "app/kv.py": CONSUMER})


def test_a_field_the_targets_own_construction_moved_to_a_new_name_is_read_there(tmp_path):
    findings = findings_of(tmp_path, _case(TENSOR_BEFORE, TENSOR_AFTER))
    (f,) = [f for f in findings if f.rule_id == "DRIFT060"]
    assert f.consumer_site.line == line_of(src(CONSUMER), "tensor.shared_by")
    assert f.fix.codemod == "rename_attribute" and f.fix.tier == SAFE
    assert f.fix.args["new"] == "layers"
    after = plan({"app/kv.py": src(CONSUMER).encode()}, findings).changes[0].after.decode()
    assert "return tensor.layers\n" in after


def test_without_the_targets_own_construction_the_new_name_is_only_a_guess(tmp_path):
    before = TENSOR_BEFORE.replace("def derive", "def derive_old")
    findings = findings_of(tmp_path, _case(before, TENSOR_AFTER))
    (f,) = [f for f in findings if f.rule_id == "DRIFT060"]
    assert f.fix.codemod is None
