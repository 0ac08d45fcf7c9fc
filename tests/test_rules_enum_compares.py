"""DRIFT117 (synthetic before/after trees): a consumer tests a target object's attribute against a
string; the target turned the attribute from a `str` into a member of a plain Enum, so the test's
answer is fixed. Shown by running the synthetic code on both releases."""

from __future__ import annotations

from pathlib import Path

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

LAYER_BEFORE = """
    class Layer:
        def __init__(self, activation: str = "silu"):
            self.activation = activation
    """
KINDS = """
    from enum import Enum


    class Activation(Enum):
        SILU = "silu"
        GELU = "gelu"

        @classmethod
        def from_str(cls, s: str) -> "Activation":
            return cls(s)


    class Mode(str, Enum):
        SILU = "silu"
        GELU = "gelu"
    """
LAYER_AFTER = """
    from gizmo.kinds import Activation


    class Layer:
        def __init__(self, activation: str = "silu"):
            self.activation = Activation.from_str(activation)
    """
LAYER_AFTER_STR_ENUM = LAYER_AFTER.replace("import Activation", "import Mode") \
    .replace("Activation.from_str(activation)", "Mode(activation)")
MINE = """
    from gizmo.layer import Layer


    def scale(layer: Layer) -> int:
        if layer.activation == "gelu":
            return 2
        if layer.activation not in ("silu", "gelu"):
            return 0
        return 1


    def run():
        assert scale(Layer("gelu")) == 2
    """


def _case(after: str) -> Case:
    return Case("enum", {"gizmo/layer.py": LAYER_BEFORE, "gizmo/kinds.py": KINDS},
                {"gizmo/layer.py": after, "gizmo/kinds.py": KINDS}, {"app/mine.py": MINE})


def test_a_string_test_of_an_attribute_that_became_a_plain_enum_is_reported(tmp_path: Path):
    found = findings_of(tmp_path, _case(LAYER_AFTER))
    assert_findings(found, [("DRIFT117", line_of(MINE, '== "gelu"')), ("DRIFT117", line_of(MINE, "not in"))])
    eq = next(f for f in found if f.consumer_site.line == line_of(MINE, '== "gelu"'))
    ne = next(f for f in found if f.consumer_site.line == line_of(MINE, "not in"))
    assert "always False" in eq.title and "always True" in ne.title and "`Activation`" in eq.title
    assert eq.baseline_evidence[0].line == line_of(LAYER_BEFORE, "self.activation")
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("before"), "app.mine", "run()") is None
    assert raised_by(roots("after"), "app.mine", "run()") == "AssertionError: "


def test_an_enum_that_mixes_in_str_still_equals_its_value_and_is_silent(tmp_path: Path):
    assert_findings(findings_of(tmp_path, _case(LAYER_AFTER_STR_ENUM)), [])
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.mine", "run()") is None


def test_an_attribute_that_stays_a_string_is_silent(tmp_path: Path):
    assert_findings(findings_of(tmp_path, _case(LAYER_BEFORE)), [])
