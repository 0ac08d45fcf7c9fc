"""A call edit is refused where the callee is a local name that may hold another callable.

vllm-ascend 0.11 builds its attention with `attn_cls(..., rope_theta=rope_theta, ...)`, where
`attn_cls` is its own SFA class in one branch and vLLM's `DeepseekV2Attention` in the other. The
evidence for dropping `rope_theta=` (vLLM 0.13's own rewrite of that call) is about vLLM's class;
the consumer's class still takes `rope_theta` and would silently fall back to its default. So the
call codemods (through `SiteCodemod.calls_here`) leave such a call alone and say why; a local bound
once, or a module-level name, is edited as before. libcst's CodemodTest shape.
"""

from __future__ import annotations

from libcst.codemod import CodemodTest

from drift.fixes.kinds.add_keyword import AddKeyword
from drift.fixes.kinds.drop_keyword import DropKeyword
from drift.fixes.kinds.rename_keyword import RenameKeyword
from tests.rule_cases import line_of, src

BRANCHED = """
    def build(flag, theta):
        if flag:
            attn_cls = MyAttention
        else:
            attn_cls = Attention
        return attn_cls(hidden=4, rope_theta=theta)
    """


class TestDropKeywordSharedCallee(CodemodTest):
    TRANSFORM = DropKeyword

    def test_a_local_bound_in_two_branches_is_left_alone(self) -> None:
        before = src(BRANCHED)
        self.assertCodemod(before, before, line=line_of(before, "return"), callee="attn_cls", keyword="rope_theta")

    def test_a_parameter_callee_is_left_alone(self) -> None:
        before = src("""
            def build(attn_cls, theta):
                return attn_cls(hidden=4, rope_theta=theta)
            """)
        self.assertCodemod(before, before, line=line_of(before, "return"), callee="attn_cls", keyword="rope_theta")

    def test_a_local_bound_once_is_edited_and_a_second_run_changes_nothing(self) -> None:
        before = src("""
            def build(theta):
                attn_cls = Attention
                return attn_cls(hidden=4, rope_theta=theta)
            """)
        after = src("""
            def build(theta):
                attn_cls = Attention
                return attn_cls(hidden=4)
            """)
        self.assertCodemod(before, after, line=line_of(before, "return"), callee="attn_cls", keyword="rope_theta")
        self.assertCodemod(after, after, line=line_of(before, "return"), callee="attn_cls", keyword="rope_theta")

    def test_a_name_bound_twice_in_a_nested_function_does_not_count(self) -> None:
        before = src("""
            def build(theta):
                def other():
                    attn_cls = MyAttention
                    attn_cls = Attention
                return Attention(hidden=4, rope_theta=theta)
            """)
        after = src("""
            def build(theta):
                def other():
                    attn_cls = MyAttention
                    attn_cls = Attention
                return Attention(hidden=4)
            """)
        self.assertCodemod(before, after, line=line_of(before, "return"), callee="Attention", keyword="rope_theta")


class TestAddKeywordSharedCallee(CodemodTest):
    TRANSFORM = AddKeyword

    def test_a_local_bound_in_two_branches_gets_no_keyword(self) -> None:
        before = src(BRANCHED)
        self.assertCodemod(before, before, line=line_of(before, "return"), callee="attn_cls", keyword="dtype",
                           value="None")


class TestRenameKeywordSharedCallee(CodemodTest):
    TRANSFORM = RenameKeyword

    def test_a_local_bound_in_two_branches_keeps_its_keyword(self) -> None:
        before = src(BRANCHED)
        self.assertCodemod(before, before, line=line_of(before, "return"), callee="attn_cls", old="rope_theta",
                           new="rope_parameters")

    def test_a_module_level_name_is_renamed(self) -> None:
        before = src("""
            def build(theta):
                return Attention(hidden=4, rope_theta=theta)
            """)
        after = src("""
            def build(theta):
                return Attention(hidden=4, rope_parameters=theta)
            """)
        self.assertCodemod(before, after, line=line_of(before, "return"), callee="Attention", old="rope_theta",
                           new="rope_parameters")
