"""A name bound by `try: from new import X` / `except ImportError: from old import X`.

The consumer is written against the first choice; the fallback only runs when that import
fails. Its uses are typed from the `try` body's binding, so a call of `X` is checked against the
class both releases have under the new path, not against an old path neither has.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

SERVING_BEFORE = """
    class Serving:
        def __init__(self, engine, models):
            self.engine = engine
    """
SERVING_AFTER = """
    class Serving:
        def __init__(self, engine, models, *, render):
            self.engine = engine
    """
MINE = """
    try:
        from gizmo.serving.chat import Serving
    except ImportError:
        from gizmo.serving_chat import Serving


    def build(engine, models):
        return Serving(engine, models)
    """


def _case(mine=MINE):
    files_before = {"gizmo/__init__.py": "", "gizmo/serving/__init__.py": "", "gizmo/serving/chat.py": SERVING_BEFORE}
    files_after = {"gizmo/__init__.py": "", "gizmo/serving/__init__.py": "", "gizmo/serving/chat.py": SERVING_AFTER}
    return Case("fallback", files_before, files_after, {"app/__init__.py": "", "app/mine.py": mine})


def test_uses_are_typed_from_the_first_choice(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT011", line_of(MINE, "return Serving(engine, models)"))])
    assert "render" in findings[0].title


def test_a_handler_that_is_no_import_fallback_rebinds_as_python_does(tmp_path):
    """`except KeyError:` is no fallback of the import: the handler's binding is the later one."""
    mine = MINE.replace("except ImportError:", "except KeyError:")
    assert mine != MINE
    findings = findings_of(tmp_path, _case(mine))
    assert [f.rule_id for f in findings if f.rule_id == "DRIFT011"] == []
