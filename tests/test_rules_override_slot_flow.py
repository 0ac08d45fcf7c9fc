"""What the target hands an override flows on through the consumer's own calls: `get_handlers`
overrides a hook whose `kv_caches` the baseline declared a `dict[str, Tensor]` and the target
declares a `CanonicalKVCaches`; the override hands it to a helper class, whose static method calls
`.items()` on it two calls deep. DRIFT061 at that call, naming both types; a member the new class
has (`.tensors`) is silent, and so is a consumer method no target hook reaches."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/spec.py": """
    import torch


    class OffloadingSpec:
        def get_handlers(self, kv_caches: dict[str, torch.Tensor]):
            raise NotImplementedError
    """}
AFTER = {"gizmo/spec.py": """
    from dataclasses import dataclass


    @dataclass
    class CanonicalKVCaches:
        tensors: list


    class OffloadingSpec:
        def get_handlers(self, kv_caches: CanonicalKVCaches):
            raise NotImplementedError
    """}
CONSUMER = {"app/spec.py": """
    import torch

    from gizmo.spec import OffloadingSpec


    class Handlers:
        def __init__(self, kv_caches: dict[str, torch.Tensor]):
            self.tensors = self._get(kv_caches)

        @staticmethod
        def _get(kv_caches: dict[str, torch.Tensor]):
            return [t for _name, t in kv_caches.items()]

        @staticmethod
        def _count(kv_caches):
            return len(kv_caches.tensors)


    class MySpec(OffloadingSpec):
        def get_handlers(self, kv_caches: dict[str, torch.Tensor]):
            Handlers._count(kv_caches)
            return Handlers(kv_caches=kv_caches)


    def unrelated(kv_caches: dict[str, torch.Tensor]):
        return list(kv_caches.items())
    """}


def test_a_hooks_argument_is_followed_into_the_consumers_helpers(tmp_path):
    src = CONSUMER["app/spec.py"]
    found = [f for f in findings_of(tmp_path, Case("slot-flow", BEFORE, AFTER, CONSUMER))
             if f.rule_id in ("DRIFT060", "DRIFT061") and f.consumer_site.path == "app/spec.py"]
    assert [(f.rule_id, f.consumer_site.line) for f in found] == [
        ("DRIFT061", line_of(src, "for _name, t in kv_caches.items()"))], [f.title for f in found]
    assert found[0].title == ("`kv_caches` is now CanonicalKVCaches, not a `dict[str, torch.Tensor]`: "
                              "`.items` is `dict[str, torch.Tensor]`'s")
    assert found[0].predicted_failure == "AttributeError: 'CanonicalKVCaches' object has no attribute 'items'"
