"""DRIFT097: a consumer override returns a tuple of the length the baseline's own code unpacked the
method's result into, and the target's code now unpacks another count, on synthetic before/after
trees; running the target's caller with the override raises what the finding predicts."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

BEFORE = """
    class Proposer:
        def run_model(self, tokens):
            return tokens, None

        def propose(self, tokens):
            hidden, logits = self.run_model(tokens)
            return hidden
    """
AFTER = """
    class Proposer:
        def run_model(self, tokens):
            return tokens, None, None

        def propose(self, tokens):
            out = self.run_model(tokens)
            hidden, logits, aux = out
            return hidden
    """
OLD_LENGTH = """
    from gizmo.proposer import Proposer


    class Mine(Proposer):
        def run_model(self, tokens):
            if not tokens:
                return [], None
            return tokens[::-1], None
    """
NEW_LENGTH = """
    from gizmo.proposer import Proposer


    class Mine(Proposer):
        def run_model(self, tokens):
            return tokens, None, None
    """
COMPUTED = """
    from gizmo.proposer import Proposer


    class Mine(Proposer):
        def run_model(self, tokens):
            return tuple(self.parts(tokens))

        def parts(self, tokens):
            return [tokens, None]
    """
UNRELATED = """
    from gizmo.proposer import Proposer


    class Mine(Proposer):
        pass


    class Other:
        def run_model(self, tokens):
            return tokens, None
    """


def _case(consumer: str, expected) -> Case:
    return Case("unpacked-returns", {"gizmo/proposer.py": BEFORE}, {"gizmo/proposer.py": AFTER},
                {"app/mine.py": consumer}, expected)


def test_an_override_returning_the_length_the_baseline_unpacked(tmp_path):
    case = _case(OLD_LENGTH, [("DRIFT097", line_of(OLD_LENGTH, "return [], None"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    found = only(findings, "DRIFT097")
    assert found.severity.value == "breaking"
    assert found.predicted_failure == "ValueError: not enough values to unpack (expected 3, got 2)"
    assert found.target_evidence[0].line == line_of(AFTER, "hidden, logits, aux = out")  # where Python raises
    after = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "Mine().propose([1])")
    assert after == found.predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", "Mine().propose([1])") is None


def test_an_override_already_of_the_new_length_is_left_alone(tmp_path):
    case = _case(NEW_LENGTH, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "Mine().propose([1])") is None


def test_a_tuple_whose_length_is_not_seen_is_left_alone(tmp_path):
    case = _case(COMPUTED, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_a_class_outside_the_target_hierarchy_is_left_alone(tmp_path):
    case = _case(UNRELATED, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


PASSED_ON = """
    class Proposer:
        def run_model(self, tokens):
            return tokens, None

        def propose(self, tokens):
            return self.run_model(tokens)
    """


def test_a_result_the_baseline_passed_on_whole_is_risky(tmp_path):
    case = Case("unpacked-returns", {"gizmo/proposer.py": PASSED_ON}, {"gizmo/proposer.py": AFTER},
                {"app/mine.py": OLD_LENGTH}, [("DRIFT097", line_of(OLD_LENGTH, "return [], None"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    assert only(findings, "DRIFT097").severity.value == "risky"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", "Mine().propose([1])") is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "Mine().propose([1])") \
        == "ValueError: not enough values to unpack (expected 3, got 2)"


PATCHED = """
    from gizmo import proposer


    def run_model(self, tokens):
        return tokens, None


    proposer.Proposer.run_model = run_model
    """


def test_a_function_patched_over_the_method(tmp_path):
    case = Case("unpacked-returns", {"gizmo/proposer.py": BEFORE}, {"gizmo/proposer.py": AFTER},
                {"app/mine.py": PATCHED}, [("DRIFT097", line_of(PATCHED, "return tokens, None"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    assert only(findings, "DRIFT097").severity.value == "breaking"
    run = "proposer.Proposer().propose([1])"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", run) is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", run) \
        == "ValueError: not enough values to unpack (expected 3, got 2)"


RUNNER_BEFORE = """
    class Registry:
        models = {}

        def register(self, arch, cls):
            self.models[arch] = cls


    REGISTRY = Registry()


    class Runner:
        def __init__(self, arch):
            self.model = REGISTRY.models[arch]()

        def step(self, tokens):
            hidden, logits = self.model.forward(tokens)
            return hidden
    """
RUNNER_AFTER = RUNNER_BEFORE.replace("hidden, logits = self.model.forward(tokens)",
                                     "hidden, logits, aux = self.model.forward(tokens)")
HANDED = """
    from gizmo.runner import REGISTRY


    class MyModel:
        def forward(self, tokens):
            return tokens, None


    REGISTRY.register("Mine", MyModel)
    """


def test_a_class_handed_to_the_target_is_risky(tmp_path):
    case = Case("unpacked-returns", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_AFTER},
                {"app/mine.py": HANDED}, [("DRIFT097", line_of(HANDED, "return tokens, None"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    assert only(findings, "DRIFT097").severity.value == "risky"
    run = "__import__('gizmo.runner').runner.Runner('Mine').step([1])"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", run) is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", run) \
        == "ValueError: not enough values to unpack (expected 3, got 2)"


# the baseline also has an unrelated class whose own `run_model` its own code unpacks into 3 names:
# no object of `Proposer` ever meets that call, so it says nothing of what `run_model` had to return
SIBLING = """
    class Drafter:
        def run_model(self, tokens):
            return tokens, None, None

        def draft(self, tokens):
            hidden, logits, aux = self.run_model(tokens)
            return hidden
    """


def test_a_same_named_method_of_an_unrelated_class_does_not_hide_the_change(tmp_path):
    """The baseline's unpacking of `.run_model()` on `self` in an unrelated class is left out, for an
    override and for a patch alike; the same call on an object of unknown class still counts."""
    for name, consumer in (("override", OLD_LENGTH), ("patch", PATCHED)):
        expected = [("DRIFT097", line_of(consumer, "return [], None" if name == "override" else "return tokens, None"))]
        case = Case("unpacked-sibling", {"gizmo/proposer.py": BEFORE + SIBLING}, {"gizmo/proposer.py": AFTER},
                    {"app/mine.py": consumer}, expected)
        assert_findings(findings_of(tmp_path / name, case), case.expected)
    held = SIBLING.replace("self.run_model(tokens)", "tokens.owner.run_model(tokens)")
    case = Case("unpacked-unknown", {"gizmo/proposer.py": BEFORE + held}, {"gizmo/proposer.py": AFTER},
                {"app/mine.py": PATCHED}, [])
    assert_findings(findings_of(tmp_path / "unknown", case), case.expected)
