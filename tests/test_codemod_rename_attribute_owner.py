"""rename_attribute_owner: before/after/idempotence on synthetic code (libcst's CodemodTest shape)."""

from __future__ import annotations

from libcst.codemod import CodemodTest

from drift.fixes.kinds import run_codemod
from drift.fixes.kinds.rename_attribute_owner import RenameAttributeOwner
from tests.rule_cases import line_of, src

MOVE = {"attr": "max_model_len", "old": "scheduler_config", "new": "model_config"}


class TestRenameAttributeOwner(CodemodTest):
    TRANSFORM = RenameAttributeOwner

    def check(self, before: str, after: str, needle: str) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), **MOVE)
        # a second run finds the read through the new owner: nothing changes
        self.assertCodemod(after, after, line=line_of(before, needle), **MOVE)

    def test_the_owner_step_changes_and_the_prefix_stays(self) -> None:
        self.check("""
            class Runner:
                def size(self):
                    n = self.vllm_config.scheduler_config.max_model_len  # tokens
                    return self.scheduler_config.max_num_seqs * n
            """, """
            class Runner:
                def size(self):
                    n = self.vllm_config.model_config.max_model_len  # tokens
                    return self.scheduler_config.max_num_seqs * n
            """, "max_model_len")

    def test_every_read_on_the_line_and_only_there(self) -> None:
        self.check("""
            a = cfg.scheduler_config.max_model_len
            b = max(cfg.scheduler_config.max_model_len, cfg.scheduler_config.max_model_len + 1)
            """, """
            a = cfg.scheduler_config.max_model_len
            b = max(cfg.model_config.max_model_len, cfg.model_config.max_model_len + 1)
            """, "b = max")

    def test_a_read_inside_a_multi_line_call(self) -> None:
        self.check("""
            raise ValueError(
                f"prompt too long: {n} > "
                f"{self.vllm_config.scheduler_config.max_model_len}"
            )
            """, """
            raise ValueError(
                f"prompt too long: {n} > "
                f"{self.vllm_config.model_config.max_model_len}"
            )
            """, "scheduler_config")

    def test_another_attribute_of_the_old_owner_is_not_found(self) -> None:
        before = src("""
            n = cfg.scheduler_config.max_num_seqs
            """)
        new, outcome = run_codemod(before, "rename_attribute_owner", line=1, args=MOVE)
        assert new == before and outcome.status == "not_found" and "scheduler_config.max_model_len" in outcome.reason
