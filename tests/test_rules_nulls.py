"""DRIFT014 and PARAM_NONE_REJECTED: a parameter the baseline guarded for None that the target
dereferences on every path, and the consumer calls that pass it None (synthetic vllm trees)."""

from __future__ import annotations

import pytest

from drift.analysis.diff import ChangeKind, diff_facts
from drift.probes.ast_facts import module_facts
from tests.rule_cases import (assert_findings, facts_of, findings_of, line_of, only, raised_by, src,
                              write_tree, Case)

LIB = "vllm"

BEFORE = """
    from typing import Optional

    class Scheduler:
        def __init__(self, config, log_stats=None):
            self.config = config
            self.stats = log_stats.copy() if log_stats is not None else {}

        def schedule(self, output=None, budget: Optional[int] = None, *, grammar=None):
            reqs = output.req_ids if output is not None else []
            budget = budget or 8
            if grammar:
                grammar.apply(output)
            return [reqs[:budget]]

    def lookup(table, key=None, fallback=None):
        if key is None:
            return fallback
        return table[key]

    def pad(mode):
        if isinstance(mode, str):
            return mode.upper()
        return str(mode)
    """
AFTER = """
    from typing import Optional

    class Scheduler:
        def __init__(self, config, log_stats=None):
            self.config = config
            self.stats = log_stats.copy()

        def schedule(self, output, budget: Optional[int] = None, *, grammar=None):
            reqs = output.req_ids
            grammar.apply(output)
            if budget is None:
                budget = 8
            return [reqs[:budget]]

    def lookup(table, key=None, fallback=None):
        if key is None:
            return fallback
        return table[key]

    def pad(mode):
        return mode.upper()
    """

CONSUMER = """
    from vllm.sched import Scheduler, lookup, pad

    def build(cfg, out, stats):
        s = Scheduler(cfg)
        s.schedule(None)
        s.schedule(out, grammar=None)
        s.schedule(out, 4, grammar=stats)
        t = Scheduler(cfg, log_stats=stats)
        lookup({}, None)
        pad(3)
        pad("x")
        return s, t
    """


def _case(consumer=CONSUMER, before=BEFORE, after=AFTER):
    return Case("nulls", {"vllm/sched.py": before}, {"vllm/sched.py": after}, {"app/run.py": consumer})


def test_none_and_omitted_arguments_meet_the_dropped_guards(tmp_path):
    findings = findings_of(tmp_path, _case(), lib=LIB)
    mine = tuple(f for f in findings if f.rule_id == "DRIFT014")
    c = src(CONSUMER)
    assert_findings(mine, [
        ("DRIFT014", line_of(c, "Scheduler(cfg)")),  # log_stats left out: default None, now .copy()
        ("DRIFT014", line_of(c, "s.schedule(None)")),  # output passed None positionally
        ("DRIFT014", line_of(c, "s.schedule(None)")),  # grammar left out (default None)
        ("DRIFT014", line_of(c, "grammar=None")),  # grammar passed None by keyword
        ("DRIFT014", line_of(c, "pad(3)")),  # an int where the target now calls str.upper()
    ])
    ctor = next(f for f in mine if "log_stats" in f.title)
    assert ctor.predicted_failure == "AttributeError: 'NoneType' object has no attribute 'copy'"
    assert ctor.severity.value == "breaking"
    a = src(AFTER)
    assert ctor.target_evidence[0].line == line_of(a, "log_stats.copy()")
    assert ctor.baseline_evidence[0].line == line_of(src(BEFORE), "log_stats.copy() if")
    positional = next(f for f in mine if "`output`" in f.title)
    assert positional.consumer_site.col == src(CONSUMER).splitlines()[positional.consumer_site.line - 1].index("None") + 1
    assert positional.predicted_failure == "AttributeError: 'NoneType' object has no attribute 'req_ids'"
    kw = next(f for f in mine if f.consumer_site.line == line_of(c, "grammar=None"))
    assert kw.predicted_failure == "AttributeError: 'NoneType' object has no attribute 'apply'"
    assert kw.target_evidence[0].line == line_of(a, "grammar.apply(output)")
    assert kw.baseline_evidence[0].line == line_of(src(BEFORE), "if grammar:")


def test_prediction_is_what_python_raises(tmp_path):
    after = write_tree(tmp_path / "after", {"vllm/sched.py": AFTER})
    assert raised_by([after], "vllm.sched", "Scheduler(None)", packages=("vllm",)) == \
        "AttributeError: 'NoneType' object has no attribute 'copy'"
    assert raised_by([after], "vllm.sched", "Scheduler(None, {}).schedule(None)", packages=("vllm",)) == \
        "AttributeError: 'NoneType' object has no attribute 'req_ids'"
    assert raised_by([after], "vllm.sched", "pad(3)", packages=("vllm",)) == "AttributeError: 'int' object has no attribute 'upper'"
    before = write_tree(tmp_path / "before", {"vllm/sched.py": BEFORE})
    assert raised_by([before], "vllm.sched", "(Scheduler(None).schedule(None, grammar=None), pad(3))", packages=("vllm",)) is None


def test_an_int_where_the_target_now_calls_a_str_method(tmp_path):
    """pad() took any value (isinstance guard); it now calls .upper(): an int fails, a str does not."""
    findings = findings_of(tmp_path, _case(), lib=LIB)
    hits = [f for f in findings if f.rule_id == "DRIFT014" and "pad" in f.title]
    assert [f.consumer_site.line for f in hits] == [line_of(src(CONSUMER), "pad(3)")]
    assert hits[0].predicted_failure == "AttributeError: 'int' object has no attribute 'upper'"


def test_nothing_when_the_target_still_guards(tmp_path):
    findings = findings_of(tmp_path, _case(after=BEFORE), lib=LIB)
    assert [f for f in findings if f.rule_id == "DRIFT014"] == []


def test_nothing_when_the_target_replaces_the_none_before_its_use(tmp_path):
    """`if p is None: p = <constant>` as the branch's only statement replaces the None: the use
    after it is no dereference of what the caller passed."""
    before = """
        def window(size=None):
            return size.bit_length() if size is not None else 0
        """
    after = """
        def window(size=None):
            if size is None:
                size = 16
            return size.bit_length()
        """
    consumer = """
        from vllm.sched import window
        window(None)
        """
    case = Case("replaced", {"vllm/sched.py": before}, {"vllm/sched.py": after}, {"app/run.py": consumer})
    assert [f for f in findings_of(tmp_path, case, lib=LIB) if f.rule_id == "DRIFT014"] == []


def test_nothing_for_real_values_or_values_of_unknown_origin(tmp_path):
    consumer = """
        from vllm.sched import Scheduler

        def build(cfg, out, stats, maybe):
            s = Scheduler(cfg, stats)
            s.schedule(out, grammar=stats)
            s.schedule(maybe, grammar=maybe)
            s.schedule(*maybe, **stats)
            return s
        """
    findings = findings_of(tmp_path, _case(consumer=consumer), lib=LIB)
    assert [f for f in findings if f.rule_id == "DRIFT014"] == []


def test_nothing_where_the_baseline_refused_none_too(tmp_path):
    before = """
        def first(items=None):
            if items is None:
                raise ValueError("items is required")
            return items[0]
        """
    after = """
        def first(items=None):
            return items[0]
        """
    consumer = """
        from vllm.sched import first
        first(None)
        """
    case = Case("refused", {"vllm/sched.py": before}, {"vllm/sched.py": after}, {"app/run.py": consumer})
    assert [f for f in findings_of(tmp_path, case, lib=LIB) if f.rule_id == "DRIFT014"] == []


def test_nothing_when_the_use_sits_behind_an_early_return(tmp_path):
    after = """
        class Scheduler:
            def __init__(self, config, log_stats=None):
                if config.disabled:
                    return
                self.stats = log_stats.copy()
        """
    before = """
        class Scheduler:
            def __init__(self, config, log_stats=None):
                self.stats = log_stats.copy() if log_stats else {}
        """
    consumer = """
        from vllm.sched import Scheduler
        Scheduler(object(), None)
        """
    case = Case("early", {"vllm/sched.py": before}, {"vllm/sched.py": after}, {"app/run.py": consumer})
    assert [f for f in findings_of(tmp_path, case, lib=LIB) if f.rule_id == "DRIFT014"] == []


# -- the facts (probes/derefs.py) -------------------------------------------------------------

def _behaviour(source: str, name: str) -> dict:
    facts = module_facts(src(source).encode(), module="m", path="m.py")
    return facts["functions"][name]["behaviour"]


@pytest.mark.parametrize("body, param, how", [
    ("x.a", "x", "attr"), ("x[0]", "x", "item"), ("x()", "x", "call"), ("len(x)", "x", "len"),
    ("for _ in x: pass", "x", "iter"), ("y = x + 1", "x", "arith"), ("a, b = x", "x", "unpack"),
    ("x[0] = 1", "x", "setitem"), ("x.a = 1", "x", "setattr"), ("y = [i for i in x]", "x", "iter"),
    ("if x.flag:\n    pass", "x", "attr"), ("with x.lock:\n    pass", "x", "attr"), ("3 in x", "x", "in"),
])
def test_unconditional_dereferences(body, param, how):
    source = "def f(x, y=None):\n" + "\n".join("    " + line for line in body.splitlines()) + "\n"
    derefs = _behaviour(source, "f").get("param_derefs") or {}
    assert derefs[param][2] == how and derefs[param][0] == 2


@pytest.mark.parametrize("body", [
    "if x is not None:\n    x.a",
    "if x:\n    x.a",
    "y = x or {}\ny.a",
    "y = x.a if x is not None else 0",
    "if x is None:\n    return\nx.a",
    "if cond:\n    return\nx.a",
    "try:\n    x.a\nexcept AttributeError:\n    pass",
    "flag and x.a",
    "x = make()\nx.a",
    "def inner():\n    return x.a",
    "y = lambda: x.a",
    "if x is None:\n    x = 3\nx.a",  # replaced on the None path by its branch's last statement
    "if x is None:\n    x = {}\nfor k in x:\n    pass",
    "if x is not None:\n    pass\nelse:\n    x = 3\nx.a",
])
def test_not_unconditional(body):
    source = "def f(x=None, cond=False):\n" + "\n".join("    " + line for line in body.splitlines()) + "\n"
    assert "x" not in (_behaviour(source, "f").get("param_derefs") or {})


@pytest.mark.parametrize("body, guarded", [
    ("if x is not None:\n    x.a", True),
    ("if x is None:\n    x = 3", True),
    ("if x is None:\n    x = 3\nreturn x + 1", True),
    ("if x is None:\n    x = 3\n    y = 1\nx.a", True),
    ("y = x or {}", True),
    ("if cond:\n    return\nz = 1 if x is None else 2", False),  # past the prefix: what follows is unread
    ("if cond:\n    return\nif x is None:\n    x = 3", True),
    ("if cond:\n    return\nx = x or {}", True),
    ("if isinstance(x, str):\n    x = [x]\nlen(x)", False),  # a None goes on to len()
    ("if isinstance(x, list):\n    y = x\nelse:\n    y = x.tolist()", False),  # the None branch uses it
    ("if x is not None:\n    return x.a\nreturn 0", True),
    ("if x is not None:\n    return x.a\nreturn x.b", False),
    ("if x is None:\n    raise ValueError('x')", False),
    ("assert x is not None", False),
    ("x.a", False),
])
def test_guards(body, guarded):
    source = "def f(x=None, cond=False):\n" + "\n".join("    " + line for line in body.splitlines()) + "\n"
    assert ("x" in (_behaviour(source, "f").get("param_guards") or {})) is guarded


def test_receiver_is_not_a_parameter():
    source = """
        class C:
            def m(self, x):
                return self.a + x.b
        """
    facts = module_facts(src(source).encode(), module="m", path="m.py")
    derefs = facts["classes"]["C"]["methods"]["m"]["behaviour"]["param_derefs"]
    assert set(derefs) == {"x"}


# -- drift diff: the same detector ------------------------------------------------------------

def test_diff_reports_the_dropped_guard(tmp_path):
    old = facts_of(write_tree(tmp_path / "b", {"vllm/sched.py": BEFORE}), LIB)
    new = facts_of(write_tree(tmp_path / "a", {"vllm/sched.py": AFTER}), LIB)
    result, error = diff_facts(old, new, package=LIB)
    assert error is None
    got = sorted((c.symbol, c.detail.split("`")[1]) for c in result.changes if c.kind is ChangeKind.PARAM_NONE_REJECTED)
    assert got == [("Scheduler.__init__", "log_stats"), ("Scheduler.schedule", "grammar"),
                   ("Scheduler.schedule", "output"), ("pad", "mode")]
    change = next(c for c in result.changes if c.kind is ChangeKind.PARAM_NONE_REJECTED and "log_stats" in c.detail)
    assert change.new[0].line == line_of(src(AFTER), "log_stats.copy()")
    assert change.old[0].line == line_of(src(BEFORE), "log_stats.copy() if")
