"""DRIFT017 through a target callable's own `**kwargs`: a key written into the consumer's dict
(`kwargs["old_flag"] = True`) reaches `LLM(**kwargs)`, whose `__init__(self, model, **kwargs)`
builds `EngineArgs(model=model, **kwargs)`: EngineArgs lost the field, so the key breaks where it
is written. A key the forwarder takes out first (`kwargs.pop("seed", None)`) never arrives."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

LLM = """
    class LLM:
        def __init__(self, model, **kwargs):
            kwargs.pop("legacy", None)
            self.args = EngineArgs(model=model, **kwargs)
    """
BEFORE = {"gizmo/__init__.py": """
    from dataclasses import dataclass


    @dataclass
    class EngineArgs:
        model: str = "m"
        old_flag: bool = False
        legacy: bool = False
    """ + LLM}
AFTER = {"gizmo/__init__.py": """
    from dataclasses import dataclass


    @dataclass
    class EngineArgs:
        model: str = "m"
    """ + LLM}
CONSUMER = {"app/actor.py": """
    import gizmo


    class Actor:
        def __init__(self, *args, **kwargs):
            kwargs["old_flag"] = True
            kwargs["legacy"] = True
            self.llm = gizmo.LLM(*args, **kwargs)
    """}


def test_a_key_through_the_targets_own_kwargs_is_judged_by_the_class_it_builds(tmp_path):
    src = CONSUMER["app/actor.py"]
    found = [f for f in findings_of(tmp_path, Case("key-forwarded", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT017"]
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [(line_of(src, 'kwargs["old_flag"]'), "breaking")], \
        [f.title for f in found]
    assert "whose **kwargs go to `EngineArgs`" in found[0].title
