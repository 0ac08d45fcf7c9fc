"""VLLM001 on a tiny fake `vllm`: a hand-built Request without a block hasher under prefix caching."""

from __future__ import annotations

import ast

import pytest

from drift.analysis.rules.vllm.block_hasher import HELPER_NAME
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only

CACHE = """
    from dataclasses import dataclass


    @dataclass
    class CacheConfig:
        block_size: int = 16
        enable_prefix_caching: bool | None = {default}
        prefix_caching_hash_algo: str = "sha256"
    """

FAKE_VLLM = {
    "vllm/__init__.py": "",
    "vllm/config/__init__.py": """
        from vllm.config.cache import CacheConfig

        __all__ = ["CacheConfig"]
        """,
    "vllm/v1/request.py": """
        class Request:
            def __init__(self, request_id, prompt_token_ids, block_hasher=None):
                self.request_id = request_id
                self.prompt_token_ids = prompt_token_ids
                self.block_hashes = []
                self._block_hasher = block_hasher
        """,
    "vllm/v1/core/block_pool.py": """
        class BlockPool:
            def cache_full_blocks(self, request, num_full_blocks):
                assert len(request.block_hashes) >= num_full_blocks
                return request.block_hashes[:num_full_blocks]
        """,
    "vllm/v1/core/kv_cache_utils.py": """
        NONE_HASH = None


        def init_none_hash(hash_fn):
            global NONE_HASH
            NONE_HASH = hash_fn(b"")


        def get_request_block_hasher(block_size, hash_fn):
            def hasher(request):
                return [hash_fn(bytes(request.prompt_token_ids[i:i + block_size]))]
            return hasher
        """,
    "vllm/utils/hashing.py": """
        import hashlib


        def get_hash_fn_by_name(name):
            return getattr(hashlib, name)
        """,
    "vllm/v1/core/sched/scheduler.py": """
        class Scheduler:
            def __init__(self, vllm_config, log_stats=False):
                self.vllm_config = vllm_config
        """,
}
BEFORE = {**FAKE_VLLM, "vllm/config/cache.py": CACHE.format(default="None")}
AFTER = {**FAKE_VLLM, "vllm/config/cache.py": CACHE.format(default="True")}
AFTER_NO_ASSERT = {**AFTER, "vllm/v1/core/block_pool.py": """
    class BlockPool:
        def cache_full_blocks(self, request, num_full_blocks):
            return request.block_hashes[:num_full_blocks]
    """}

GENERATOR = """
    from vllm.config import CacheConfig
    from vllm.v1.core.sched.scheduler import Scheduler
    from vllm.v1.request import Request


    class Generator:
        def __init__(self, vllm_config):
            self.vllm_config = vllm_config
            self.scheduler = Scheduler(vllm_config=self.vllm_config)

        def add(self, rid, ids):
            req = Request(request_id=rid, prompt_token_ids=ids)
            return req
    """
REQUEST_LINE = line_of(GENERATOR, "Request(request_id=rid")
PREFIX_CACHING_OFF = GENERATOR.replace(
    "            self.vllm_config = vllm_config\n",
    "            self.vllm_config = vllm_config\n"
    "            self.cache = CacheConfig(block_size=16, enable_prefix_caching=False)\n")
PASSES_HASHER = GENERATOR.replace("prompt_token_ids=ids)", "prompt_token_ids=ids, block_hasher=None)")
NO_VLLM_CONFIG = GENERATOR.replace("Scheduler(vllm_config=self.vllm_config)", "Scheduler(self.vllm_config)")


def case(cid, before, after, consumer, expected):
    return Case(cid, before, after, {"app/gen.py": consumer}, expected)


CASES = [
    case("request-without-hasher", BEFORE, AFTER, GENERATOR, [("VLLM001", REQUEST_LINE)]),
    case("prefix-caching-turned-off", BEFORE, AFTER, PREFIX_CACHING_OFF, []),
    case("hasher-passed", BEFORE, AFTER, PASSES_HASHER, []),
    case("prefix-caching-off-by-default", BEFORE, BEFORE, GENERATOR, []),
    case("nothing-asserts-on-block-hashes", BEFORE, AFTER_NO_ASSERT, GENERATOR, []),
    case("no-vllm-config-to-build-from", BEFORE, AFTER, NO_VLLM_CONFIG, [("VLLM001", REQUEST_LINE)]),
]
BY_ID = {c.id: c for c in CASES}


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_block_hasher_rule(tmp_path, c):
    assert_findings(findings_of(tmp_path, c, lib="vllm"), c.expected)


def test_fix_adds_the_keyword_with_a_helper_built_from_the_consumers_config(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["request-without-hasher"], lib="vllm"), "VLLM001")
    assert f.predicted_failure.startswith("AssertionError: assert len(request.block_hashes) >= num_full_blocks")
    assert "BlockPool.cache_full_blocks" in f.predicted_failure
    ev = [(e.path, e.line) for e in f.target_evidence]
    assert ("vllm/v1/core/block_pool.py", 3) in ev
    assert ("vllm/config/cache.py", line_of(CACHE, "enable_prefix_caching")) in ev
    assert [e.snippet for e in f.baseline_evidence] == ["enable_prefix_caching: bool | None = None"]
    assert f.fix.codemod == "add_keyword"
    args = f.fix.args
    assert (args["callee"], args["keyword"], args["value"]) == ("Request", "block_hasher",
                                                                f"{HELPER_NAME}(self.vllm_config)")
    assert sorted(map(tuple, args["imports"])) == [
        ("vllm.utils.hashing", "get_hash_fn_by_name"),
        ("vllm.v1.core.kv_cache_utils", "get_request_block_hasher"),
        ("vllm.v1.core.kv_cache_utils", "init_none_hash"),
    ]
    assert args["helper_name"] == HELPER_NAME
    helper = ast.parse(args["helper_src"])
    assert [n.name for n in helper.body] == [HELPER_NAME]
    called = {n.func.id for n in ast.walk(helper) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert {"get_request_block_hasher", "init_none_hash", "get_hash_fn_by_name"} <= called


def test_without_a_vllm_config_the_fix_is_manual(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["no-vllm-config-to-build-from"], lib="vllm"), "VLLM001")
    assert f.fix.codemod is None and "vllm_config" in f.fix.manual_reason
