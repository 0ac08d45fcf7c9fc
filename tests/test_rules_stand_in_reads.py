"""DRIFT116 (synthetic before/after trees): an object of the consumer's own class, standing in for a
target class it does not extend, handed to a target method whose body now reads one more attribute
on that parameter. Each prediction is held to what the synthetic code really raises."""

from __future__ import annotations

import ast
from pathlib import Path

from drift.probes.param_reads import param_attr_reads
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

TICKET = """
    class Ticket:
        def __init__(self, ticket_id, size):
            self.ticket_id = ticket_id
            self.size = size
            self.pending = 0
    """
POOL_BEFORE = """
    from gizmo.ticket import Ticket


    class Pool:
        def __init__(self):
            self.used = {}

        def reserve(self, ticket: Ticket, count: int):
            self.used[ticket.ticket_id] = ticket.size + count
            return self.used[ticket.ticket_id]
    """
POOL_AFTER = """
    from gizmo.ticket import Ticket


    class Pool:
        def __init__(self):
            self.used = {}

        def reserve(self, ticket: Ticket, count: int):
            self.used[ticket.ticket_id] = ticket.size + count
            if count > 1:
                self.used[ticket.ticket_id] -= ticket.pending
            return self.used[ticket.ticket_id]
    """
ADAPTER = """
    from gizmo.pool import Pool


    class Adapter:
        def __init__(self, ticket_id):
            self.ticket_id = ticket_id

        @property
        def size(self):
            return 4


    class Runner:
        def __init__(self):
            self.pool = Pool()

        def step(self, adapter: Adapter):
            return self.pool.reserve(adapter, 2)


    def run():
        return Runner().step(Adapter("a"))
    """


def _case(consumer: str) -> Case:
    return Case("stand-in", {"gizmo/ticket.py": TICKET, "gizmo/pool.py": POOL_BEFORE},
                {"gizmo/ticket.py": TICKET, "gizmo/pool.py": POOL_AFTER}, {"app/runner.py": consumer})


def test_a_stand_in_lacking_what_the_target_now_reads_on_its_parameter_is_reported(tmp_path: Path):
    found = findings_of(tmp_path, _case(ADAPTER))
    line = line_of(ADAPTER, "self.pool.reserve(adapter, 2)")
    assert_findings(found, [("DRIFT116", line)])
    f = only(found, "DRIFT116")
    assert "`pending`" in f.title and "`Adapter`" in f.title
    assert f.target_evidence[0].line == line_of(POOL_AFTER, "ticket.pending")
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("before"), "app.runner", "run()") is None
    assert raised_by(roots("after"), "app.runner", "run()") == f.predicted_failure


def test_a_stand_in_that_has_the_attribute_or_extends_the_class_is_silent(tmp_path: Path):
    has_it = ADAPTER.replace("self.ticket_id = ticket_id", "self.ticket_id = ticket_id\n            self.pending = 0")
    assert_findings(findings_of(tmp_path / "has", _case(has_it)), [])
    extends = ADAPTER.replace("from gizmo.pool import Pool", "from gizmo.pool import Pool\n    from gizmo.ticket import Ticket") \
        .replace("class Adapter:", "class Adapter(Ticket):")
    assert_findings(findings_of(tmp_path / "ext", _case(extends)), [])
    dynamic = ADAPTER.replace("        @property", "        def __getattr__(self, name):\n            return 0\n\n"
                                                "        @property")
    assert_findings(findings_of(tmp_path / "dyn", _case(dynamic)), [])


def test_param_reads_keeps_every_attribute_read_and_drops_a_rebound_parameter():
    fn = ast.parse(
        "def f(a, b, c):\n"
        "    x = a.one\n"
        "    if x:\n"
        "        a.two()\n"
        "    a.three = 1\n"
        "    b = b or 0\n"
        "    b.four\n"
        "    return [c.five for c in ()]\n"
    ).body[0]
    assert param_attr_reads(fn, ["a", "b", "c"]) == {"a": {"one": 2, "two": 4}}


def test_a_bound_method_a_local_takes_in_either_branch_is_each_a_callee(tmp_path: Path):
    """runpod's worker: `fn = self.chat.create` in one branch and `= self.completion.create` in
    the other, then `await fn(request, raw_request=dummy)`: each is called on some route, so each
    body's new reads are held to the stand-in."""
    branches = ADAPTER.replace(
        "        def step(self, adapter: Adapter):\n            return self.pool.reserve(adapter, 2)",
        "        def step(self, adapter: Adapter, fast=False):\n"
        "            if fast:\n"
        "                fn = self.pool.reserve\n"
        "            else:\n"
        "                fn = self.spare.reserve\n"
        "            return fn(adapter, 2)").replace(
        "            self.pool = Pool()", "            self.pool = Pool()\n            self.spare = Pool()")
    assert branches != ADAPTER
    found = [f for f in findings_of(tmp_path, _case(branches)) if f.rule_id == "DRIFT116"]
    assert [f.consumer_site.line for f in found] == [line_of(branches, "return fn(adapter, 2)")], [f.title for f in found]
