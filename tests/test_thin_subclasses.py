"""A consumer class that only subclasses a target class (no method, no field, only configuration)
is the target's class wherever the consumer's other modules import it.

Ray's LLM library (2.49) declares `class ErrorResponse(vLLMErrorResponse): model_config =
ConfigDict(...)` and builds it in `server_utils.py`, which never names vLLM: that module was not
read at all, and vLLM 0.10.2's `ErrorResponse(error=ErrorInfo(...))` went unseen there. Real scan
and rules over synthetic trees of that shape.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, src

BEFORE = {"gizmo/protocol.py": """
    class ErrorResponse:
        def __init__(self, message, code):
            self.message = message
            self.code = code
    """}
AFTER = {"gizmo/protocol.py": """
    class ErrorInfo:
        def __init__(self, message, code):
            self.message = message
            self.code = code


    class ErrorResponse:
        def __init__(self, error):
            self.error = error
    """}

MODELS = """
    from gizmo.protocol import ErrorResponse as GizmoErrorResponse


    class ErrorResponse(GizmoErrorResponse):
        \"\"\"Our error, exactly the library's.\"\"\"

        model_config = {"arbitrary_types_allowed": True}


    class RichError(GizmoErrorResponse):
        def describe(self):
            return "rich"
    """
SERVER = """
    from app.models import ErrorResponse, RichError


    def error_for(message, status):
        return ErrorResponse(message=message, code=status)


    def rich_for(message, status):
        return RichError(message=message, code=status)
    """


def _case() -> Case:
    return Case("thin-subclass", BEFORE, AFTER,
                {"app/__init__.py": "", "app/models.py": MODELS, "app/server.py": SERVER})


def test_a_module_that_never_names_the_target_builds_its_class_through_a_thin_subclass(tmp_path):
    findings = [f for f in findings_of(tmp_path, _case()) if f.consumer_site.path == "app/server.py"]
    text = src(SERVER)
    lines = {f.consumer_site.line for f in findings if f.severity.value == "breaking"}
    # the thin subclass is the library's own class; `RichError`, read in the same module, is the
    # consumer's, built through the library's `__init__` it inherits: both calls now fail
    assert line_of(text, "return ErrorResponse(") in lines
    assert line_of(text, "return RichError(") in lines
    thin = [f for f in findings if f.consumer_site.line == line_of(text, "return ErrorResponse(")]
    assert all(f.symbol.startswith("gizmo.protocol.ErrorResponse") for f in thin)


def test_a_subclass_with_a_member_of_its_own_is_not_handed_on_as_the_targets():
    import ast

    from drift.probes.reexports import thin_subclasses
    tree = ast.parse(src(MODELS))
    exports = {"GizmoErrorResponse": "gizmo.protocol.ErrorResponse"}
    assert thin_subclasses(tree, exports) == {"ErrorResponse": "gizmo.protocol.ErrorResponse"}
