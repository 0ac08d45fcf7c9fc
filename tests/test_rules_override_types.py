"""DRIFT081: an override keeps a positional parameter the target's base renamed and retyped, and
the target's own call still passes that slot by position (synthetic before/after packages)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = """
    class Runner:
        def prepare_inputs(self, scheduler_output: dict, num_tokens_after_padding: int) -> list:
            return [0] * num_tokens_after_padding

        def execute(self, out):
            return self.prepare_inputs(out, 8)
    """
AFTER = """
    class BatchDescriptor:
        def __init__(self, num_tokens: int):
            self.num_tokens = num_tokens


    class Runner:
        def prepare_inputs(self, scheduler_output: dict, batch_desc: BatchDescriptor) -> list:
            return [0] * batch_desc.num_tokens

        def execute(self, out):
            return self.prepare_inputs(out, BatchDescriptor(8))
    """
MINE = """
    from gizmo.runner import Runner


    class MyRunner(Runner):
        def prepare_inputs(self, scheduler_output, num_tokens_after_padding):
            return [1] * num_tokens_after_padding
    """


def test_an_override_keeping_a_slot_the_base_retyped(tmp_path):
    case = Case("retyped", {"gizmo/runner.py": BEFORE}, {"gizmo/runner.py": AFTER}, {"app/mine.py": MINE},
                [("DRIFT081", line_of(MINE, "def prepare_inputs"))])
    findings = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT081"]
    assert_findings(findings, case.expected)
    f = findings[0]
    assert f.symbol == "gizmo.runner.Runner.prepare_inputs" and f.severity.value == "breaking"
    assert "`batch_desc: BatchDescriptor`" in f.title and "`num_tokens_after_padding` (int)" in f.title


def test_an_override_that_follows_the_target_or_is_called_by_keyword_is_left_alone(tmp_path):
    follows = MINE.replace("num_tokens_after_padding):\n            return [1] * num_tokens_after_padding",
                           "batch_desc):\n            return [1] * batch_desc.num_tokens")
    by_keyword = AFTER.replace("self.prepare_inputs(out, BatchDescriptor(8))",
                               "self.prepare_inputs(out, batch_desc=BatchDescriptor(8))")
    for i, (after, mine) in enumerate(((AFTER, follows), (by_keyword, MINE))):
        case = Case("quiet", {"gizmo/runner.py": BEFORE}, {"gizmo/runner.py": after}, {"app/mine.py": mine})
        assert not [f for f in findings_of(tmp_path / str(i), case) if f.rule_id == "DRIFT081"]


def test_an_override_that_never_reads_the_retyped_parameter_is_left_alone(tmp_path):
    """bart-plugin's `create_encoder_prompt(self, prompt, mm_data)` uses only `prompt`: a
    `MultiModalDataItems` where a dict came changes nothing it does."""
    unread = MINE.replace("return [1] * num_tokens_after_padding", "return [1] * len(scheduler_output)")
    case = Case("unread", {"gizmo/runner.py": BEFORE}, {"gizmo/runner.py": AFTER}, {"app/mine.py": unread})
    assert not [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT081"]


def test_an_override_reading_only_what_the_new_value_has_is_left_alone(tmp_path):
    """vllm-openvino's `execute_model(self, execute_model_req)` reads only
    `.total_num_scheduled_tokens`, which the `SchedulerOutput` vLLM now hands in has too."""
    before = """
    class Request:
        def __init__(self):
            self.size = 1
            self.extra = 0


    class Runner:
        def prepare(self, out, req: Request) -> int:
            return req.size

        def execute(self, out):
            return self.prepare(out, Request())
    """
    after = """
    class Batch:
        def __init__(self):
            self.size = 1


    class Runner:
        def prepare(self, out, batch: Batch) -> int:
            return batch.size

        def execute(self, out):
            return self.prepare(out, Batch())
    """
    mine = """
    from gizmo.runner import Runner


    class MyRunner(Runner):
        def prepare(self, out, req):
            return req.size + req.{member}
    """
    for i, member, expected in ((0, "size", 0), (1, "extra", 1)):
        case = Case("fits", {"gizmo/runner.py": before}, {"gizmo/runner.py": after},
                    {"app/mine.py": mine.format(member=member)})
        got = [f for f in findings_of(tmp_path / str(i), case) if f.rule_id == "DRIFT081"]
        assert len(got) == expected, (member, [f.title for f in got])
