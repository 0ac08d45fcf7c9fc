"""DRIFT060 past an earlier step already missing on the target: `cap = Capturer.get_instance()`
then `cap.save(...)`, where the target dropped both `get_instance` and `save` but kept the class.
The second read is typed as the baseline's value (an instance of `Capturer`, from its return
annotation) on the class the target keeps: reported risky, since it runs only once the first
break is fixed. A member the kept class still has says nothing."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/capture.py": """
    class Capturer:
        def capture(self, x):
            return x

        def save(self, idx):
            return idx

        @staticmethod
        def get_instance() -> "Capturer | None":
            return Capturer()
    """}
AFTER = {"gizmo/capture.py": """
    class Capturer:
        def capture(self, x):
            return x

        def clear(self):
            return None
    """}
CONSUMER = """
    from gizmo.capture import Capturer

    def step(idx):
        cap = Capturer.get_instance()
        if cap is not None:
            cap.capture(idx)
            cap.save(idx)
    """


def test_a_read_past_a_missing_accessor_is_held_to_the_kept_class(tmp_path):
    found = [f for f in findings_of(tmp_path, Case("past", BEFORE, AFTER, {"app/step.py": CONSUMER}))
             if f.rule_id == "DRIFT060"]
    by_line = {f.consumer_site.line: f for f in found}
    assert sorted(by_line) == [line_of(CONSUMER, "get_instance()"), line_of(CONSUMER, "cap.save(idx)")], \
        [f.title for f in found]
    save = by_line[line_of(CONSUMER, "cap.save(idx)")]
    assert save.severity.value == "risky"
    assert save.predicted_failure.startswith("AttributeError: 'Capturer' object has no attribute 'save'")
    assert "get_instance" in save.predicted_failure
    assert by_line[line_of(CONSUMER, "get_instance()")].severity.value == "breaking"
