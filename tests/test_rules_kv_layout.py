"""VLLM002 on a tiny fake `vllm`: a KV cache split on the axis its backend's shape no longer
holds K/V on (vLLM 0.26 packed FlashAttention's `(2, blocks, ...)` into `(blocks, ..., 2 * d)`)."""

from __future__ import annotations

import ast

import pytest

from drift.findings import Severity
from drift.probes.behaviour import function_behaviour
from drift.probes.splits import axis_splits
from drift.probes.srctext import SourceText
from drift.probes.usage import _functions
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, src

KV_FIRST = "(2, num_blocks, block_size, num_kv_heads, head_size)"
BLOCKS_SECOND = "(num_blocks, 2, block_size, num_kv_heads, head_size)"
PACKED = "(num_blocks, num_kv_heads, block_size, 2 * head_size)"

BACKEND = """
    class AttentionBackend:
        @staticmethod
        def get_kv_cache_shape(num_blocks, block_size, num_kv_heads, head_size):
            raise NotImplementedError

        @staticmethod
        def get_impl_cls():
            raise NotImplementedError


    class AttentionImpl:
        def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
            raise NotImplementedError
    """
FLASH = """
    from vllm.v1.attention.backend import AttentionBackend, AttentionImpl


    class FlashAttentionImpl(AttentionImpl):
        pass


    class FlashAttentionBackend(AttentionBackend):
        @staticmethod
        def get_impl_cls():
            return FlashAttentionImpl

        @staticmethod
        def get_kv_cache_shape(num_blocks, block_size, num_kv_heads, head_size, cache_dtype_str="auto"):
            if block_size % 16 != 0:
                raise ValueError("Block size must be a multiple of 16.")
            return {shape}
    """
LAYER = """
    import torch


    class Attention:
        def __init__(self, num_heads, head_size, pipeline_parallel_size=1):
            self.num_heads = num_heads
            self.kv_cache = {kv}
    """
PLATFORM = """
    class Platform:
        @classmethod
        def get_attn_backend_cls(cls, selected_backend, head_size, dtype):
            raise NotImplementedError
    """


def vllm(shape: str, kv: str = "[torch.tensor([]) for _ in range(pipeline_parallel_size)]") -> dict[str, str]:
    return {
        "vllm/__init__.py": "",
        "vllm/v1/attention/backend.py": BACKEND,
        "vllm/v1/attention/backends/flash_attn.py": FLASH.format(shape=shape),
        "vllm/model_executor/layers/attention/attention.py": LAYER.format(kv=kv),
        "vllm/platforms/interface.py": PLATFORM,
    }


BEFORE = vllm(KV_FIRST)
AFTER = vllm(PACKED, kv="torch.tensor([])")

IMPL = """
    from vllm.v1.attention.backend import AttentionImpl


    class ForestImpl(AttentionImpl):
        def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
            key_cache, value_cache = kv_cache.unbind(0)
            first = query.unbind(0)
            return key_cache, value_cache, first
    """
# The backend lives in another module and names the impl through a lazy relative import, as
# a plugin that swaps vLLM's backend does.
REGISTERED = """
    from vllm.v1.attention.backends.flash_attn import FlashAttentionBackend


    class ForestBackend(FlashAttentionBackend):
        @staticmethod
        def get_impl_cls():
            from .impl import ForestImpl
            return ForestImpl
    """
OWN_SHAPE = REGISTERED + """

        @staticmethod
        def get_kv_cache_shape(num_blocks, block_size, num_kv_heads, head_size):
            return (2, num_blocks, block_size, num_kv_heads, head_size)
    """
UNBIND_LINE = line_of(IMPL, "kv_cache.unbind(0)")

FORMS = """
    from vllm.v1.attention.backend import AttentionImpl


    class ForestImpl(AttentionImpl):
        def forward(self, layer, query, key, value, cache, attn_metadata, output=None):
            k0 = cache[0]
            v0 = cache[1]
            halves = cache.chunk(2, dim=0)
            k, v = cache
            on_blocks = cache[:, 0]
            return k0, v0, halves, k, v, on_blocks
    """

MODEL = """
    class SwiftModel:
        def __init__(self, layers):
            self.layers = layers

        def write(self, forward_context):
            for layer in self.layers:
                attn = layer.self_attn.attn
                kv_cache = attn.kv_cache[forward_context.virtual_engine]
                if kv_cache.numel():
                    k_cache, v_cache = kv_cache.unbind(0)
                    first_engine = attn.kv_cache[0]
    """
MODEL_FILE = """
    from vllm.model_executor.layers.attention.attention import Attention

    """ + MODEL
MODEL_UNBIND = line_of(MODEL_FILE, "kv_cache.unbind(0)")
PLUGIN_PLATFORM = """
    from vllm.platforms.interface import Platform


    class NPUPlatform(Platform):
        @classmethod
        def get_attn_backend_cls(cls, selected_backend, head_size, dtype):
            return "app.backend.NPUBackend"
    """


def case(cid, before, after, consumer, expected):
    return Case(cid, before, after, consumer, expected)


CASES = [
    case("impl-of-a-backend-inheriting-the-moved-shape", BEFORE, AFTER,
         {"app/impl.py": IMPL, "app/backend.py": REGISTERED}, [("VLLM002", UNBIND_LINE)]),
    case("layout-unchanged", BEFORE, vllm(KV_FIRST, kv="torch.tensor([])"),
         {"app/impl.py": IMPL, "app/backend.py": REGISTERED}, []),
    case("backend-owns-its-shape", BEFORE, AFTER, {"app/impl.py": IMPL, "app/backend.py": OWN_SHAPE}, []),
    case("impl-no-backend-returns", BEFORE, AFTER, {"app/impl.py": IMPL}, []),
    case("every-split-form-on-axis-0", BEFORE, AFTER, {"app/impl.py": FORMS, "app/backend.py": REGISTERED},
         [("VLLM002", line_of(FORMS, "cache[0]")), ("VLLM002", line_of(FORMS, "cache[1]")),
          ("VLLM002", line_of(FORMS, "cache.chunk")), ("VLLM002", line_of(FORMS, "k, v = cache"))]),
    case("blocks-first-baseline-split-on-axis-1", vllm(BLOCKS_SECOND), AFTER,
         {"app/impl.py": FORMS, "app/backend.py": REGISTERED}, [("VLLM002", line_of(FORMS, "cache[:, 0]"))]),
    case("layer-buffer-default-backend", BEFORE, AFTER, {"app/model.py": MODEL_FILE}, [("VLLM002", MODEL_UNBIND)]),
    case("layer-buffer-platform-plugin", BEFORE, AFTER,
         {"app/model.py": MODEL_FILE, "app/platform.py": PLUGIN_PLATFORM}, []),
    case("layer-buffer-layout-unchanged", BEFORE, vllm(KV_FIRST, kv="torch.tensor([])"),
         {"app/model.py": MODEL_FILE}, []),
]
BY_ID = {c.id: c for c in CASES}


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_kv_layout_rule(tmp_path, c):
    found = [f for f in findings_of(tmp_path, c, lib="vllm") if f.rule_id == "VLLM002"]
    assert_findings(tuple(found), c.expected)


def test_impl_finding_is_breaking_with_evidence_on_both_sides(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["impl-of-a-backend-inheriting-the-moved-shape"], lib="vllm"), "VLLM002")
    assert f.severity is Severity.BREAKING
    assert (f.consumer_site.path, f.consumer_site.line, f.consumer_site.col) == (
        "app/impl.py", UNBIND_LINE, src(IMPL).splitlines()[UNBIND_LINE - 1].index("kv_cache") + 1)
    shape_line = line_of(FLASH, "return {shape}")
    assert [(e.path, e.line, e.snippet) for e in f.target_evidence] == [
        ("vllm/v1/attention/backends/flash_attn.py", shape_line, f"return {PACKED}")]
    assert [(e.path, e.line, e.snippet) for e in f.baseline_evidence] == [
        ("vllm/v1/attention/backends/flash_attn.py", shape_line, f"return {KV_FIRST}")]
    assert f.symbol == "vllm.v1.attention.backends.flash_attn.FlashAttentionBackend.get_kv_cache_shape"
    assert f.predicted_failure.startswith("ValueError: too many values to unpack (expected 2)")
    assert "ForestBackend" in f.details and "axis 3" in f.title


def test_layer_buffer_finding_is_risky_and_names_the_default_backend(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["layer-buffer-default-backend"], lib="vllm"), "VLLM002")
    assert f.severity is Severity.RISKY
    assert "default CUDA backend" in f.details
    # `attn.kv_cache[0]` picks a virtual engine's buffer on the baseline: not a K/V split
    assert f.consumer_site.line != line_of(MODEL_FILE, "attn.kv_cache[0]")


def test_probe_records_splits_with_their_subjects():
    tree = ast.parse(src(FORMS + MODEL))
    got = axis_splits(_functions(tree))
    forms = {(r[3], r[4], r[5]) for r in got["ForestImpl.forward"]}
    assert forms == {("index", 0, 0), ("index", 0, 1), ("chunk", 0, None), ("unpack", 0, 2), ("index", 1, 0)}
    assert {tuple(r[2]) for r in got["ForestImpl.forward"]} == {("param", 5, "cache")}
    model = {(tuple(r[2]), r[3], r[4]) for r in got["SwiftModel.write"]}
    assert model == {(("attr", "kv_cache", 1), "unbind", 0), (("attr", "kv_cache", 0), "index", 0)}


def test_probe_records_shape_like_tuple_returns_only():
    text = src("""
        def shape(n, b, h, d):
            if b % 16:
                return (n, b)
            return (n, h, b, 2 * d)

        def pair(a, b):
            return a, b

        def call(a):
            return (a, len(a))
        """)
    tree = ast.parse(text)
    st = SourceText(text.encode())
    out = {fn.name: function_behaviour(fn, text=st, self_name=None, params=[a.arg for a in fn.args.args])
           for fn in tree.body}
    assert out["shape"]["tuple_returns"] == [[4, ["n", "h", "b", "2 * d"]]]
    assert "tuple_returns" not in out["pair"] and "tuple_returns" not in out["call"]


def test_malformed_split_records_from_a_host_are_skipped(tmp_path):
    """Usage can come from an untrusted host: a record of the wrong shape is dropped; a good one
    beside it is still read."""
    from drift.pipeline.run import check
    from tests.rule_cases import consumer_of, facts_of, write_tree

    c = BY_ID["impl-of-a-backend-inheriting-the-moved-shape"]
    cons = consumer_of(write_tree(tmp_path / "consumer", c.consumer), lib="vllm")
    impl = next(m for m in cons.usage if m["module"] == "app.impl")
    good = impl["splits"]["ForestImpl.forward"]
    impl["splits"] = {"ForestImpl.forward": [[1, "x"], "junk", [1, 2, ["param", "5", "kv"], "index", 0, 0],
                                             [1, 2, ["attr", 3, 1], "index", 0, 0], *good],
                      "ForestImpl.other": "not a list", 7: []}
    out = check(consumer=cons, target_facts=facts_of(write_tree(tmp_path / "after", AFTER), "vllm"),
                baseline_facts=facts_of(write_tree(tmp_path / "before", BEFORE), "vllm"), target_package="vllm")
    assert out.error is None
    assert [f.consumer_site.line for f in out.report.findings if f.rule_id == "VLLM002"] == [UNBIND_LINE]
