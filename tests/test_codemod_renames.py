"""rename_keyword, rename_attribute, rename_import: before/after/idempotence on synthetic code
(libcst's CodemodTest shape); the renames a baseline's deprecation code names."""

from __future__ import annotations

from typing import ClassVar

from libcst.codemod import CodemodTest

from drift.fixes.kinds import run_codemod
from drift.fixes.kinds.rename_attribute import RenameAttribute
from drift.fixes.kinds.rename_import import RenameImport
from drift.fixes.kinds.rename_keyword import RenameKeyword
from tests.rule_cases import line_of, src


class _Twice(CodemodTest):
    def check(self, before: str, after: str, needle: str, **args) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), **args)
        self.assertCodemod(after, after, line=line_of(before, needle), **args)  # a second run: no change


class TestRenameKeyword(_Twice):
    TRANSFORM = RenameKeyword
    ARGS: ClassVar[dict] = {"callee": "SamplingParams", "old": "guided_decoding", "new": "structured_outputs"}

    def test_the_keyword_is_renamed_and_its_value_kept(self) -> None:
        self.check("""
            p = SamplingParams(
                temperature=0.0,
                guided_decoding=GuidedDecodingParams(regex=r"\\d+"),  # the constraint
            )
            """, """
            p = SamplingParams(
                temperature=0.0,
                structured_outputs=GuidedDecodingParams(regex=r"\\d+"),  # the constraint
            )
            """, "guided_decoding=", **self.ARGS)

    def test_a_dict_key_reaching_kwargs(self) -> None:
        self.check("""
            kwargs = {'temperature': 0.0, 'guided_decoding': g}
            p = SamplingParams(**kwargs)
            """, """
            kwargs = {'temperature': 0.0, 'structured_outputs': g}
            p = SamplingParams(**kwargs)
            """, "'guided_decoding'", **self.ARGS)

    def test_dict_call_keywords_and_subscript_keys(self) -> None:
        self.check("""
            kwargs = dict(n=1, guided_decoding=g)
            """, """
            kwargs = dict(n=1, structured_outputs=g)
            """, "guided_decoding", **self.ARGS)
        self.check("""
            kwargs["guided_decoding"] = g
            """, """
            kwargs["structured_outputs"] = g
            """, "guided_decoding", **self.ARGS)

    def test_a_converting_shim_converts_the_value(self) -> None:
        self.check("""
            AsyncLLM.from_vllm_config(cfg, disable_log_requests=args.quiet or debug)
            """, """
            AsyncLLM.from_vllm_config(cfg, enable_log_requests=not (args.quiet or debug))
            """, "from_vllm_config", callee="from_vllm_config", old="disable_log_requests",
            new="enable_log_requests", convert="not")
        self.check("""
            SamplingParams(n=1, guided_decoding=spec)
            """, """
            SamplingParams(n=1, structured_outputs=StructuredOutputsParams(**spec))
            """, "SamplingParams", **self.ARGS, convert="StructuredOutputsParams(**{})")

    def test_both_keywords_passed_is_left_for_a_person(self) -> None:
        code = src("SamplingParams(guided_decoding=a, structured_outputs=b)\n")
        new, outcome = run_codemod(code, "rename_keyword", line=1, args=self.ARGS)
        self.assertEqual((new, outcome.status), (code, "not_found"))


class TestRenameAttribute(_Twice):
    TRANSFORM = RenameAttribute

    def test_a_read_is_renamed(self) -> None:
        self.check("""
            if cfg.compilation_config.pass_config.enable_sequence_parallelism:
                use_sp = True
            """, """
            if cfg.compilation_config.pass_config.enable_sp:
                use_sp = True
            """, "enable_sequence", old="enable_sequence_parallelism", new="enable_sp")

    def test_an_inverting_property_becomes_not(self) -> None:
        args = {"old": "disable_log_requests", "new": "enable_log_requests", "convert": "not"}
        self.check("""
            quiet = engine_args.disable_log_requests
            """, """
            quiet = not engine_args.enable_log_requests
            """, "quiet", **args)
        self.check("""
            flags = [engine_args.disable_log_requests] * 2
            """, """
            flags = [(not engine_args.enable_log_requests)] * 2
            """, "flags", **args)

    def test_an_assignment_with_a_conversion_is_not_rewritten(self) -> None:
        code = src("engine_args.disable_log_requests = True\n")
        new, outcome = run_codemod(code, "rename_attribute", line=1,
                                   args={"old": "disable_log_requests", "new": "enable_log_requests", "convert": "not"})
        self.assertEqual((new, outcome.status), (code, "not_found"))


class TestRenameImport(_Twice):
    TRANSFORM = RenameImport
    ARGS: ClassVar[dict] = {"old": "GuidedDecodingParams", "new": "StructuredOutputsParams"}

    def test_the_import_and_every_use(self) -> None:
        self.check("""
            from vllm.sampling_params import GuidedDecodingParams, SamplingParams


            def params(regex: str) -> "GuidedDecodingParams":
                g: GuidedDecodingParams = GuidedDecodingParams(regex=regex)
                return g


            def other():
                GuidedDecodingParams = dict  # a local of the same name: not the import
                return GuidedDecodingParams()
            """, """
            from vllm.sampling_params import StructuredOutputsParams, SamplingParams


            def params(regex: str) -> "StructuredOutputsParams":
                g: StructuredOutputsParams = StructuredOutputsParams(regex=regex)
                return g


            def other():
                GuidedDecodingParams = dict  # a local of the same name: not the import
                return GuidedDecodingParams()
            """, "import GuidedDecodingParams", **self.ARGS)

    def test_an_aliased_import_changes_only_the_imported_name(self) -> None:
        self.check("""
            from vllm.sampling_params import GuidedDecodingParams as GDP
            x = GDP(json={})
            """, """
            from vllm.sampling_params import StructuredOutputsParams as GDP
            x = GDP(json={})
            """, "import", **self.ARGS)

    def test_a_name_bound_twice_keeps_its_local_name(self) -> None:
        self.check("""
            try:
                from vllm.sampling_params import GuidedDecodingParams
            except ImportError:
                GuidedDecodingParams = None
            x = GuidedDecodingParams
            """, """
            try:
                from vllm.sampling_params import StructuredOutputsParams as GuidedDecodingParams
            except ImportError:
                GuidedDecodingParams = None
            x = GuidedDecodingParams
            """, "import", **self.ARGS)
