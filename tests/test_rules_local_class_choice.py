"""DRIFT061 does not call an attribute retyped when the target builds it from a class chosen into
a local (`attn_cls = EncoderOnlyAttention if ... else Attention; self.attn = attn_cls(...)`, vLLM
0.10.2's Qwen2Attention): the local may hold the very class the baseline built, so nothing shows
the type changed (vllm-ascend 0.10.1rc1 read `self.attn.impl`). A builtin's call (`dict()`) still
names its type."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = {"gizmo/layers.py": """
    class Attention:
        def __init__(self, heads):
            self.impl = heads


    class EncoderOnlyAttention(Attention):
        pass


    class Qwen:
        def __init__(self, heads, encoder):
            self.attn = Attention(heads)
            self.table = Attention(heads)
    """}
AFTER = {"gizmo/layers.py": BEFORE["gizmo/layers.py"].replace(
    "            self.attn = Attention(heads)\n            self.table = Attention(heads)\n",
    "            attn_cls = EncoderOnlyAttention if encoder else Attention\n"
    "            self.attn = attn_cls(heads)\n            self.table = dict()\n")}
CONSUMER = """
    from gizmo.layers import Qwen


    class MyQwen(Qwen):
        def run(self):
            return self.attn.impl

        def rows(self):
            return self.table.impl
    """


def test_a_class_chosen_into_a_local_is_no_retyping(tmp_path):
    assert "attn_cls(heads)" in AFTER["gizmo/layers.py"]
    found = findings_of(tmp_path, Case("local", BEFORE, AFTER, {"app/__init__.py": "", "app/q.py": CONSUMER}))
    assert_findings(found, [("DRIFT061", line_of(CONSUMER, "self.table.impl"))])
