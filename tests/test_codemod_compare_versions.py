"""compare_versions: before/after/idempotence on synthetic code (libcst's CodemodTest shape)."""

from __future__ import annotations

from libcst.codemod import CodemodTest

from drift.fixes.kinds import run_codemod
from drift.fixes.kinds.compare_versions import CompareVersions
from tests.rule_cases import line_of, src


class TestCompareVersions(CodemodTest):
    TRANSFORM = CompareVersions

    def check(self, before: str, after: str, needle: str, **args) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), **args)
        self.assertCodemod(after, after, line=line_of(after, needle), **args)  # a second run changes nothing

    def test_both_sides_become_versions_and_the_import_joins_the_block(self) -> None:
        self.check("""
            import os

            import vllm


            def setup():
                if vllm.__version__ >= "0.9.0":  # the V1 engine
                    os.environ["X"] = "1"
            """, """
            import os

            import vllm
            from packaging.version import Version


            def setup():
                if Version(vllm.__version__) >= Version("0.9.0"):  # the V1 engine
                    os.environ["X"] = "1"
            """, "__version__", op=">=", version="0.9.0")

    def test_an_assert_with_a_message_and_an_existing_import(self) -> None:
        self.check("""
            from packaging.version import Version
            import vllm

            assert vllm.__version__ > "0.8.2", "needs vllm > 0.8.2"
            """, """
            from packaging.version import Version
            import vllm

            assert Version(vllm.__version__) > Version("0.8.2"), "needs vllm > 0.8.2"
            """, "assert", op=">", version="0.8.2")

    def test_a_file_whose_version_is_another_name_is_left_alone(self) -> None:
        code = src("""
            import vllm
            Version = str

            ok = vllm.__version__ >= "0.9.0"
            """)
        new, outcome = run_codemod(code, "compare_versions", line=line_of(code, "ok ="), args={"op": ">=", "version": "0.9.0"})
        self.assertEqual((new, outcome.status), (code, "not_found"))
