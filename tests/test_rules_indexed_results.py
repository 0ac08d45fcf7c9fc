"""DRIFT032: a call's result read at a constant index the target's tuple no longer reaches.

`res = runner.prepare(x)` then `res[2]`: the baseline returned three values, the target returns
two, so the read raises IndexError (as `a, b, c = runner.prepare(x)` raises ValueError), reported
at the read, where Python raises. Counted from the return annotations on each side. An index the target still reaches, or a local assigned
twice, is silent. The failure is Python's own.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/runner.py": """
    class Runner:
        def prepare(self, x) -> tuple[int, int, int]:
            return x, x, x
    """}
AFTER = {"gizmo/runner.py": """
    class Runner:
        def prepare(self, x) -> tuple[int, int]:
            return x, x
    """}
USE = """
    from gizmo.runner import Runner


    def third(x):
        res = Runner().prepare(x)
        return res[2]


    def first(x):
        res = Runner().prepare(x)
        return res[1]


    def reassigned(x):
        res = Runner().prepare(x)
        res = (res[0], res[1], 0)
        return res[2]
    """


def test_a_result_read_past_the_targets_tuple_is_breaking(tmp_path):
    found = findings_of(tmp_path, Case("indexed", BEFORE, AFTER, {"app/use.py": USE}))
    assert_findings(found, [("DRIFT032", line_of(USE, "return res[2]", 1))])
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.use", "third(1)") == found[0].predicted_failure
    assert raised_by(after, "app.use", "first(1)") is None
    assert raised_by(after, "app.use", "reassigned(1)") is None
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.use", "third(1)") is None
