"""DRIFT013 on a class whose `__init__` is abstract (`impl_cls = backend.get_impl_cls()`, then
`impl_cls(num_heads, head_size, ..., blocksparse_params, ...)`): the target dropped a parameter
in the middle, so the later arguments move up a slot, but the class built is one of the base's
implementations (a platform plugin's own, which may still take it): risky, not breaking."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

IMPL = """
    from abc import ABC, abstractmethod


    class AttentionImpl(ABC):
        @abstractmethod
        def __init__(self, num_heads: int, head_size: int, {middle}kv_cache_dtype: str = "auto",
                     attn_type: str = "decoder"):
            raise NotImplementedError


    class Backend:
        @staticmethod
        def get_impl_cls() -> type[AttentionImpl]:
            return AttentionImpl
    """
CONSUMER = {"app/layer.py": """
    from gizmo.backend import Backend


    class Layer:
        def __init__(self, sparse):
            impl_cls = Backend.get_impl_cls()
            self.impl = impl_cls(8, 64, sparse, "auto", "decoder")
    """}


def test_a_shift_on_an_abstract_init_is_risky(tmp_path):
    before = {"gizmo/backend.py": IMPL.format(middle="blocksparse_params: dict | None = None, ")}
    after = {"gizmo/backend.py": IMPL.format(middle="")}
    found = [f for f in findings_of(tmp_path, Case("abstract-shift", before, after, CONSUMER)) if f.rule_id == "DRIFT013"]
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [
        (line_of(CONSUMER["app/layer.py"], "impl_cls(8, 64"), "risky")], [f.title for f in found]
    assert "is abstract" in found[0].details
