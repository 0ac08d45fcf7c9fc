"""drift reports a finding on the line Python 3.11's traceback names (drift/analysis/surfacing.py):
a multi-line import at its first line, a call's failure at the call (not at a keyword on a
continuation line), an installed replacement at the statement that installs it; the use's own
position stays in `use_line` / `use_col`. Lines are held to what Python itself reports."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import pytest

from drift.analysis import surfacing
from tests.rule_cases import findings_of, Case, line_of, src, write_tree


@pytest.fixture
def whole_rule(monkeypatch):
    """The call and install parts of the rule, written and tested, are off by default until the
    corpus truth agrees with them (surfacing.py); these tests turn them on."""
    monkeypatch.setattr(surfacing, "CALLS_AT_THE_CALL", True)
    monkeypatch.setattr(surfacing, "INSTALLS_AT_THE_INSTALL", True)

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/old.py": """
        class A:
            pass

        class B:
            pass
    """,
    "gizmo/core.py": """
        def build(x, size=1, legacy=None):
            return x

        class Engine:
            def step(self, a):
                return a

            def go(self, x, legacy=None):
                return x

        def run(engine):
            return engine.step(1)

        Kept = 1
        Gone = 2
    """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/core.py": """
        def build(x, size=1):
            return x

        class Engine:
            def step(self, a, b):
                return a

            def go(self, x):
                return x

        def run(engine):
            return engine.step(1, b=2)

        Kept = 1
    """,
}


def _traceback_line(roots: list[Path], module: str, expr: str) -> int:
    """The consumer line Python's traceback names for the error `expr` raises in `module`'s
    namespace (the last frame in the consumer's own files)."""
    import importlib

    for name in [m for m in sys.modules if m.split(".")[0] in ("gizmo", "app")]:
        del sys.modules[name]
    sys.path[:0] = [str(r) for r in roots]
    try:
        try:
            mod = importlib.import_module(module)
            eval(expr, vars(mod))  # noqa: S307 - our own synthetic source
        except Exception as exc:  # noqa: BLE001 - the point is to see where it surfaces
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/consumer/" in f.filename]
            return frames[-1].lineno
        raise AssertionError("nothing raised")
    finally:
        del sys.path[: len(roots)]
        for name in [m for m in sys.modules if m.split(".")[0] in ("gizmo", "app")]:
            del sys.modules[name]


IMPORTS = """
    from gizmo.core import (
        Kept,
        Gone,
    )
"""

GONE_MODULE = """
    from gizmo.old import (
        A,
        B,
    )
"""

CALLS = """
    from gizmo import core


    def make(engine):
        return core.build(
            1,
            legacy=2,
        )


    def drive(engine: core.Engine):
        return (engine
                .go(
                    1,
                    legacy=3,
                ))
"""

INSTALLS = """
    from gizmo import core


    def my_step(self, a):
        return a


    core.Engine.step = my_step
"""


def test_a_gone_name_of_a_multi_line_import_is_reported_at_the_statement(tmp_path):
    found = findings_of(tmp_path, Case("imports", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": IMPORTS}))
    (f,) = [f for f in found if f.rule_id == "DRIFT001"]
    assert f.consumer_site.line == 1 == _traceback_line([tmp_path / "after", tmp_path / "consumer"], "app", "__import__('app.m')")
    assert (f.consumer_site.use_line, f.consumer_site.use_col) == (line_of(IMPORTS, "Gone"), 5)
    assert f.to_dict()["consumer_site"]["use_line"] == 3


def test_each_name_of_a_gone_module_is_reported_at_the_statement(tmp_path):
    found = findings_of(tmp_path, Case("gone", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": GONE_MODULE}))
    gone = sorted((f for f in found if f.kind.name == "IMPORT_REMOVED"), key=lambda f: f.consumer_site.use_line)
    assert [(f.consumer_site.line, f.consumer_site.use_line) for f in gone] == \
        [(1, line_of(GONE_MODULE, "A,")), (1, line_of(GONE_MODULE, "B,"))]
    assert all("gizmo.old" in f.title for f in gone)


def test_a_keyword_on_a_continuation_line_is_reported_at_the_call(tmp_path, whole_rule):
    found = findings_of(tmp_path, Case("calls", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": CALLS}))
    kws = sorted((f for f in found if f.rule_id == "DRIFT010"), key=lambda f: f.consumer_site.line)
    assert [f.consumer_site.use_line for f in kws] == [line_of(CALLS, "legacy=2"), line_of(CALLS, "legacy=3")]
    roots = [tmp_path / "after", tmp_path / "consumer"]
    # a function's call raises at its first line; a method call written over lines at its `.go(` line
    assert kws[0].consumer_site.line == line_of(CALLS, "core.build(") == \
        _traceback_line(roots, "app.m", "make(None)")
    assert kws[1].consumer_site.line == line_of(CALLS, ".go(") == \
        _traceback_line(roots, "app.m", "drive(__import__('gizmo.core').core.Engine())")
    written = src(CALLS).splitlines()[line_of(CALLS, "legacy=3") - 1]
    assert kws[1].consumer_site.col is None and kws[1].consumer_site.use_col == written.index("legacy") + 1


def test_an_installed_replacement_is_reported_at_the_statement_that_installs_it(tmp_path, whole_rule):
    found = findings_of(tmp_path, Case("installs", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": INSTALLS}))
    (f,) = [f for f in found if f.rule_id == "DRIFT070"]
    assert f.consumer_site.line == line_of(INSTALLS, "core.Engine.step = my_step")
    assert f.consumer_site.use_line == line_of(INSTALLS, "def my_step")


def test_a_one_line_call_and_an_override_in_a_subclass_stay_where_they_are(tmp_path, whole_rule):
    consumer = """
        from gizmo import core


        class Mine(core.Engine):
            def step(self, a):
                return a


        def make():
            return core.build(1, legacy=2)
    """
    found = findings_of(tmp_path, Case("stay", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": consumer}))
    by_rule = {f.rule_id: f for f in found}
    assert by_rule["DRIFT010"].consumer_site.line == line_of(consumer, "core.build(1")
    assert by_rule["DRIFT010"].consumer_site.use_line is None
    assert by_rule["DRIFT070"].consumer_site.line == line_of(consumer, "def step")
    assert by_rule["DRIFT070"].consumer_site.use_line is None


def test_by_default_a_keyword_and_an_installed_def_stay_where_the_rules_put_them(tmp_path):
    found = findings_of(tmp_path, Case("off", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": CALLS,
                                                               "app/i.py": INSTALLS}))
    kws = [f for f in found if f.rule_id == "DRIFT010"]
    assert sorted(f.consumer_site.line for f in kws) == [line_of(CALLS, "legacy=2"), line_of(CALLS, "legacy=3")]
    assert all(f.consumer_site.use_line is None for f in found)
    (patched,) = [f for f in found if f.rule_id == "DRIFT070"]
    assert patched.consumer_site.line == line_of(INSTALLS, "def my_step")
