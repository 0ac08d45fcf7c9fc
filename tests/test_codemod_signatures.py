"""keywordize_arguments and add_parameters: before/after/idempotence on synthetic code (libcst's
CodemodTest shape), plus the sites each one must refuse rather than guess."""

from __future__ import annotations

from libcst.codemod import CodemodTest

from drift.fixes.kinds import run_codemod
from drift.fixes.kinds.add_parameters import AddParameters
from drift.fixes.kinds.keywordize_arguments import KeywordizeArguments
from tests.rule_cases import line_of, src


class TestKeywordizeArguments(CodemodTest):
    TRANSFORM = KeywordizeArguments

    def check(self, before: str, after: str, needle: str, **args) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), **args)
        # a second run finds nothing positional past the slot: nothing changes
        self.assertCodemod(after, after, line=line_of(before, needle), **args)

    def test_super_init_arguments_after_the_insert_get_the_baseline_names(self) -> None:
        self.check("""
            class BalanceScheduler(Scheduler):
                def __init__(self, vllm_config, kv_cache_config, block_size, mm_registry, log_stats=False):
                    super().__init__(
                        vllm_config,
                        kv_cache_config,
                        block_size,
                        mm_registry,  # the registry
                        log_stats,
                    )
            """, """
            class BalanceScheduler(Scheduler):
                def __init__(self, vllm_config, kv_cache_config, block_size, mm_registry, log_stats=False):
                    super().__init__(
                        vllm_config,
                        kv_cache_config,
                        block_size,
                        mm_registry=mm_registry,  # the registry
                        log_stats=log_stats,
                    )
            """, "super().__init__", callee="__init__", start=3, names=["mm_registry", "log_stats"])

    def test_a_plain_call_with_keywords_already_after_it(self) -> None:
        self.check("""
            pool = BlockPool(num_blocks, True, False, hash_fn=h)
            """, """
            pool = BlockPool(num_blocks, True, enable_kv_cache_events=False, hash_fn=h)
            """, "BlockPool", callee="BlockPool", start=2, names=["enable_kv_cache_events"])

    def test_more_arguments_than_named_slots_is_not_found(self) -> None:
        before = "f(a, b, c)\n"
        new, out = run_codemod(before, "keywordize_arguments", line=1,
                               args={"callee": "f", "start": 1, "names": ["b"]})
        assert (new, out.status) == (before, "not_found") and "only 2 have a name" in out.reason

    def test_a_name_already_passed_by_keyword_is_not_found(self) -> None:
        before = "f(a, b, b=1)\n"
        new, out = run_codemod(before, "keywordize_arguments", line=1,
                               args={"callee": "f", "start": 1, "names": ["b"]})
        assert (new, out.status) == (before, "not_found") and "already passes b=" in out.reason

    def test_star_args_at_the_call_is_not_found(self) -> None:
        before = "f(a, *rest)\n"
        new, out = run_codemod(before, "keywordize_arguments", line=1,
                               args={"callee": "f", "start": 0, "names": ["a"]})
        assert (new, out.status) == (before, "not_found")


class TestAddParameters(CodemodTest):
    TRANSFORM = AddParameters

    def check(self, before: str, after: str, needle: str, **args) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), **args)
        self.assertCodemod(after, after, line=line_of(before, needle), **args)

    def test_override_takes_and_forwards_the_new_parameter(self) -> None:
        self.check("""
            class BalanceScheduler(Scheduler):
                def __init__(
                    self,
                    vllm_config,
                    block_size: int,
                    mm_registry=MULTIMODAL_REGISTRY,
                    log_stats: bool = False,
                ) -> None:
                    super().__init__(
                        vllm_config,
                        block_size,
                        mm_registry=mm_registry,
                        log_stats=log_stats,
                    )
                    self.balance = True
            """, """
            class BalanceScheduler(Scheduler):
                def __init__(
                    self,
                    vllm_config,
                    block_size: int,
                    hash_block_size=None,
                    mm_registry=MULTIMODAL_REGISTRY,
                    log_stats: bool = False,
                ) -> None:
                    super().__init__(
                        vllm_config,
                        block_size,
                        mm_registry=mm_registry,
                        log_stats=log_stats,
                        hash_block_size=hash_block_size,
                    )
                    self.balance = True
            """, "def __init__", function="__init__", params=[["hash_block_size", "None", "block_size"]],
            forward="__init__")

    def test_one_line_signature_and_a_patched_function_forwarding_to_the_original(self) -> None:
        self.check("""
            _orig_cache = BlockPool.cache_full_blocks

            def _patched_cache(self, request, blocks, num_cached, num_full, block_size, kv_group):
                return _orig_cache(self, request, blocks, num_cached, num_full, block_size, kv_group)
            """, """
            _orig_cache = BlockPool.cache_full_blocks

            def _patched_cache(self, request, blocks, num_cached, num_full, block_size, kv_group, block_mask=None):
                return _orig_cache(self, request, blocks, num_cached, num_full, block_size, kv_group, block_mask=block_mask)
            """, "def _patched", function="_patched_cache", params=[["block_mask", "None", "kv_group"]],
            forward="_orig_cache")

    def test_without_forwarding_only_the_parameter_is_added(self) -> None:
        self.check("""
            class Stats(StatLoggerBase):
                def record(self, scheduler_stats, iteration_stats, engine_idx=0):
                    self.n += 1
            """, """
            class Stats(StatLoggerBase):
                def record(self, scheduler_stats, iteration_stats, mm_cache_stats=None, engine_idx=0):
                    self.n += 1
            """, "def record", function="record", params=[["mm_cache_stats", "None", "iteration_stats"]])

    def test_an_ignored_parameter_goes_last_when_the_body_reads_no_such_name(self) -> None:
        self.check("""
            class ElasticPool(BlockPool):
                def cache_full_blocks(self, request, blocks, num_cached, num_full, block_size, group_id):
                    for block in blocks[num_cached:num_full]:
                        self.cached[(block.block_hash, group_id)] = block
            """, """
            class ElasticPool(BlockPool):
                def cache_full_blocks(self, request, blocks, num_cached, num_full, block_size, group_id, block_mask=None):
                    for block in blocks[num_cached:num_full]:
                        self.cached[(block.block_hash, group_id)] = block
            """, "def cache_full_blocks", function="cache_full_blocks", params=[["block_mask", "None", "group_id"]])

    def test_a_trailing_comma_stays_last_and_comments_stay_put(self) -> None:
        self.check("""
            class AscendEagle(EagleSpeculator):
                def propose(
                    self,
                    input_batch,
                    # [max_num_reqs]
                    seeds,
                ):
                    return super().propose(
                        input_batch,
                        seeds,
                    )
            """, """
            class AscendEagle(EagleSpeculator):
                def propose(
                    self,
                    input_batch,
                    # [max_num_reqs]
                    seeds,
                    mm_inputs=None,
                    is_profile=False,
                ):
                    return super().propose(
                        input_batch,
                        seeds,
                        mm_inputs=mm_inputs,
                        is_profile=is_profile,
                    )
            """, "def propose", function="propose",
            params=[["mm_inputs", "None", "seeds"], ["is_profile", "False", "mm_inputs"]], forward="propose")

    def test_before_keyword_only_parameters(self) -> None:
        self.check("""
            def m(self, a, *, k=1):
                return super().m(a, k=k)
            """, """
            def m(self, a, b=None, *, k=1):
                return super().m(a, k=k, b=b)
            """, "def m", function="m", params=[["b", "None", "a"]], forward="m")

    def test_kwargs_already_takes_it(self) -> None:
        before = "def m(self, a, **kw):\n    return super().m(a, **kw)\n"
        new, out = run_codemod(before, "add_parameters", line=1,
                               args={"function": "m", "params": [["b", "None", "a"]], "forward": "m"})
        assert (new, out.status) == (before, "already")

    def test_a_required_parameter_after_a_default_is_refused(self) -> None:
        before = "def m(self, a=1):\n    return super().m(a)\n"
        new, out = run_codemod(before, "add_parameters", line=1,
                               args={"function": "m", "params": [["b", None, "a"]], "forward": "m"})
        assert (new, out.status) == (before, "not_found") and "cannot follow" in out.reason

    def test_an_ignored_parameter_that_would_shadow_a_name_the_body_reads_is_refused(self) -> None:
        # `block_mask` is a module global the body reads: a parameter of that name would hide it
        before = ("block_mask = [True]\n\nclass P(B):\n    def cache(self, blocks):\n"
                  "        return [b for b, m in zip(blocks, block_mask) if m]\n")
        new, out = run_codemod(before, "add_parameters", line=4,
                               args={"function": "cache", "params": [["block_mask", "None", "blocks"]]})
        assert (new, out.status) == (before, "not_found") and "would shadow it" in out.reason
        # an attribute or a keyword of the same name is not a read of that name
        ok = "class P(B):\n    def cache(self, blocks):\n        return self.block_mask or f(block_mask=1)\n"
        new, out = run_codemod(ok, "add_parameters", line=2,
                               args={"function": "cache", "params": [["block_mask", "None", "blocks"]]})
        assert out.status == "applied" and "def cache(self, blocks, block_mask=None):" in new

    def test_no_forward_call_is_not_found_and_nothing_is_half_done(self) -> None:
        before = "class S(B):\n    def m(self, a):\n        return a\n"
        new, out = run_codemod(before, "add_parameters", line=2,
                               args={"function": "m", "params": [["b", "None", "a"]], "forward": "m"})
        assert (new, out.status) == (before, "not_found") and "no call to m()" in out.reason


def test_add_parameters_copies_the_targets_annotation_only_where_the_def_already_writes_it():
    """A triton kernel's new `IS_KDA: tl.constexpr` keeps its annotation (the def annotates its
    other flags the same way, so `tl` resolves there); an annotation the def never writes is left
    out rather than naming something the consumer's module may not import."""
    before = (
        "@triton.jit\n"
        "def kernel(\n"
        "    q,\n"
        "    IS_VARLEN: tl.constexpr,\n"
        "    IS_SPEC_DECODING: tl.constexpr,\n"
        "):\n"
        "    pass\n"
    )
    args = {"function": "kernel", "params": [["IS_KDA", None, "IS_SPEC_DECODING", "tl.constexpr"],
                                             ["scale", None, "q", "torch.Tensor"]]}
    new, out = run_codemod(before, "add_parameters", line=2, args=args)
    assert out.status == "applied"
    assert new == before.replace("    q,\n", "    q,\n    scale,\n").replace(
        "    IS_SPEC_DECODING: tl.constexpr,\n", "    IS_SPEC_DECODING: tl.constexpr,\n    IS_KDA: tl.constexpr,\n")
    again, out2 = run_codemod(new, "add_parameters", line=2, args=args)
    assert again == new and out2.status == "already"
