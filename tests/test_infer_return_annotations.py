"""A consumer function annotated `-> SomeTargetClass` types its callers' results (drift/consumer/
infer.py): an accessor that hands out a target object stored elsewhere (`request.app.state.x`)
is, to its callers, an object of the class its annotation names, as a parameter so annotated is."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = "class Engine:\n    def old(self):\n        return 1\n\n    def kept(self):\n        return 2\n"
AFTER = "class Engine:\n    def kept(self):\n        return 2\n"

CONSUMER = """
    from typing import Optional

    from gizmo.engine import Engine


    def current(state) -> Engine:
        return state.engine


    def maybe(state) -> Optional["Engine"]:
        return getattr(state, "engine", None)


    def chained(state):
        return current(state).old()


    def through_a_local(state):
        engine = current(state)
        engine.kept()
        return engine.old()


    def optional(state):
        return maybe(state).old()
    """


def test_an_accessors_return_annotation_types_its_callers(tmp_path):
    case = Case("accessor", {"gizmo/engine.py": BEFORE}, {"gizmo/engine.py": AFTER}, {"app/main.py": CONSUMER},
                [("DRIFT060", line_of(CONSUMER, "return current(state).old()")),
                 ("DRIFT060", line_of(CONSUMER, "return engine.old()")),
                 ("DRIFT060", line_of(CONSUMER, "return maybe(state).old()"))])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_unchanged_class_is_silent(tmp_path):
    case = Case("unchanged", {"gizmo/engine.py": BEFORE}, {"gizmo/engine.py": BEFORE}, {"app/main.py": CONSUMER}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
