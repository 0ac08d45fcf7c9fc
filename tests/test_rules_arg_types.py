"""DRIFT064: an argument built as plain Python lists, for a parameter or dataclass field whose
elements the target now declares as one class (vLLM 0.11.1's `sampled_token_ids:
list[np.ndarray]`, was `list[list[int]]`). Synthetic before/after trees."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only

BEFORE = {"gizmo/outputs.py": """
    from dataclasses import dataclass
    from typing import Optional

    @dataclass
    class RunnerOutput:
        req_ids: list[str]
        sampled_token_ids: list[list[int]]
        counts: list[int]
        logprobs: Optional[list[list[float]]] = None

    def pack(tokens: list[list[int]], width: int = 0):
        return tokens
    """}
AFTER = {"gizmo/outputs.py": """
    from dataclasses import dataclass

    import numpy as np
    import torch

    @dataclass
    class RunnerOutput:
        req_ids: list[str]
        sampled_token_ids: list[np.ndarray]
        counts: list[int]
        logprobs: list[int | np.ndarray] | None = None

    def pack(tokens: list[torch.Tensor], width: int = 0):
        return [t.tolist() for t in tokens]
    """}


def _found(tmp_path, consumer):
    return findings_of(tmp_path, Case("arg-types", BEFORE, AFTER, {"app/runner.py": consumer}))


def test_plain_lists_passed_where_the_target_now_declares_arrays(tmp_path):
    consumer = """
        from dataclasses import dataclass

        from gizmo.outputs import RunnerOutput, pack

        @dataclass
        class MyOutput(RunnerOutput):
            tkv: int = 0

        def from_tensor(sampled, ids):
            return RunnerOutput(
                req_ids=ids,
                sampled_token_ids=sampled.tolist(),
                counts=[1, 2])

        def from_literal(ids):
            return RunnerOutput(req_ids=ids, sampled_token_ids=[[1], [2]], counts=[])

        def from_comprehension(ids, rows):
            return RunnerOutput(req_ids=ids, sampled_token_ids=[[t] for t in rows], counts=[])

        def from_appends(ids, rows):
            out = []
            for r in rows:
                out.append(r.tolist())
            return MyOutput(req_ids=ids,
                            sampled_token_ids=out, counts=[], tkv=3)

        def packed(rows):
            return pack([[1, 2], [3]], 4)
        """
    found = _found(tmp_path, consumer)
    assert_findings(found, [
        ("DRIFT064", line_of(consumer, "sampled_token_ids=sampled.tolist()")),
        ("DRIFT064", line_of(consumer, "sampled_token_ids=[[1], [2]]")),
        ("DRIFT064", line_of(consumer, "sampled_token_ids=[[t] for t in rows]")),
        ("DRIFT064", line_of(consumer, "sampled_token_ids=out")),
        ("DRIFT064", line_of(consumer, "pack([[1, 2], [3]], 4)")),
    ])
    sub = next(f for f in found if f.consumer_site.line == line_of(consumer, "sampled_token_ids=out"))
    assert sub.title.startswith("`MyOutput(sampled_token_ids=...)`") and "list[np.ndarray]" in sub.title
    assert sub.severity.value == "risky"
    # the field is declared on the target's class, not on the consumer's subclass
    assert sub.target_evidence[0].symbol == "gizmo.outputs.RunnerOutput.sampled_token_ids"
    assert sub.target_evidence[0].line == line_of(AFTER["gizmo/outputs.py"], "sampled_token_ids:")
    assert sub.baseline_evidence[0].line == line_of(BEFORE["gizmo/outputs.py"], "sampled_token_ids:")
    positional = only(tuple(f for f in found if "pack" in f.title), "DRIFT064")
    assert "list[torch.Tensor]" in positional.title


def test_values_that_fit_or_cannot_be_proved_plain_are_not_reported(tmp_path):
    consumer = """
        from dataclasses import dataclass

        import numpy as np
        from gizmo.outputs import RunnerOutput, pack

        @dataclass
        class Converting(RunnerOutput):
            def __post_init__(self):
                self.sampled_token_ids = [np.asarray(t) for t in self.sampled_token_ids]

        def empty(ids):
            return RunnerOutput(req_ids=ids, sampled_token_ids=[], counts=[1])

        def arrays(ids, rows):
            return RunnerOutput(req_ids=ids, sampled_token_ids=[np.asarray(r) for r in rows], counts=[1])

        def unknown(ids, given):
            return RunnerOutput(req_ids=ids, sampled_token_ids=given, counts=list(given))

        def mixed(ids, rows):
            out = []
            for r in rows:
                out.append(np.asarray(r))
            out.append([0])
            return RunnerOutput(req_ids=ids, sampled_token_ids=out, counts=[])

        def rebound(ids, rows):
            out = [[0]]
            out[0] = np.asarray(rows[0])
            return RunnerOutput(req_ids=ids, sampled_token_ids=out, counts=[])

        def union_field(ids):
            return RunnerOutput(req_ids=ids, sampled_token_ids=[], counts=[], logprobs=[[0.5]])

        def converted(ids, sampled):
            return Converting(req_ids=ids, sampled_token_ids=sampled.tolist(), counts=[])

        def packed(rows):
            return pack([np.asarray(r) for r in rows])
        """
    assert_findings(_found(tmp_path, consumer), [])


def test_an_unchanged_annotation_is_not_reported(tmp_path):
    consumer = """
        from gizmo.outputs import RunnerOutput

        def build(ids, sampled):
            return RunnerOutput(req_ids=ids, sampled_token_ids=sampled.tolist(), counts=[1])
        """
    found = findings_of(tmp_path, Case("same", BEFORE, BEFORE, {"app/runner.py": consumer}))
    assert_findings(found, [])
