"""A parameter annotated with a union of the target's classes (`engine: AsyncLLMEngine |
EngineClient`, `Union[A, B]`, `Optional[Union[A, B]]`) may hold an instance of any member: the
solver types it from every member, a member the side has no class for at all (gone there, or a
name only a `TYPE_CHECKING` import ever named) is set aside, and the remaining class says what
the parameter holds. So a method the target removed from it is reported, in the `else` of a
`hasattr` test the target now fails too, as on a parameter annotated with the class alone
(synthetic before/after pairs, the consumer really run on both)."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

ENGINE = """
    class Engine:
        async def get_cfg(self):
            return 1

        async def get_model_cfg(self):
            return 2

        async def keep(self):
            return 3
    """
NEW_ENGINE = """
    class NewEngine:
        async def keep(self):
            return 3
    """
BEFORE = {"gizmo/__init__.py": "", "gizmo/engine.py": ENGINE}
AFTER = {"gizmo/__init__.py": "", "gizmo/new.py": NEW_ENGINE,
         "gizmo/engine.py": "from gizmo.new import NewEngine\n\nEngine = NewEngine  # the old name kept\n"}


def _mine(annotation: str) -> str:
    return f"""
    from __future__ import annotations

    from typing import TYPE_CHECKING, Optional, Union

    if TYPE_CHECKING:
        from gizmo.engine import Engine
        from gizmo.protocol import Client


    async def configure(engine: {annotation}):
        if hasattr(engine, "get_cfg"):
            return await engine.get_cfg()
        else:
            return await engine.get_model_cfg()


    async def steady(engine: {annotation}):
        return await engine.keep()
    """


RUN = "__import__('asyncio').run(configure(__import__('gizmo.engine', fromlist=['Engine']).Engine()))"


@pytest.mark.parametrize("annotation", ["Engine | Client", "Union[Engine, Client]", "Optional[Union[Client, Engine]]"])
def test_a_union_parameter_is_typed_by_the_member_the_side_has(tmp_path, annotation):
    mine = _mine(annotation)
    findings = findings_of(tmp_path, Case("union", BEFORE, AFTER, {"app/__init__.py": "", "app/mine.py": mine}))
    gone = [f for f in findings if f.rule_id == "DRIFT060"]
    assert [(f.consumer_site.line, f.symbol) for f in gone] == \
        [(line_of(mine, "return await engine.get_model_cfg()"), gone[0].symbol)]
    assert gone[0].severity.name == "BREAKING"
    # the hasattr-guarded read stays silent (its branch no longer runs), the kept method too
    assert not [f for f in findings if f.consumer_site.line in (line_of(mine, "return await engine.get_cfg()"),
                                                               line_of(mine, "return await engine.keep()"))
                and f.severity.name == "BREAKING"]
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", RUN) == \
        "AttributeError: 'NewEngine' object has no attribute 'get_model_cfg'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", RUN) is None


def test_a_union_of_two_classes_both_sides_have_says_nothing_for_sure(tmp_path):
    """Both members are there: which one is handed in is not known, so no member's missing
    method is reported as certain."""
    other = "class Client:\n    async def get_model_cfg(self):\n        return 4\n"
    mine = _mine("Engine | Client")
    case = Case("union2", dict(BEFORE, **{"gizmo/protocol.py": other}), dict(AFTER, **{"gizmo/protocol.py": other}),
                {"app/__init__.py": "", "app/mine.py": mine})
    assert_findings([f for f in findings_of(tmp_path, case) if f.severity.name == "BREAKING"], [])
