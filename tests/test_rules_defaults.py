"""DRIFT050: a switch default (None/True/False) that flipped under a call relying on it."""

from __future__ import annotations

import pytest

from drift.findings import Severity
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, run_case

OPTIONS = """
    from dataclasses import dataclass

    @dataclass
    class Options:
        name: str = "x"
        use_cache: bool | None = {cache}
        size: int = {size}
    """
BEFORE = {"gizmo/core.py": OPTIONS.format(cache="None", size="1")}
FLIPPED = {"gizmo/core.py": OPTIONS.format(cache="True", size="1")}
TUNED = {"gizmo/core.py": OPTIONS.format(cache="None", size="2")}

FUNC_BEFORE = {"gizmo/core.py": "def connect(host, secure=False):\n    return host\n"}
FUNC_AFTER = {"gizmo/core.py": "def connect(host, secure=True):\n    return host\n"}

RELIES = """
    from gizmo.core import Options

    def main():
        return Options(name="y")
    """
PASSES = """
    from gizmo.core import Options

    def main():
        return Options(name="y", use_cache=False)
    """
CONNECTS = """
    from gizmo.core import connect

    def main():
        return connect("h")
    """
CONNECTS_POSITIONAL = """
    from gizmo.core import connect

    def main():
        return connect("h", False)
    """
OPTIONS_LINE = line_of(RELIES, "Options(name=")

CASES = [
    Case("field-flipped", BEFORE, FLIPPED, {"app/main.py": RELIES}, [("DRIFT050", OPTIONS_LINE)]),
    Case("field-passed", BEFORE, FLIPPED, {"app/main.py": PASSES}, []),
    Case("tuning-value-changed", BEFORE, TUNED, {"app/main.py": RELIES}, []),
    Case("unchanged", BEFORE, BEFORE, {"app/main.py": RELIES}, []),
    Case("param-flipped", FUNC_BEFORE, FUNC_AFTER, {"app/main.py": CONNECTS},
         [("DRIFT050", "default of `secure` changed False → True")]),
    Case("param-passed-positionally", FUNC_BEFORE, FUNC_AFTER, {"app/main.py": CONNECTS_POSITIONAL}, []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_default_changed(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_flip_is_risky_and_does_not_fail_the_check(tmp_path):
    out = run_case(tmp_path, before=BEFORE, after=FLIPPED, consumer={"app/main.py": RELIES})
    f = only(out.report.findings, "DRIFT050")
    assert f.severity is Severity.RISKY
    assert f.title == "`Options`: default of `use_cache` changed None → True; the call relies on it"
    assert [(e.line, e.snippet) for e in f.target_evidence] == [(line_of(OPTIONS, "use_cache"), "use_cache = True")]
    assert [(e.line, e.snippet) for e in f.baseline_evidence] == [(line_of(OPTIONS, "use_cache"), "use_cache = None")]
    assert f.fix.codemod is None and "use_cache=None" in f.fix.description
    assert out.exit_code == 0 and out.report.exit_code == 0


def test_a_none_switch_the_target_types_as_bool_is_kept_off_by_false(tmp_path):
    """vLLM 0.16's CacheConfig annotates `enable_prefix_caching: bool = True` (was
    `Optional[bool] = None`) and validates it: passing None fails, so the value that keeps the
    old behaviour is False."""
    strict = {"gizmo/core.py": OPTIONS.replace("use_cache: bool | None = {cache}", "use_cache: bool = {cache}")
              .format(cache="True", size="1")}
    out = run_case(tmp_path, before=BEFORE, after=strict, consumer={"app/main.py": RELIES})
    f = only(out.report.findings, "DRIFT050")
    assert f.fix.codemod is None and f.fix.tier == "manual"
    assert f.fix.description.startswith("pass `use_cache=False` to keep the old behaviour (the target's `bool` "
                                        "no longer takes None, which a truth test read as off)")


def test_without_baseline_nothing_is_reported(tmp_path):
    case = Case("no-baseline", None, FLIPPED, {"app/main.py": RELIES}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


# -- where the flipped default acts: a method of the target that branches on it -------------------

ENGINE = OPTIONS + """

    class Engine:
        def __init__(self, options: Options):
            self.options = options

        def step(self):
            if self.options.use_cache:
                return self._cached()
            return []

        def drain(self):
            while self.options.use_cache and self._pending():
                pass
            return self._collect()

        def _collect(self):
            if not self.options.use_cache:
                return []
            return [1]

        def _pending(self):
            return False

        def _cached(self):
            return [1]

        def size(self):
            return self.options.size
    """
ENGINE_BEFORE = {"gizmo/core.py": ENGINE.format(cache="None", size="1")}
ENGINE_FLIPPED = {"gizmo/core.py": ENGINE.format(cache="True", size="1")}
LOOP = """
    from gizmo.core import Engine, Options

    class Runner:
        def __init__(self):
            self.engine = Engine(Options(name="y"))

        def run(self):
            while out := self.engine.step():
                print(out)
            self.engine.drain()
            return self.engine.size()
    """
LOOP_PASSES = LOOP.replace('Options(name="y")', 'Options(name="y", use_cache=None)')


def test_the_default_is_also_reported_where_a_target_method_branches_on_it(tmp_path):
    out = run_case(tmp_path, before=ENGINE_BEFORE, after=ENGINE_FLIPPED, consumer={"app/main.py": LOOP})
    found = sorted((f.consumer_site.line, f.title) for f in out.report.findings if f.rule_id == "DRIFT050")
    assert found == [
        (line_of(LOOP, "Options(name="), "`Options`: default of `use_cache` changed None → True; the call relies on it"),
        (line_of(LOOP, "self.engine.step()"),
         "`Engine.step()` branches on `options.use_cache`, whose default a call in this file relies on (None → True)"),
        # a `while` test, and the same switch read by a method `drain` calls on self: one finding
        (line_of(LOOP, "self.engine.drain()"),
         "`Engine.drain()` branches on `options.use_cache`, whose default a call in this file relies on (None → True)"),
    ]  # `size()` reads the options but branches on nothing: silent
    acts = [f for f in out.report.findings if f.consumer_site.line == line_of(LOOP, "self.engine.step()")][0]
    assert acts.severity is Severity.RISKY and "use_cache=None" in acts.fix.description
    assert f"the call at line {line_of(LOOP, 'Options(name=')}" in acts.details
    assert [e.line for e in acts.target_evidence][0] == line_of(ENGINE, "if self.options.use_cache")


def test_a_consumer_that_passes_the_switch_gets_neither_finding(tmp_path):
    out = run_case(tmp_path, before=ENGINE_BEFORE, after=ENGINE_FLIPPED, consumer={"app/main.py": LOOP_PASSES})
    assert [f for f in out.report.findings if f.rule_id == "DRIFT050"] == []
