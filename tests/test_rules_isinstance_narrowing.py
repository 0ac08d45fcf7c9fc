"""isinstance narrowing: where a test says a value is a target class (under an alias, in a tuple
or a PEP 604 union with classes that are not the target's, in an `and`/`if ... else` expression, or before an early
exit), the value is that class there, whatever it was before (here the return of the consumer's
own untyped method), and reading a field the target's pydantic model or dataclass dropped is
reported at that line (synthetic before/after pairs; the predicted failure is what Python raises)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

PROTO_BEFORE = """
    from dataclasses import dataclass

    from pydantic import BaseModel


    class ErrorResponse(BaseModel):
        message: str
        code: int


    @dataclass
    class Output:
        text: str
        tokens: list
    """
PROTO_AFTER = PROTO_BEFORE.replace("message: str", "error: str").replace("tokens: list", "token_ids: list")

MINE = """
    from gizmo.proto import ErrorResponse as engineError
    from gizmo.proto import Output


    class Handler:
        def __init__(self, produce):
            self.produce = produce

        def result(self):
            return self.produce()

        def in_branch(self):
            out = self.result()
            if isinstance(out, (engineError, str)):
                return out.message
            return None

        def in_union(self):
            out = self.result()
            if isinstance(out, str | engineError):
                return out.message  # union
            return None

        def after_exit(self):
            out = self.result()
            if not isinstance(out, engineError):
                return None
            return out.message

        def in_expression(self):
            out = self.result()
            return isinstance(out, Output) and len(out.tokens)

        def in_conditional(self):
            out = self.result()
            return out.tokens if isinstance(out, Output) else out

        def in_conjunction(self):
            out = self.result()
            if isinstance(out, Output) and out.text:
                return out.tokens
            return None

        def exact_type(self):
            out = self.result()
            if type(out) is not Output:
                return None
            return out.tokens  # exact

        def matched(self):
            out = self.result()
            match out:
                case Output():
                    return out.tokens  # matched
            return None

        def kept(self):
            out = self.result()
            if isinstance(out, Output):
                return out.text
            return out.code if isinstance(out, engineError) else None
    """


def _case() -> Case:
    return Case("narrowing", {"gizmo/proto.py": PROTO_BEFORE}, {"gizmo/proto.py": PROTO_AFTER},
                {"app/__init__.py": "", "app/mine.py": MINE})


def test_a_value_narrowed_to_a_target_class_is_checked_as_one(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [
        ("DRIFT060", line_of(MINE, "return out.message", 1)),
        ("DRIFT060", line_of(MINE, "return out.message  # union")),
        ("DRIFT060", line_of(MINE, "return out.message", 3)),
        ("DRIFT060", line_of(MINE, "len(out.tokens)")),
        ("DRIFT060", line_of(MINE, "return out.tokens if")),
        ("DRIFT060", line_of(MINE, "            return out.tokens")),
        ("DRIFT060", line_of(MINE, "return out.tokens  # exact")),
        ("DRIFT060", line_of(MINE, "return out.tokens  # matched")),
    ])
    assert all(f.severity.value == "breaking" for f in findings)


def test_python_raises_what_the_findings_say(tmp_path):
    findings_of(tmp_path, _case())
    after = [tmp_path / "after", tmp_path / "consumer"]
    before = [tmp_path / "before", tmp_path / "consumer"]
    err = "proto.ErrorResponse(error='e', code=1)"
    out = "proto.Output('t', [1])"
    setup = "__import__('gizmo.proto').proto"
    for method, value in (("in_branch", err), ("in_union", err), ("after_exit", err), ("in_expression", out),
                          ("in_conditional", out), ("in_conjunction", out), ("exact_type", out),
                          ("matched", out)):
        expr = f"Handler(lambda: (lambda proto: {value})({setup})).{method}()"
        got = raised_by(after, "app.mine", expr)
        assert got is not None and got.startswith("AttributeError") and ("message" in got or "tokens" in got), got
        old = value.replace("error=", "message=")
        assert raised_by(before, "app.mine", f"Handler(lambda: (lambda proto: {old})({setup})).{method}()") is None
    assert raised_by(after, "app.mine", f"Handler(lambda: (lambda proto: {out})({setup})).kept()") is None
