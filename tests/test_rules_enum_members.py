"""Members of a target enum read off the class (`Status.OLD`), for every enum base the stdlib
has: a member the target dropped raises AttributeError where it is read. An IntEnum or StrEnum
class used to count as partly unseen (its int/str base has members no facts list), so nothing was
said; now only the builtin's own names (`bit_length`, `upper`) and the enum machinery's (`value`)
stay unknown."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

MINE = """
    from gizmo.req import Status


    def is_old(r):
        return r.status == Status.OLD


    def digits():
        return Status.WAITING.value, Status.WAITING.name, Status.__members__
    """

BASES = {
    "Enum": ("enum.Enum", "enum.auto()"),
    "IntEnum": ("enum.IntEnum", "2"),
    "IntEnum imported": ("IntEnum", "enum.auto()"),
    "str mixin": ("str, enum.Enum", "'x'"),
    "IntFlag": ("enum.IntFlag", "4"),
}


def _case(base: str, value: str, mine: str = MINE) -> Case:
    def req(member: str) -> str:
        return (f"import enum\nfrom enum import IntEnum\n\n\nclass Status({base}):\n"
                f"    WAITING = 1\n    {member} = {value}\n")
    return Case(base, {"gizmo/req.py": req("OLD")}, {"gizmo/req.py": req("RENAMED")},
                {"app/__init__.py": "", "app/mine.py": mine})


@pytest.mark.parametrize("label", sorted(BASES))
def test_a_member_gone_from_the_target_enum_is_reported_where_it_is_read(tmp_path, label):
    base, value = BASES[label]
    case = _case(base, value)
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT060", line_of(case.consumer["app/mine.py"], "Status.OLD"))])
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.mine", "is_old(type('R', (), {'status': 1}))") == "AttributeError: OLD"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine",
                     "is_old(type('R', (), {'status': 1})), digits()") is None
    assert raised_by(roots, "app.mine", "digits()") is None  # the builtin's and the enum's names stay quiet


def test_the_builtin_members_of_an_int_or_str_enum_are_no_finding(tmp_path):
    mine = MINE.replace("Status.WAITING.name", "Status.WAITING.bit_length(), Status.WAITING.real")
    case = _case("enum.IntEnum", "2", mine)
    assert_findings(findings_of(tmp_path, case), [("DRIFT060", line_of(mine, "Status.OLD"))])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "digits()") is None


def test_a_member_the_target_keeps_is_no_finding(tmp_path):
    case = _case("enum.IntEnum", "2", MINE.replace("Status.OLD", "Status.WAITING"))
    assert_findings(findings_of(tmp_path, case), [])
