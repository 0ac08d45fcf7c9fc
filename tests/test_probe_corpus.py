"""The probe on real vLLM releases: the facts drift's rules depend on are really extracted."""

from __future__ import annotations

from pathlib import Path

import pytest

from drift.probes.main import collect_tree

pytestmark = pytest.mark.corpus

DEV_SRC = Path("/root/.cache/drift-dev/src")


@pytest.fixture(scope="module")
def vllm_facts(request):
    """`vllm_facts("0.16.0") -> {module: Module}` of the release, parsed once per module."""
    try:
        corpus_src = request.getfixturevalue("corpus_src")
    except pytest.FixtureLookupError:
        corpus_src = None
    seen: dict[str, dict] = {}

    def get(version: str) -> dict:
        if version not in seen:
            root = None
            if corpus_src is not None:
                try:
                    root = Path(corpus_src("vllm==" + version))
                except Exception as exc:  # fetch failed: fall back to the pre-extracted copy
                    fallback = DEV_SRC / ("vllm-" + version)
                    if not fallback.is_dir():
                        pytest.skip("vllm %s not available: %s" % (version, exc))
                    root = fallback
            else:
                root = DEV_SRC / ("vllm-" + version)
                if not root.is_dir():
                    pytest.skip("vllm %s not fetched and tests.corpus_fixtures absent" % version)
            doc = collect_tree(root, ["vllm"], cache_dir=None)
            seen[version] = doc["packages"]["vllm"]
        return seen[version]

    return get


def _method(pkg: dict, module: str, cls: str, name: str) -> dict:
    return pkg["modules"][module]["classes"][cls]["methods"][name]


def test_release_metadata(vllm_facts):
    pkg = vllm_facts("0.16.0")
    assert pkg["version"] == "0.16.0" and pkg["dist"] == "vllm"
    assert len(pkg["modules"]) > 1000 and any(r.startswith("torch") for r in pkg["requires"])


def test_execute_model_two_phase_protocol_in_0_16(vllm_facts):
    pkg = vllm_facts("0.16.0")
    em = _method(pkg, "vllm.v1.worker.gpu_model_runner", "GPUModelRunner", "execute_model")
    b = em["behaviour"]
    assert b["tail_return_none"] == em["end_line"]
    assert "execute_model_state" in b["self_sets"]
    st = _method(pkg, "vllm.v1.worker.gpu_model_runner", "GPUModelRunner", "sample_tokens")["behaviour"]
    assert "execute_model_state" in st["self_reads"] and "execute_model_state" in st["self_resets"]


def test_execute_model_returns_output_in_0_11(vllm_facts):
    pkg = vllm_facts("0.11.0")
    b = _method(pkg, "vllm.v1.worker.gpu_model_runner", "GPUModelRunner", "execute_model")["behaviour"]
    assert b["tail_return_none"] is None
    assert "execute_model_state" not in b["self_sets"]


def test_collective_rpc_return_shape(vllm_facts):
    mod, cls = "vllm.v1.executor.multiproc_executor", "MultiprocExecutor"
    new = _method(vllm_facts("0.16.0"), mod, cls, "collective_rpc")["behaviour"]["return_shapes"]
    assert [s["depends_on"] for s in new] == [["unique_reply_rank"]]
    assert new[0]["shape"] == "element_or_sequence"
    old = _method(vllm_facts("0.11.0"), mod, cls, "collective_rpc")["behaviour"]["return_shapes"]
    assert old == []


@pytest.mark.parametrize("version", ["0.11.0", "0.16.0"])
def test_request_init_params(vllm_facts, version):
    init = _method(vllm_facts(version), "vllm.v1.request", "Request", "__init__")
    names = [p["name"] for p in init["params"]]
    assert names[0] == "self" and "request_id" in names and "sampling_params" in names


def test_scheduler_config_initvar_without_default_in_0_16(vllm_facts):
    cfg = vllm_facts("0.16.0")["modules"]["vllm.config.scheduler"]["classes"]["SchedulerConfig"]
    fields = {f["name"]: f for f in cfg["fields"]}
    assert fields["is_encoder_decoder"]["initvar"] is True
    assert fields["is_encoder_decoder"]["has_default"] is False
    assert cfg["kind"] == "dataclass"
    factory = cfg["methods"]["default_factory"]["behaviour"]["kwarg_defaults"]
    assert factory["is_encoder_decoder"]["value"] == "False"
    old = vllm_facts("0.11.0")["modules"]["vllm.config.scheduler"]["classes"]["SchedulerConfig"]
    assert "is_encoder_decoder" not in {f["name"] for f in old["fields"]}


@pytest.mark.parametrize("version", ["0.11.0", "0.16.0"])
def test_whole_release_parses_without_errors(vllm_facts, version):
    assert vllm_facts(version)["errors"] == []
