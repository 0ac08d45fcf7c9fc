"""DRIFT135 on a tiny fake `vllm`: a consumer hook returns a plain instance of a vLLM class, and
the target's caller of that hook newly calls a method the class only has as a stub."""

from __future__ import annotations

import ast

from drift.findings import Severity
from drift.probes.ast_facts import module_facts
from drift.probes.returned_builds import returned_builds
from tests.rule_cases import Case, findings_of as _findings_of, line_of, only, src


def findings_of(tmp_path, case):
    return _findings_of(tmp_path, case, lib="vllm")

TALLY = """
    class Tally:
        def __init__(self, counts=None):
            self.counts = counts or {}

        def empty(self) -> bool:
            raise NotImplementedError

        def merge(self, other):
            raise NotImplementedError

        def names(self):
            return list(self.counts)


    class Plugin:
        def tally(self) -> Tally | None:
            return None

        def label(self) -> str:
            return "plugin"
    """
RUNNER_BEFORE = """
    class Runner:
        def __init__(self, plugin):
            self.plugin = plugin

        def step(self, out):
            t = self.plugin.tally()
            if t:
                out.append(t)
            return out
    """
RUNNER_AFTER = """
    class Runner:
        def __init__(self, plugin):
            self.plugin = plugin

        def step(self, out):
            t = self.plugin.tally()
            if t is not None and not t.empty():
                out.append(t.merge(t))
            self.plugin.label().upper()
            return out
    """
CONSUMER = """
    from vllm.plug import Plugin, Tally


    class MyTally(Tally):
        def empty(self):
            return not self.counts


    class Mine(Plugin):
        def tally(self):
            counts = {"a": 1}
            return Tally(counts)


    class Subclassed(Plugin):
        def tally(self):
            return MyTally({"b": 2})
    """


def _case(consumer=CONSUMER, before=RUNNER_BEFORE, after=RUNNER_AFTER):
    return Case("returned", {"vllm/plug.py": TALLY, "vllm/run.py": before},
                {"vllm/plug.py": TALLY, "vllm/run.py": after}, {"app/mine.py": consumer})


def test_reports_the_construction_the_override_returns(tmp_path):
    f = only(findings_of(tmp_path, _case()), "DRIFT135")
    assert f.consumer_site.path.endswith("app/mine.py")
    assert f.consumer_site.line == line_of(src(CONSUMER), "return Tally(counts)")
    assert f.severity is Severity.BREAKING
    assert "`.empty()`" in f.title and f.symbol == "vllm.plug.Tally"
    assert f.target_evidence[0].line == line_of(src(RUNNER_AFTER), "t.empty()")


def test_a_local_bound_to_the_construction_is_followed(tmp_path):
    consumer = """
        from vllm.plug import Plugin, Tally


        class Mine(Plugin):
            def tally(self):
                t = Tally()
                return t
        """
    f = only(findings_of(tmp_path, _case(consumer=consumer)), "DRIFT135")
    assert f.consumer_site.line == line_of(src(consumer), "t = Tally()")


def test_nothing_when_the_baseline_already_called_it(tmp_path):
    findings = findings_of(tmp_path, _case(before=RUNNER_AFTER))
    assert [f for f in findings if f.rule_id == "DRIFT135"] == []


def test_nothing_when_the_hook_declares_another_type(tmp_path):
    """A method of the same name whose declared result is not the built class: not the consumer's value."""
    tally = TALLY.replace("def tally(self) -> Tally | None:", "def tally(self) -> dict:")
    case = Case("other", {"vllm/plug.py": tally, "vllm/run.py": RUNNER_BEFORE},
                {"vllm/plug.py": tally, "vllm/run.py": RUNNER_AFTER}, {"app/mine.py": CONSUMER})
    assert [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT135"] == []


def test_nothing_for_a_method_the_class_implements(tmp_path):
    after = RUNNER_AFTER.replace("not t.empty()", "t.names()").replace("t.merge(t)", "t")
    assert [f for f in findings_of(tmp_path, _case(after=after)) if f.rule_id == "DRIFT135"] == []


# -- the facts ---------------------------------------------------------------------------------

def test_result_calls_fact():
    source = src("""
        class R:
            def go(self, q):
                r = self.h.fetch(1)
                r.close()
                self.h.open().read()
                q.read()
                k = self.h.one() if q else self.h.two()
                k.done()
        """)
    beh = module_facts(source.encode(), module="m", path="m.py")["classes"]["R"]["methods"]["go"]["behaviour"]
    assert beh["result_calls"] == {"fetch": {"close": 4}, "open": {"read": 5}}


def test_returned_builds_skips_nested_scopes_and_rebound_locals():
    fn = ast.parse(src("""
        def f(flag):
            def inner():
                return Inner()
            x = A()
            if flag:
                x = B()
                return x
            return C(1) if flag else None
        """)).body[0]
    names = returned_builds(fn, lambda node: [node.id] if isinstance(node, ast.Name) else None)
    assert names == []  # x is bound twice; a conditional expression is no construction
    fn2 = ast.parse("def g():\n    return Made(1)\n").body[0]
    assert returned_builds(fn2, lambda node: [node.id]) == [[["Made"], 2]]


# -- a hook the target's own class forwards to an object it builds from the consumer's class --------

IN_TREE = """
    from vllm.plug import Plugin


    class AppPlugin(Plugin):
        def __init__(self):
            from app.impl import Impl
            self._impl = Impl()

        def tally(self):
            return self._impl.tally()

        def label(self):
            return self._impl.label()
    """
IMPL = """
    from vllm.plug import Tally


    class Impl:
        def tally(self):
            return Tally({"x": 1})

        def label(self):
            return "impl"
    """


def _forwarded(tree_extra=IN_TREE, impl=IMPL):
    return Case("forwarded", {"vllm/plug.py": TALLY, "vllm/run.py": RUNNER_BEFORE, "vllm/app_plugin.py": tree_extra},
                {"vllm/plug.py": TALLY, "vllm/run.py": RUNNER_AFTER, "vllm/app_plugin.py": tree_extra},
                {"app/impl.py": impl, "app/__init__.py": ""})


def test_a_hook_forwarded_to_the_consumers_object(tmp_path):
    f = only(findings_of(tmp_path, _forwarded()), "DRIFT135")
    assert f.consumer_site.path.endswith("app/impl.py")
    assert f.consumer_site.line == line_of(src(IMPL), "return Tally(")


def test_nothing_when_the_target_class_does_not_return_the_forwarded_value(tmp_path):
    tree = IN_TREE.replace("return self._impl.tally()", "self._impl.tally()\n            return None")
    assert [f for f in findings_of(tmp_path, _forwarded(tree_extra=tree)) if f.rule_id == "DRIFT135"] == []


def test_nothing_when_the_calling_function_only_moved(tmp_path):
    """The baseline made the same call in a function of that name in another module: a move, not
    a new use of the value."""
    moved = RUNNER_AFTER.replace("class Runner:", "class Engine:")
    case = Case("moved", {"vllm/plug.py": TALLY, "vllm/engine.py": moved, "vllm/run.py": RUNNER_BEFORE},
                {"vllm/plug.py": TALLY, "vllm/run.py": RUNNER_AFTER}, {"app/mine.py": CONSUMER})
    assert [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT135"] == []
