"""DRIFT137: an `except ValueError:` around calls into the target stops catching a target error
class that no longer derives from ValueError (vLLM 0.27's `VLLMValidationError(VLLMClientError)`,
a `ValueError` in 0.26): the request error the consumer mapped to a 400 now escapes. Handlers that
name the class or one of its kept bases, broad ones, ones around no target call, and ones for
another builtin stay silent; so does a class the target never raises."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/errors.py": """
        class ToolError(ValueError):
            pass

        class QuietError(ValueError):
            pass

        class ClientError(Exception):
            pass
        """,
    "gizmo/serve.py": """
        from gizmo.errors import ToolError

        class Server:
            def handle(self, req):
                if not req:
                    raise ToolError("empty request")
                return req

        def render(req):
            if not req:
                raise ToolError("empty request")
            return req
        """,
}
AFTER = dict(BEFORE, **{
    "gizmo/errors.py": """
        class GizmoError(Exception):
            pass

        class ClientError(GizmoError):
            pass

        class ToolError(ClientError):
            pass

        class QuietError(ClientError):
            pass
        """,
})
APP = """
    from gizmo.serve import Server, render
    from gizmo.errors import ClientError


    def local(x):
        return int(x)


    class Api:
        def __init__(self):
            self.server = Server()

        def chat(self, req):
            try:
                return self.server.handle(req)
            except ValueError as e:
                return f"400 {e}"

        def plain(self, req):
            try:
                return render(req)
            except (TypeError, ValueError):
                return "400"

        def named(self, req):
            try:
                return render(req)
            except (ValueError, ClientError):
                return "400"

        def broad(self, req):
            try:
                return render(req)
            except Exception:
                return "500"

        def own(self, x):
            try:
                return local(x)
            except ValueError:
                return 0

        def other(self, req):
            try:
                return render(req)
            except KeyError:
                return "404"
    """


def test_a_handler_for_a_builtin_the_target_error_class_left_is_reported(tmp_path):
    found = findings_of(tmp_path, Case("lost", BEFORE, AFTER, {"app/api.py": APP}))
    assert_findings(found, [
        ("DRIFT137", line_of(APP, "except ValueError as e")),
        ("DRIFT137", line_of(APP, "except (TypeError, ValueError)")),
    ])
    f = found[0]
    assert f.severity.value == "risky" and f.symbol == "gizmo.errors.ToolError"
    assert "`except ValueError` no longer catches `ToolError`" in f.title and "ClientError" in f.title
    # Python agrees: on the baseline the handler maps the error, on the target it escapes
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.api", "Api().chat('')") is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.api", "Api().chat('')") == \
        "gizmo.errors.ToolError: empty request"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.api", "Api().named('')") is None


def test_a_class_the_target_never_raises_is_not_reported(tmp_path):
    quiet = {k: v.replace('raise ToolError("empty request")', "return None") for k, v in AFTER.items()}
    found = findings_of(tmp_path, Case("quiet", BEFORE, quiet, {"app/api.py": APP}))
    assert_findings(found, [])
