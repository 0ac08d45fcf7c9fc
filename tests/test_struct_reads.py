"""Reads of a field a `msgspec.Struct` no longer declares (drift/analysis/struct_base.py).

vLLM's engine messages are Structs; drift never reads msgspec, yet a Struct instance holds only
its declared fields, so a field the target dropped is an AttributeError at the read. The case is
real code run under the real msgspec: the predicted failure is held to what Python raises. Also:
a read in a branch of `a if <test> else b` is reported once, at the test, which Python evaluates
first (the branch's read of the same field never runs), and a name the Struct kept stays silent.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/engine.py": """
        import msgspec


        class Request(msgspec.Struct, array_like=True, gc=False):
            request_id: str
            eos_token_id: int | None = None
            priority: int = 0


        class Processor:
            def process(self, request_id: str) -> Request:
                return Request(request_id, 2)
        """,
}
AFTER = {
    "gizmo/engine.py": """
        import msgspec


        class Request(msgspec.Struct, array_like=True, gc=False):
            request_id: str
            priority: int = 0


        class Processor:
            def process(self, request_id: str) -> Request:
                return Request(request_id)
        """,
}
CONSUMER = """
    from gizmo.engine import Processor, Request


    def payload(proc: Processor):
        req: Request = proc.process("r1")
        return {
            "id": req.request_id,
            "eos": [req.eos_token_id]
            if req.eos_token_id is not None
            else [],
            "priority": req.priority,
        }


    def payload_from_return(proc: Processor):
        return proc.process("r2").eos_token_id
    """


def test_a_field_a_struct_dropped_is_missing_where_python_first_reads_it(tmp_path):
    found = findings_of(tmp_path, Case("struct", BEFORE, AFTER, {"app/route.py": CONSUMER}))
    assert_findings(found, [("DRIFT060", line_of(CONSUMER, "if req.eos_token_id is not None")),
                            ("DRIFT060", line_of(CONSUMER, "\"eos\": [req.eos_token_id]")),
                            ("DRIFT060", line_of(CONSUMER, "proc.process(\"r2\").eos_token_id"))])
    # the branch's read waits on the test Python evaluates first: risky, naming that test (issue 22:
    # a masked use is reported with that confidence, never dropped)
    masked = next(f for f in found if f.consumer_site.line == line_of(CONSUMER, "\"eos\": [req.eos_token_id]"))
    assert masked.severity.value == "risky"
    consumer = tmp_path / "consumer"
    first = next(f for f in found if f.consumer_site.line == line_of(CONSUMER, "if req.eos_token_id"))
    assert raised_by([tmp_path / "after", consumer], "app.route",
                     "payload(__import__('gizmo.engine').engine.Processor())") == first.predicted_failure
    assert raised_by([tmp_path / "before", consumer], "app.route",
                     "(payload(__import__('gizmo.engine').engine.Processor()), "
                     "payload_from_return(__import__('gizmo.engine').engine.Processor()))") is None


def test_a_struct_that_kept_its_fields_gives_nothing(tmp_path):
    found = findings_of(tmp_path, Case("struct-kept", BEFORE, BEFORE, {"app/route.py": CONSUMER}))
    assert_findings(found, [])
