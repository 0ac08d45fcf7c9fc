"""The vLLM rule pack: what only knowledge of vLLM's behaviour can say."""

from drift.analysis.rules.vllm.block_hasher import request_needs_block_hasher
from drift.analysis.rules.vllm.extension import extension_name_taken
from drift.analysis.rules.vllm.kv_layout import kv_cache_layout_moved
from drift.analysis.rules.vllm.kv_reads import kv_buffer_shape_read
from drift.analysis.rules.vllm.layer_buffer import layer_buffer_no_longer_a_list
from drift.analysis.rules.vllm.request_fields import request_field_dropped
from drift.analysis.rules.vllm.rpc import dispatched_by_name
from drift.analysis.rules.vllm.v1_engine import v1_engine_by_default

VLLM_RULES = [request_needs_block_hasher, kv_cache_layout_moved, kv_buffer_shape_read, layer_buffer_no_longer_a_list,
               dispatched_by_name, extension_name_taken, request_field_dropped, v1_engine_by_default]

# vLLM's `@config` wraps pydantic.dataclasses.dataclass: its fields are constructor parameters.
DATACLASS_DECORATORS = frozenset({"vllm.config.utils.config"})
