"""drift check on real releases fetched from PyPI: speculators 0.3.0 vs vllm 0.11.0 / 0.16.0.

Every breaking finding asserted here was read against vLLM's source: the line numbers are
looked up in the fetched files at test time, never hard-coded.
"""

from __future__ import annotations

import pytest

from drift.pipeline.run import run_check

pytestmark = pytest.mark.corpus

GEN = "speculators/data_generation/vllm_hidden_states_generator.py"
WORKER = "speculators/data_generation/custom_worker.py"


def _line_of(path, needle: str, start: int = 1) -> int:
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if i >= start and needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


@pytest.fixture(scope="module")
def against_016(corpus_src):
    corpus_src("vllm==0.16.0"), corpus_src("vllm==0.11.0")
    return run_check(consumer_spec="speculators==0.3.0", target_spec="vllm==0.16.0")


def test_pinned_baseline_is_clean(corpus_src):
    outcome = run_check(consumer_spec="speculators==0.3.0", target_spec="vllm==0.11.0")
    assert outcome.report is not None, outcome.error
    assert outcome.report.baseline["version"] == "0.11.0"  # read from Requires-Dist
    assert outcome.report.breaking == ()
    assert outcome.exit_code == 0


def test_baseline_comes_from_metadata(against_016):
    report = against_016.report
    assert report.baseline["version"] == "0.11.0"
    assert "Requires-Dist" in report.baseline["source"]
    assert against_016.exit_code == 1


def _one(report, rule_id, symbol_part=""):
    hits = [f for f in report.findings if f.rule_id == rule_id and symbol_part in (f.symbol or "") + f.title]
    assert len(hits) == 1, [(f.rule_id, f.title) for f in report.findings]
    return hits[0]


def test_two_phase_execute_model(against_016, corpus_src):
    f = _one(against_016.report, "DRIFT020")
    spec = corpus_src("speculators==0.3.0")
    vllm = corpus_src("vllm==0.16.0")
    assert f.consumer_site.path == GEN
    assert f.consumer_site.line == _line_of(spec / GEN, "self.executor.execute_model(scheduler_output)")
    runner = vllm / "vllm/v1/worker/gpu_model_runner.py"
    ret, setf = f.target_evidence[0], f.target_evidence[1]
    assert ret.path == "vllm/v1/worker/gpu_model_runner.py"
    src = runner.read_text().splitlines()
    assert src[ret.line - 1].strip() == "return None"
    assert "self.execute_model_state = ExecuteModelState(" in src[setf.line - 1]
    assert f.predicted_failure.startswith("RuntimeError: State error: sample_tokens() must be called after execute_model()")
    assert f.fix.codemod == "add_second_phase" and f.fix.args["sibling"] == "sample_tokens"


def test_request_block_hasher(against_016, corpus_src):
    f = _one(against_016.report, "VLLM001")
    spec = corpus_src("speculators==0.3.0")
    vllm = corpus_src("vllm==0.16.0")
    assert f.consumer_site.line == _line_of(spec / GEN, "req = Request(")
    assert_ev = f.target_evidence[0]
    assert "assert len(request.block_hashes)" in (vllm / assert_ev.path).read_text().splitlines()[assert_ev.line - 1]
    assert f.predicted_failure.startswith("AssertionError")
    assert f.fix.codemod == "add_keyword" and f.fix.args["keyword"] == "block_hasher"


def test_signature_drift(against_016, corpus_src):
    report = against_016.report
    spec = corpus_src("speculators==0.3.0")
    kw = _one(report, "DRIFT010", "get_kv_cache_config_from_groups")
    call = _line_of(spec / GEN, "get_kv_cache_config_from_groups(")
    assert kw.consumer_site.line == _line_of(spec / GEN, "kv_cache_specs=", start=call)  # the keyword's own line
    assert kw.consumer_site.col == (spec / GEN).read_text().splitlines()[kw.consumer_site.line - 1].index("kv_cache_specs") + 1
    assert "kv_cache_specs" in kw.predicted_failure
    sched = _one(report, "DRIFT011", "Scheduler`")
    assert sched.consumer_site.line == _line_of(spec / GEN, "self.scheduler = Scheduler(")
    assert sched.fix.args["value"].startswith("self.vllm_config.cache_config.block_size")
    initvar = _one(report, "DRIFT011", "is_encoder_decoder")
    assert initvar.consumer_site.line == _line_of(spec / GEN, "scheduler_config=SchedulerConfig(")
    assert initvar.fix.args["value"] == "False"


def test_return_shape_indexing(against_016, corpus_src):
    f = _one(against_016.report, "DRIFT030")
    spec = corpus_src("speculators==0.3.0")
    assert f.consumer_site.line == _line_of(spec / GEN, "aux_hidden_states = captured_states_list[0]")
    assert "Boolean value of Tensor" in f.predicted_failure
    assert "unique_reply_rank" in f.title
    # the other collective_rpc call (no unique_reply_rank) still returns a list: not reported
    assert all(x.consumer_site.line != _line_of(spec / GEN, "kv_cache_spec = kv_cache_spec_list[0]")
               for x in against_016.report.findings)


def test_family_rename_in_bound_forward(against_016, corpus_src):
    f = _one(against_016.report, "DRIFT040")
    spec = corpus_src("speculators==0.3.0")
    assert f.consumer_site.path == WORKER
    assert f.consumer_site.line == _line_of(spec / WORKER, "self.get_input_embeddings(input_ids)")
    assert f.fix.args == {"old": "get_input_embeddings", "new": "embed_input_ids"}


def test_every_breaking_finding_has_evidence_and_failure(against_016):
    for f in against_016.report.breaking:
        assert f.target_evidence, f.title
        assert f.predicted_failure, f.title
        assert f.fix is not None


def test_consumer_and_target_in_an_environment(host_venv, corpus_src):
    """`drift check python:PATH --target python:PATH`: both read from an installed environment."""
    corpus_src("vllm==0.11.0")
    python = str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))
    outcome = run_check(consumer_spec=f"python:{python}", target_spec=f"python:{python}")
    assert outcome.report is not None, outcome.error
    assert outcome.report.baseline["version"] == "0.11.0"
    assert {"DRIFT020", "DRIFT030", "VLLM001"} <= {f.rule_id for f in outcome.report.breaking}
