"""build_from_factory: before/after/idempotence on synthetic code (libcst's CodemodTest shape)."""

from __future__ import annotations

from libcst.codemod import CodemodTest

from drift.fixes.kinds.build_from_factory import BuildFromFactory
from tests.rule_cases import line_of, src

ARGS = {"module": "vllm.utils", "name": "logger", "factory_module": "vllm.logger", "factory": "init_logger",
        "call": 'init_logger("vllm.utils")'}


class TestBuildFromFactory(CodemodTest):
    TRANSFORM = BuildFromFactory

    def check(self, before: str, after: str, needle: str, **kwargs) -> None:
        before, after = src(before), src(after)
        args = {**ARGS, **kwargs}
        self.assertCodemod(before, after, line=line_of(before, needle), **args)
        # a second run finds the value built where the import was: nothing changes
        self.assertCodemod(after, after, line=line_of(before, needle), **args)

    def test_one_name_of_a_statement_is_built_after_the_import_block(self) -> None:
        self.check("""
            import os

            from vllm.utils import logger, sha256
            from vllm.v1.core import BlockPool


            class Pool(BlockPool):
                pass
            """, """
            import os

            from vllm.utils import sha256
            from vllm.logger import init_logger
            from vllm.v1.core import BlockPool

            logger = init_logger("vllm.utils")


            class Pool(BlockPool):
                pass
            """, "from vllm.utils")

    def test_the_factory_joins_an_import_of_its_module_and_the_statement_goes(self) -> None:
        self.check("""
            from vllm.logger import enable_trace, logger_level
            from vllm.utils import logger

            x = 1
            """, """
            from vllm.logger import enable_trace, init_logger, logger_level

            logger = init_logger("vllm.utils")

            x = 1
            """, "from vllm.utils")

    def test_a_factory_already_imported_is_not_imported_again(self) -> None:
        self.check("""
            from vllm.logger import init_logger
            from vllm.utils import logger
            """, """
            from vllm.logger import init_logger

            logger = init_logger("vllm.utils")
            """, "from vllm.utils")

    def test_an_import_inside_a_function_keeps_its_local_name(self) -> None:
        self.check("""
            def run():
                from vllm.utils import logger as log
                log.info("run")
            """, """
            def run():
                from vllm.logger import init_logger
                log = init_logger("vllm.utils")
                log.info("run")
            """, "from vllm.utils")

    def test_a_factory_name_bound_to_something_else_leaves_the_file_alone(self) -> None:
        before = src("""
            from mylib.logging import init_logger
            from vllm.utils import logger
            """)
        self.assertCodemod(before, before, line=2, **ARGS)
