"""DRIFT132 on a tiny fake `vllm`: a KV connector reads the shape of the buffers vLLM hands it by
position or rank, and the target's `get_kv_cache_shape` moved what sits there (vLLM 0.23 made
FlashAttention's cache block-major, 0.26 packed K and V into the last axis)."""

from __future__ import annotations

import ast

import pytest

from drift.findings import Severity
from drift.probes.kv_reads import buffer_reads
from drift.probes.usage import _functions
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, src
from tests.test_rules_kv_layout import BLOCKS_SECOND, KV_FIRST, PACKED, PLUGIN_PLATFORM, vllm

CONNECTOR_BASE = """
    import torch


    class KVConnectorBase_V1:
        def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
            return None

        def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata, **kwargs) -> None:
            raise NotImplementedError
    """
# vLLM's own in-tree connector imports the consumer's class lazily and forwards the hook to it.
IN_TREE = """
    from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


    class AppConnector(KVConnectorBase_V1):
        def __init__(self, config):
            from app.adapter import AppImpl
            self._impl = AppImpl(config)

        def register_kv_caches(self, kv_caches):
            self._impl.register_kv_caches(kv_caches)
    """


def tree(shape: str, kv: str = "[torch.tensor([]) for _ in range(pipeline_parallel_size)]") -> dict[str, str]:
    out = vllm(shape, kv=kv)
    out["vllm/distributed/kv_transfer/kv_connector/v1/base.py"] = CONNECTOR_BASE
    out["vllm/distributed/kv_transfer/kv_connector/v1/app_connector.py"] = IN_TREE
    return out


# Not a vLLM subclass: reached only because vLLM's AppConnector builds AppImpl and forwards to it
# (the module imports vLLM for its types, as connector modules do: usage covers such modules).
ADAPTER = """
    from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1 as _Base


    class Worker:
        def __init__(self, use_mla):
            self.use_mla = use_mla

        def register(self, kv_caches):
            main = {}
            side = {}
            for name, tensor in kv_caches.items():
                if name.endswith(".index"):
                    side[name] = tensor
                else:
                    main[name] = tensor
            blocks = list(main.values())
            if self.use_mla:
                assert blocks[0].ndim == 3
                mla_blocks = blocks[0].shape[0]
            else:
                assert blocks[0].ndim == 5
                num_blocks = blocks[0].shape[1]
                block_size = blocks[0].size(2)
                kv_first = blocks[0].shape[0] == 2
            index = list(side.values())[0]
            assert index.ndim == 3
            index_blocks = index.shape[0]
            return num_blocks, block_size, kv_first, index_blocks


    class AppImpl:
        def __init__(self, config):
            self.worker = Worker(config)

        def register_kv_caches(self, kv_caches):
            self.worker.register(kv_caches)
    """
NUM_BLOCKS = line_of(ADAPTER, "num_blocks = blocks[0].shape[1]")
RANK_FIVE = line_of(ADAPTER, "assert blocks[0].ndim == 5")

# An override of the base's hook, which hands the tensor to a helper of its own.
OVERRIDE = """
    from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


    class Saver(KVConnectorBase_V1):
        def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
            return self._extract(kv_layer, attn_metadata)

        def _extract(self, kv, attn_metadata):
            shp = kv.shape
            if attn_metadata.is_mla:
                return kv.reshape(shp[0] * shp[1], -1)
            num_blocks = shp[1]
            return kv.reshape(2, num_blocks * shp[2], -1)
    """
OVERRIDE_READ = line_of(OVERRIDE, "num_blocks = shp[1]")
OVERRIDE_SPLIT = line_of(OVERRIDE, "return kv.reshape(2,")


def case(cid, before, after, consumer, expected):
    return Case(cid, before, after, consumer, expected)


CASES = [
    case("forwarded-hook-block-major", tree(KV_FIRST), tree(BLOCKS_SECOND), {"app/adapter.py": ADAPTER},
         [("DRIFT132", NUM_BLOCKS)]),
    case("forwarded-hook-rank-assert-fails", tree(BLOCKS_SECOND), tree(PACKED), {"app/adapter.py": ADAPTER},
         [("DRIFT132", RANK_FIVE)]),
    case("forwarded-hook-layout-unchanged", tree(KV_FIRST), tree(KV_FIRST), {"app/adapter.py": ADAPTER}, []),
    case("override-helper-packed", tree(KV_FIRST), tree(PACKED), {"app/saver.py": OVERRIDE},
         [("DRIFT132", OVERRIDE_READ), ("DRIFT132", OVERRIDE_SPLIT)]),
    case("platform-plugin-picks-its-backends", tree(KV_FIRST), tree(BLOCKS_SECOND),
         {"app/adapter.py": ADAPTER, "app/platform.py": PLUGIN_PLATFORM}, []),
]
BY_ID = {c.id: c for c in CASES}


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_kv_reads_rule(tmp_path, c):
    found = [f for f in findings_of(tmp_path, c, lib="vllm") if f.rule_id == "DRIFT132"]
    assert_findings(tuple(found), c.expected)


def test_unforwarded_class_is_not_a_connector(tmp_path):
    """The same reads in a class vLLM neither builds nor subclasses say nothing about vLLM's buffer."""
    c = Case("unforwarded", tree(KV_FIRST), tree(BLOCKS_SECOND),
             {"app/other.py": ADAPTER.replace("register_kv_caches", "setup")}, [])
    assert [f for f in findings_of(tmp_path, c, lib="vllm") if f.rule_id == "DRIFT132"] == []


def test_finding_is_risky_and_names_the_backend_and_route(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["forwarded-hook-block-major"], lib="vllm"), "DRIFT132")
    assert f.severity is Severity.RISKY
    assert "held `num_blocks` on the baseline and holds `2` on the target" in f.title
    assert "FlashAttentionBackend" in f.details and "AppConnector" in f.details
    assert f.symbol == "vllm.v1.attention.backends.flash_attn.FlashAttentionBackend.get_kv_cache_shape"
    assert f.baseline_evidence[0].snippet == f"return {KV_FIRST}"


def test_override_reports_both_the_block_read_and_the_kv_reshape(tmp_path):
    found = [f for f in findings_of(tmp_path, BY_ID["override-helper-packed"], lib="vllm") if f.rule_id == "DRIFT132"]
    by_line = {f.consumer_site.line: f.title for f in found}
    assert "axis 0 no longer holds K and V" in by_line[OVERRIDE_SPLIT]
    assert "`kv.shape[1]`" in by_line[OVERRIDE_READ]  # the alias `shp` is named by its buffer
    assert "position 1 held `num_blocks` on the baseline and holds `num_kv_heads`" in by_line[OVERRIDE_READ]
    assert "Saver" in found[0].details or "save_kv_layer" in found[0].details


def test_probe_follows_buffers_through_containers_and_calls():
    got = buffer_reads(_functions(ast.parse(src(ADAPTER))))
    reads = {(r[3], r[4], r[5], tuple(r[6])): tuple(r[2]) for r in got["reads"]["Worker.register"]}
    element = ("param", 1, "kv_caches", 1)
    assert reads[("blocks[0]", "shape", 1, ())] == element
    assert reads[("blocks[0]", "shape", 2, ())] == element  # .size(2)
    assert reads[("blocks[0]", "rank", 5, ())] == element
    assert reads[("blocks[0]", "rank", 3, ("mla",))] == element
    assert reads[("blocks[0]", "shape", 0, ("compared",))] == element
    assert reads[("index", "rank", 3, ())] == element
    assert got["flows"]["AppImpl.register_kv_caches"] == [
        [line_of(ADAPTER, "self.worker.register(kv_caches)"), ["held", "worker", "register"], 0,
         ["param", 1, "kv_caches", 0]]]


def test_probe_reads_a_shape_alias_and_a_layer_buffer():
    text = src("""
        def load(self, layers, ve):
            for layer in layers:
                cache = getattr(layer, "kv_cache", None)
                buf = cache[ve]
                n, b, h, d = buf.shape
                self._inject(buf)
        """)
    got = buffer_reads(_functions(ast.parse(text)))
    assert [(r[4], r[5], r[2]) for r in got["reads"]["load"] if r[4] != "index"] == [("rank", 4, ["attr", "kv_cache", 1])]
    # the pick `cache[ve]` is recorded where the attribute is read
    assert [(r[0], r[3], r[5]) for r in got["reads"]["load"] if r[4] == "index"] == [(3, "cache", -1)]
    assert got["flows"]["load"] == [[6, ["self", "_inject"], 0, ["attr", "kv_cache", 1]]]


def test_malformed_records_from_a_host_are_skipped(tmp_path):
    from drift.pipeline.run import check
    from tests.rule_cases import consumer_of, facts_of, write_tree

    c = BY_ID["forwarded-hook-block-major"]
    cons = consumer_of(write_tree(tmp_path / "consumer", c.consumer), lib="vllm")
    mod = next(m for m in cons.usage if m["module"] == "app.adapter")
    good = mod["kv_reads"]
    mod["kv_reads"] = {"reads": {"Worker.register": [[1, "x"], "junk", [1, 2, ["param", "1"], "q", "shape", 1, []],
                                                     *good["reads"]["Worker.register"]], 7: "no"},
                       "flows": {**good["flows"], "AppImpl.x": [[1, "self", 0, None], "junk"]}}
    out = check(consumer=cons, target_facts=facts_of(write_tree(tmp_path / "after", c.after), "vllm"),
                baseline_facts=facts_of(write_tree(tmp_path / "before", c.before), "vllm"), target_package="vllm")
    assert out.error is None
    assert [f.consumer_site.line for f in out.report.findings if f.rule_id == "DRIFT132"] == [NUM_BLOCKS]


# -- DRIFT133: a layer's kv_cache held a list of buffers and now holds the buffer ------------------
LOADER = """
    from vllm.model_executor.layers.attention.attention import Attention


    class Loader:
        def __init__(self):
            self.kv_cache = [None]

        def load(self, forward_context):
            for name, layer in forward_context.no_compile_layers.items():
                held = getattr(layer, "kv_cache", None)
                if held is None:
                    continue
                buf = held[forward_context.virtual_engine]
                mine = self.kv_cache[0]
                return buf, mine
    """
PICK = line_of(LOADER, 'held = getattr(layer, "kv_cache", None)')  # where the attribute is read
LIST_LAYER = "[torch.tensor([]) for _ in range(pipeline_parallel_size)]"


@pytest.mark.parametrize("before_kv, after_kv, expected", [
    (LIST_LAYER, "torch.tensor([])", [("DRIFT133", PICK)]),
    (LIST_LAYER, LIST_LAYER, []),
    ("torch.tensor([])", "torch.tensor([])", []),
], ids=["list-to-tensor", "still-a-list", "tensor-on-both"])
def test_layer_buffer_pick(tmp_path, before_kv, after_kv, expected):
    c = Case("pick", tree(KV_FIRST, kv=before_kv), tree(KV_FIRST, kv=after_kv), {"app/loader.py": LOADER}, expected)
    found = [f for f in findings_of(tmp_path, c, lib="vllm") if f.rule_id == "DRIFT133"]
    assert_findings(tuple(found), expected)
    if found:
        assert found[0].severity is Severity.RISKY and "held[...]" in found[0].title
        assert found[0].symbol == "vllm.model_executor.layers.attention.attention.Attention.kv_cache"


def test_probe_records_picks_on_a_layer_buffer_not_on_self():
    got = buffer_reads(_functions(ast.parse(src(LOADER))))
    picks = [(r[0], r[2]) for r in got["reads"]["Loader.load"] if r[4] == "index"]
    assert picks == [(PICK, ["attr", "kv_cache", 0])]


def test_held_callee_is_the_class_the_attribute_is_built_from(tmp_path):
    """`self.worker.register(caches)` with `self.worker = Worker(...)`: another class that also
    defines `register` never receives the buffer."""
    other = ADAPTER + """

    class Unrelated:
        def register(self, kv_caches):
            blocks = list(kv_caches.values())
            return blocks[0].shape[1]
    """
    c = Case("typed-held", tree(KV_FIRST), tree(BLOCKS_SECOND), {"app/adapter.py": other}, [("DRIFT132", NUM_BLOCKS)])
    found = [f for f in findings_of(tmp_path, c, lib="vllm") if f.rule_id == "DRIFT132"]
    assert_findings(tuple(found), c.expected)


def test_attention_impl_hook_is_left_to_its_backend(tmp_path):
    """An AttentionImpl's `kv_cache` belongs to the consumer's backend (VLLM002), not the default one."""
    impl = """
    from vllm.v1.attention.backend import AttentionImpl


    class MyImpl(AttentionImpl):
        def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
            return kv_cache.shape[1]
    """
    c = Case("impl", tree(KV_FIRST), tree(BLOCKS_SECOND), {"app/impl.py": impl}, [])
    assert [f for f in findings_of(tmp_path, c, lib="vllm") if f.rule_id == "DRIFT132"] == []
