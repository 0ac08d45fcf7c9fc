"""Progress parsing and failure mapping on log text written here (no job runs)."""

from __future__ import annotations

import pytest

from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.jobs.failures import diagnose, extract_error
from drift.jobs.progress import LineSplitter, ProgressTracker

SHARDS = (
    "Loading safetensors checkpoint shards:   0% Completed | 0/64 [00:00<?, ?it/s]\r"
    "Loading safetensors checkpoint shards:  84% Completed | 54/64 [01:02<00:11,  1.13s/it]"
)


def test_tqdm_redraws_collapse_and_feed_progress():
    splitter, tracker = LineSplitter(), ProgressTracker()
    lines = splitter.feed(("INFO start\n" + SHARDS + "\nGenerating hidden states: batch 7/20 (32 samples)\n").encode())
    finals = [final for _, final in lines]
    assert finals[0] == "INFO start"
    assert finals[1].endswith("54/64 [01:02<00:11,  1.13s/it]") and "\r" not in finals[1]
    for segments, _ in lines:
        for seg in segments:
            tracker.feed(seg)
    assert tracker.summary() == "checkpoint shards 54/64 · batches 7/20"


def test_partial_line_waits_and_committed_counts_whole_lines():
    splitter = LineSplitter()
    data = "first line\nLoading safetensors checkpoint shards:  50% Completed | 2/4 [".encode()
    assert [f for _, f in splitter.feed(data)] == ["first line"]
    assert splitter.committed == len("first line\n")
    assert splitter.pending()[0].startswith("Loading safetensors")
    assert [f for _, f in splitter.feed(b"00:02]\n")] == [
        "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:02]"]
    assert splitter.committed == len(data) + len(b"00:02]\n")


def test_utf8_split_across_chunks():
    splitter = LineSplitter()
    data = "größe ✓\n".encode()
    assert splitter.feed(data[:3]) == []
    assert [f for _, f in splitter.feed(data[3:])] == ["größe ✓"]


def test_user_pattern_added_and_default_overridden():
    tracker = ProgressTracker({"samples": r"saved (?P<done>\d+) samples", "batches": r"step (?P<done>\d+) of (?P<total>\d+)"})
    tracker.feed("saved 96 samples")
    tracker.feed("step 3 of 9")
    tracker.feed("batch 1/2")  # the default batches pattern was replaced
    assert {c.label: (c.done, c.total) for c in tracker.counters} == {"samples": (96, None), "batches": (3, 9)}


TWO_PHASE = Finding(
    rule_id="DRIFT301", kind=RuleKind.TWO_PHASE_PROTOCOL, severity=Severity.BREAKING,
    title="vllm.v1.worker.gpu_model_runner.GPUModelRunner.execute_model now returns None",
    consumer_site=Location("speculators/data_generation/vllm_hidden_states_generator.py", 301),
    predicted_failure="RuntimeError: State error: sample_tokens() must be called after execute_model() returns None.",
    fix=Fix("call sample_tokens() after execute_model()", codemod="second_phase"),
)
KEYWORD = Finding(
    rule_id="DRIFT102", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING,
    title="Request() no longer accepts multi_modal_inputs",
    consumer_site=Location("speculators/data_generation/vllm_hidden_states_generator.py", 131),
    predicted_failure="TypeError: __init__() got an unexpected keyword argument 'multi_modal_inputs'",
    symbol="vllm.v1.request.Request.__init__",
)
OTHER_KEYWORD = Finding(
    rule_id="DRIFT102", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING,
    title="SchedulerConfig() no longer accepts chunked_prefill_enabled",
    consumer_site=Location("speculators/x.py", 10),
    predicted_failure="TypeError: __init__() got an unexpected keyword argument 'chunked_prefill_enabled'",
)
HASHER = Finding(
    rule_id="VLLM002", kind=RuleKind.SEMANTIC, severity=Severity.BREAKING,
    title="Request needs a block_hasher", consumer_site=Location("speculators/y.py", 50),
    predicted_failure="AssertionError at assert len(request.block_hashes) == 0",
)


def _log(exc_line: str, frame_line: str = "    raise ...") -> str:
    return (
        "Generating hidden states: batch 2/3\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.12/site-packages/speculators/data_generation/vllm_hidden_states_generator.py", '
        "line 301, in generate\n"
        "    outputs = self._run_batch(batch)\n"
        '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/core/x.py", line 9, in f\n'
        f"{frame_line}\n{exc_line}\n[drift-runner 2026-01-01T00:00:00Z] job exited 1\n"
    )


@pytest.mark.parametrize(
    "exc_line, frame, known",
    [
        ("RuntimeError: State error: sample_tokens() must be called after execute_model() returns None.", None, "two-phase protocol"),
        ("RuntimeError: Boolean value of Tensor with more than one values is ambiguous", None, "return-shape change"),
        ("RuntimeError: Boolean value of Tensor with more than one value is ambiguous", None, "return-shape change"),
        ("AssertionError", "    assert len(request.block_hashes) == 0", "Request block hasher"),
        ("TypeError: Request.__init__() got an unexpected keyword argument 'x'", None, "keyword removed"),
        ("TypeError: f() missing 1 required positional argument: 'block_size'", None, "new required parameter"),
        ("TypeError: f() missing 1 required keyword-only argument: 'block_size'", None, "new required parameter"),
        ("ImportError: cannot import name 'Foo' from 'vllm.x'", None, "import removed or moved"),
        ("ValueError: something else entirely", None, None),
    ],
)
def test_known_failures_table(exc_line, frame, known):
    diag = diagnose(_log(exc_line, frame or "    raise ..."))
    assert diag.error == exc_line
    assert (diag.known.name if diag.known else None) == known


def test_preflight_finding_explains_the_crash_best_match_first():
    log = _log("RuntimeError: State error: sample_tokens() must be called after execute_model() returns None.")
    diag = diagnose(log, [KEYWORD, HASHER, TWO_PHASE])
    assert diag.findings[0] is TWO_PHASE
    assert KEYWORD not in diag.findings and HASHER not in diag.findings


def test_keyword_name_picks_the_right_finding():
    log = _log("TypeError: Request.__init__() got an unexpected keyword argument 'multi_modal_inputs'")
    diag = diagnose(log, [OTHER_KEYWORD, KEYWORD])
    assert diag.findings[0] is KEYWORD


def test_block_hasher_assertion_maps_to_semantic_finding():
    diag = diagnose(_log("AssertionError", "    assert len(request.block_hashes) == 0"), [TWO_PHASE, HASHER])
    assert diag.known.name == "Request block hasher"
    assert diag.findings == (HASHER,)


def test_clean_log_has_no_error():
    error, tb = extract_error("all good\nSaved 96 samples\n")
    assert error is None and tb == ""
    assert not diagnose("all good\n").explained


def test_runner_is_stdlib_only_and_parses_on_python39():
    """runner.py is shipped to hosts with old interpreters: stdlib imports, 3.9 grammar."""
    import ast
    import sys
    from pathlib import Path

    import drift.jobs.runner as runner

    source = Path(runner.__file__).read_text()
    tree = ast.parse(source, feature_version=(3, 9))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert names <= set(sys.stdlib_module_names), names - set(sys.stdlib_module_names)
