"""DRIFT086: an override that still returns the baseline's declared type where the target's base now
declares one of its own classes (`-> str` became `-> Kind`), on synthetic before/after trees; the
target's code then fails on the value (held to what Python raises). Read from the override's
annotation, or from the type of the one constant it returns."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

BEFORE = """
    class MambaBase:
        @property
        def mamba_type(self) -> str:
            raise NotImplementedError

        def get_backend(self):
            return pick(self.mamba_type)


    def pick(kind):
        assert isinstance(kind, str)
        return kind
    """
AFTER = """
    import enum


    class Kind(enum.Enum):
        GDN = "gdn"

        def get_class(self):
            return self.value


    class MambaBase:
        @property
        def mamba_type(self) -> Kind:
            raise NotImplementedError

        def get_backend(self):
            return pick(self.mamba_type)


    def pick(kind):
        assert isinstance(kind, Kind)
        return kind.get_class()
    """
ANNOTATED = """
    from gizmo.abstract import MambaBase


    class Mine(MambaBase):
        @property
        def mamba_type(self) -> str:
            return self.name()

        def name(self):
            return "gdn"
    """
LITERAL = """
    from gizmo.abstract import MambaBase


    class Mine(MambaBase):
        @property
        def mamba_type(self):
            return "gdn"
    """
FOLLOWS = """
    from gizmo.abstract import MambaBase, Kind


    class Mine(MambaBase):
        @property
        def mamba_type(self) -> Kind:
            return Kind.GDN
    """


def _case(consumer: str, expected) -> Case:
    return Case("override-return-type", {"gizmo/abstract.py": BEFORE}, {"gizmo/abstract.py": AFTER},
                {"app/mine.py": consumer}, expected)


def test_an_override_annotated_with_the_old_return_type(tmp_path):
    case = _case(ANNOTATED, [("DRIFT086", line_of(ANNOTATED, "def mamba_type"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    assert only(findings, "DRIFT086").severity.value == "risky"
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.mine", "Mine().get_backend()") == "AssertionError: "
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", "Mine().get_backend()") is None


def test_an_override_returning_a_constant_of_the_old_type(tmp_path):
    case = _case(LITERAL, [("DRIFT086", line_of(LITERAL, "return \"gdn\""))])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "Mine().get_backend()") \
        == "AssertionError: "


def test_an_override_that_follows_the_new_type_is_silent(tmp_path):
    case = _case(FOLLOWS, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "Mine().get_backend()") is None


AFTER_PROTOCOL = """
    from typing import Protocol


    class Named(Protocol):
        def upper(self) -> str:
            ...


    class MambaBase:
        @property
        def mamba_type(self) -> Named:
            raise NotImplementedError

        def get_backend(self):
            return pick(self.mamba_type)


    def pick(kind):
        return kind.upper()
    """


def test_a_protocol_the_old_value_satisfies_is_silent(tmp_path):
    case = Case("override-return-protocol", {"gizmo/abstract.py": BEFORE}, {"gizmo/abstract.py": AFTER_PROTOCOL},
                {"app/mine.py": ANNOTATED}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "Mine().get_backend()") is None
