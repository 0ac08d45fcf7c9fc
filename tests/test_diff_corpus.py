"""Acceptance: `drift diff` of the real vLLM 0.11.0 -> 0.16.0 releases finds the changes that
break speculators 0.3.0, each with file:line evidence checked against the release sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from drift.commands.diff import run_diff
from drift.analysis.diff import ChangeKind

pytestmark = pytest.mark.corpus

DEV_SRC = Path("/root/.cache/drift-dev/src")
K = ChangeKind


@pytest.fixture(scope="module")
def vllm_trees(request):
    """Extracted releases: the read-only dev copy when it is there (no download), else the
    project's fetcher through the lead's `corpus_src` fixture."""
    if all((DEV_SRC / f"vllm-{v}" / "vllm").is_dir() for v in ("0.11.0", "0.16.0")):
        return DEV_SRC / "vllm-0.11.0", DEV_SRC / "vllm-0.16.0"
    try:
        get = request.getfixturevalue("corpus_src")
    except pytest.FixtureLookupError:
        pytest.skip("no vLLM sources: neither /root/.cache/drift-dev/src nor the corpus_src fixture")
    return get("vllm==0.11.0"), get("vllm==0.16.0")


@pytest.fixture(scope="module")
def result(vllm_trees):
    old, new = vllm_trees
    outcome = run_diff(str(old), str(new), package="vllm")
    assert outcome.error is None, outcome.error
    return outcome.result


def find(result, kind: ChangeKind, dotted: str) -> list:
    return [c for c in result.changes if c.kind is kind and c.dotted == dotted]


def lines_of(root: Path, path: str) -> list[str]:
    return (root / path).read_text(encoding="utf-8").splitlines()


def test_two_phase_execute_model(result, vllm_trees):
    old_root, new_root = vllm_trees
    hits = find(result, K.TWO_PHASE_PROTOCOL, "vllm.v1.worker.gpu_model_runner.GPUModelRunner.execute_model")
    change = next(c for c in hits if "execute_model_state" in c.detail)
    assert change.detail == (
        "two-phase protocol: execute_model now returns None and hands state to sample_tokens "
        "via self.execute_model_state"
    )
    src = lines_of(new_root, "vllm/v1/worker/gpu_model_runner.py")
    by_note = {}
    for ev in change.new:
        assert ev.path == "vllm/v1/worker/gpu_model_runner.py"
        by_note.setdefault(ev.note, []).append(ev.line)
    (ret,) = by_note["return None"]
    assert src[ret - 1].strip() == "return None"
    assert all("self.execute_model_state = " in src[n - 1] for n in by_note["sets self.execute_model_state"])
    assert all("self.execute_model_state" in src[n - 1] for n in by_note["sample_tokens reads self.execute_model_state"])
    (reset,) = by_note["sample_tokens resets self.execute_model_state"]
    assert src[reset - 1].strip() == "self.execute_model_state = None"
    old_src = lines_of(old_root, change.old[0].path)
    assert "def execute_model(" in old_src[change.old[0].line - 1]
    guard = find(result, K.STATE_RAISE_ADDED, "vllm.v1.worker.gpu_model_runner.GPUModelRunner.execute_model")
    assert any("sample_tokens() must be called" in c.detail for c in guard)


def test_request_init(result):
    dotted = "vllm.v1.request.Request.__init__"
    assert [c.detail for c in find(result, K.PARAM_REMOVED, dotted)] == ["structured_output_request"]
    added = {c.detail.split("=")[0] for c in find(result, K.PARAM_ADDED, dotted)}
    assert {"resumable", "reasoning_ended"} <= added


def test_kv_cache_config_from_groups_lost_kv_cache_specs(result, vllm_trees):
    (change,) = find(result, K.PARAM_REMOVED, "vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups")
    assert change.detail == "kv_cache_specs"
    old_src = lines_of(vllm_trees[0], change.old[0].path)
    assert "def get_kv_cache_config_from_groups(" in old_src[change.old[0].line - 1]
    new_src = lines_of(vllm_trees[1], change.new[0].path)
    assert "def get_kv_cache_config_from_groups(" in new_src[change.new[0].line - 1]


def test_scheduler_init_requires_block_size(result):
    hits = find(result, K.PARAM_REQUIRED_ADDED, "vllm.v1.core.sched.scheduler.Scheduler.__init__")
    assert "block_size: int" in [c.detail for c in hits]


def test_scheduler_config_initvar(result, vllm_trees):
    hits = find(result, K.FIELD_REQUIRED_ADDED, "vllm.config.scheduler.SchedulerConfig")
    change = next(c for c in hits if "is_encoder_decoder" in c.detail)
    assert change.detail.startswith("InitVar is_encoder_decoder")
    src = lines_of(vllm_trees[1], change.new[0].path)
    assert "is_encoder_decoder: InitVar[bool]" in src[change.new[0].line - 1]


def test_cache_config_prefix_caching_default(result, vllm_trees):
    hits = find(result, K.FIELD_DEFAULT_CHANGED, "vllm.config.cache.CacheConfig")
    change = next(c for c in hits if c.detail.startswith("enable_prefix_caching"))
    assert change.detail == "enable_prefix_caching: None -> True"
    assert "enable_prefix_caching" in lines_of(vllm_trees[0], change.old[0].path)[change.old[0].line - 1]
    assert "= True" in lines_of(vllm_trees[1], change.new[0].path)[change.new[0].line - 1]


def test_collective_rpc_shape_depends_on_unique_reply_rank(result, vllm_trees):
    (change,) = find(result, K.RETURN_SHAPE_DEPENDS, "vllm.v1.executor.multiproc_executor.MultiprocExecutor.collective_rpc")
    assert "unique_reply_rank" in change.detail
    line = lines_of(vllm_trees[1], change.new[0].path)[change.new[0].line - 1]
    assert "return responses[0] if output_rank is not None else responses" in line


def test_moved_symbols_name_their_new_home(result):
    moved = [c for c in result.changes if c.kind is K.SYMBOL_MOVED]
    assert moved and all(c.new and "defined in" in c.detail for c in moved)
    summary = result.to_dict()["summary"]
    assert summary["changes"] == len(result.changes) > 1000
