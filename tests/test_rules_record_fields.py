"""A vLLM object parked in a field of the consumer's own record class, read through it later.

`@dataclass class PluginConfig: cache_config: Any = None` says nothing of what the field holds;
the consumer's construction sites do (`PluginConfig(True, vllm_config.cache_config)`, keyword or
positional, or `dataclasses.replace(cfg, cache_config=...)`). The solver binds each argument to
the field the generated `__init__` fills, follows a return annotation (`-> Config`) and an
`Optional[PluginConfig]` field, so `get_config().plugin.cache_config.calculate_kv_scales` is a
read on vLLM's `CacheConfig` (DRIFT060 when the attribute is gone). The failure is Python's own.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"vllm/__init__.py": "", "vllm/config.py": """
    class CacheConfig:
        def __init__(self):
            self.block_size = 16
            self.calculate_kv_scales = False


    class VllmConfig:
        def __init__(self):
            self.cache_config = CacheConfig()
    """}
AFTER = {"vllm/__init__.py": "", "vllm/config.py": """
    class CacheConfig:
        def __init__(self):
            self.block_size = 16


    class VllmConfig:
        def __init__(self):
            self.cache_config = CacheConfig()
    """}
CONFIG = """
    import dataclasses
    from dataclasses import dataclass
    from typing import Any, Optional

    from vllm.config import VllmConfig


    @dataclass
    class PluginConfig:
        is_on: bool = False
        cache_config: Any = None


    @dataclass
    class Config:
        name: str = ""
        plugin: Optional[PluginConfig] = None


    _current = None


    def get_config() -> Config:
        return _current


    def build(vllm_config: VllmConfig):
        global _current
        _current = Config(name="x", plugin=PluginConfig(True, vllm_config.cache_config))
        return _current
    """
LAYER = """
    from vllm.config import CacheConfig

    from app.config import get_config


    class Layer:
        def __init__(self):
            cfg = get_config()
            cache_config = cfg.plugin.cache_config
            self.scales = cache_config.calculate_kv_scales
            self.size = cache_config.block_size

        def kind(self):
            return CacheConfig
    """


def _case(tmp_path, name, config):
    return findings_of(tmp_path / name, Case(name, BEFORE, AFTER, {"app/config.py": config, "app/layer.py": LAYER}),
                       lib="vllm")


def test_a_record_field_filled_with_a_vllm_object_types_reads_through_it(tmp_path):
    assert_findings(_case(tmp_path, "positional", CONFIG), [("DRIFT060", line_of(LAYER, "calculate_kv_scales"))])
    keyword = CONFIG.replace("PluginConfig(True, vllm_config.cache_config)",
                             "PluginConfig(is_on=True, cache_config=vllm_config.cache_config)")
    assert_findings(_case(tmp_path, "keyword", keyword), [("DRIFT060", line_of(LAYER, "calculate_kv_scales"))])
    replaced = CONFIG.replace("PluginConfig(True, vllm_config.cache_config)",
                              "dataclasses.replace(PluginConfig(), cache_config=vllm_config.cache_config)")
    assert_findings(_case(tmp_path, "replaced", replaced), [("DRIFT060", line_of(LAYER, "calculate_kv_scales"))])
    roots = [tmp_path / "positional" / "after", tmp_path / "positional" / "consumer"]
    setup = "__import__('app.config').config.build(__import__('vllm.config').config.VllmConfig()) and "
    assert raised_by(roots, "app.layer", setup + "Layer()") == \
        "AttributeError: 'CacheConfig' object has no attribute 'calculate_kv_scales'"


def test_a_field_only_ever_filled_with_the_consumers_own_values_is_not_vllms(tmp_path):
    own = CONFIG.replace("PluginConfig(True, vllm_config.cache_config)", "PluginConfig(True, {'size': 1})")
    assert_findings(_case(tmp_path, "own", own), [])
    # a plain class (no generated __init__) does not take its annotated names as arguments
    plain = CONFIG.replace("@dataclass\n    class PluginConfig:", "class PluginConfig:")
    assert plain != CONFIG
    assert_findings(_case(tmp_path, "plain", plain), [])


HOOK = """
    from vllm.config import VllmConfig

    from app.config import build


    def hook(vllm_config: VllmConfig):
        return build(vllm_config)
    """


def test_a_helper_module_that_never_names_vllm_is_read_when_it_is_handed_a_vllm_object(tmp_path):
    """The record and its builder live in a module with no vLLM import (`build(config)`, untyped);
    the hook that calls it with its annotated `VllmConfig` parameter is what makes it vLLM's."""
    untyped = CONFIG.replace("from vllm.config import VllmConfig\n", "").replace(
        "def build(vllm_config: VllmConfig):", "def build(vllm_config):")
    assert "vllm" not in untyped.replace("vllm_config", "")
    files = {"app/config.py": untyped, "app/layer.py": LAYER, "app/hook.py": HOOK}
    found = findings_of(tmp_path / "hook", Case("hook", BEFORE, AFTER, files), lib="vllm")
    assert_findings(found, [("DRIFT060", line_of(LAYER, "calculate_kv_scales"))])
    files.pop("app/hook.py")  # nobody hands it a vLLM object: nothing is known of the field
    assert_findings(findings_of(tmp_path / "nohook", Case("nohook", BEFORE, AFTER, files), lib="vllm"), [])
