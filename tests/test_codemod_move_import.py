"""move_import: before/after/idempotence on synthetic code (libcst's CodemodTest shape)."""

from __future__ import annotations

from libcst.codemod import CodemodTest

from drift.fixes.kinds.move_import import MoveImport
from tests.rule_cases import line_of, src


class TestMoveImport(CodemodTest):
    TRANSFORM = MoveImport

    def check(self, before: str, after: str, needle: str, **kwargs) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), **kwargs)
        # a second run finds the names where they moved: nothing changes
        self.assertCodemod(after, after, line=line_of(before, needle), **kwargs)

    def test_the_whole_statement_moves(self) -> None:
        self.check("""
            import os
            from vllm.utils import cdiv  # rounding up
            x = cdiv(7, 2)
            """, """
            import os
            from vllm.utils.math_utils import cdiv  # rounding up
            x = cdiv(7, 2)
            """, "from vllm.utils", module="vllm.utils", moves={"cdiv": "vllm.utils.math_utils"})

    def test_one_name_of_several_moves_and_keeps_its_alias(self) -> None:
        self.check("""
            from vllm.utils import FlexibleArgumentParser as Parser, random_uuid
            p = Parser()
            """, """
            from vllm.utils import random_uuid
            from vllm.utils.argparse_utils import FlexibleArgumentParser as Parser
            p = Parser()
            """, "from vllm.utils", module="vllm.utils",
            moves={"FlexibleArgumentParser": "vllm.utils.argparse_utils"})

    def test_joins_an_existing_import_of_the_new_module_in_order(self) -> None:
        self.check("""
            from vllm.utils import cdiv, random_uuid
            from vllm.utils.math_utils import next_power_of_2, round_up
            """, """
            from vllm.utils import random_uuid
            from vllm.utils.math_utils import cdiv, next_power_of_2, round_up
            """, "from vllm.utils import", module="vllm.utils", moves={"cdiv": "vllm.utils.math_utils"})

    def test_parenthesized_multi_line_import(self) -> None:
        self.check("""
            def f():
                from vllm.utils import (
                    get_open_port,
                    get_tcp_uri,
                    random_uuid,
                )
                return get_open_port()
            """, """
            def f():
                from vllm.utils import (
                    random_uuid,
                )
                from vllm.utils.network_utils import get_open_port, get_tcp_uri
                return get_open_port()
            """, "from vllm.utils", module="vllm.utils",
            moves={"get_open_port": "vllm.utils.network_utils", "get_tcp_uri": "vllm.utils.network_utils"})

    def test_nothing_at_the_line_is_not_found(self) -> None:
        before = src("""
            from vllm.other import thing
            """)
        from drift.fixes.kinds import run_codemod

        new, outcome = run_codemod(before, "move_import", line=1,
                                   args={"module": "vllm.utils", "moves": {"cdiv": "vllm.utils.math_utils"}})
        assert new == before and outcome.status == "not_found" and "vllm.utils" in outcome.reason
