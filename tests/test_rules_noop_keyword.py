"""DRIFT010's drop of a keyword the baseline's callable took and never read (facts +ur,
`unread_params`): whatever value the consumer passed, the baseline did nothing with it (vLLM
0.11's `from_vllm_config(disable_log_requests=...)`, kept for its deprecation warning only), so
dropping it when the target removes the parameter is safe. One the baseline read stays unsafe,
and so does one under a decorator that could read the call's keywords itself."""

from __future__ import annotations

from drift.findings import SAFE, UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/engine.py": """
    import warnings


    def deprecate_kwargs(*names):
        def wrap(fn):
            def inner(*args, **kwargs):
                for n in names:
                    if n in kwargs:
                        warnings.warn(f"{n} is deprecated", DeprecationWarning)
                return fn(*args, **kwargs)
            return inner
        return wrap


    class Engine:
        def __init__(self, log_requests):
            self.log_requests = log_requests

        @classmethod
        @deprecate_kwargs("disable_log_requests")
        def from_config(cls, config, enable_log_requests=False, disable_log_requests=True):
            return cls(log_requests=enable_log_requests)
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/engine.py": """
    class Engine:
        def __init__(self, log_requests):
            self.log_requests = log_requests

        @classmethod
        def from_config(cls, config, enable_log_requests=False):
            return cls(log_requests=enable_log_requests)
    """}
CONSUMER = {"app/__init__.py": "", "app/serve.py": """
    from gizmo.engine import Engine


    def serve(quiet):
        return Engine.from_config({}, disable_log_requests=quiet)
    """}


def test_a_keyword_the_baseline_never_read_is_dropped_safely(tmp_path):
    findings = findings_of(tmp_path, Case("noop", BEFORE, AFTER, CONSUMER))
    f = only(findings, "DRIFT010")
    assert f.fix.codemod == "drop_keyword" and f.fix.tier == SAFE
    assert "took it and never read it" in f.fix.description and "gizmo/engine.py" in f.fix.description
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    check = "None if serve(False).log_requests is False else 1 / 0"
    assert raised_by(roots("before"), "app.serve", check) is None
    assert raised_by(roots("after"), "app.serve", check).startswith("TypeError")
    rel = "app/serve.py"
    patch = plan({rel: (tmp_path / "consumer" / rel).read_bytes()}, list(findings))  # safe: by default
    patched = patch.changes[0].after.decode()
    assert "Engine.from_config({})" in patched
    (tmp_path / "consumer" / rel).write_text(patched)
    # the patched call does on the target what the original did on the baseline, and the baseline too
    assert raised_by(roots("after"), "app.serve", check) is None
    assert raised_by(roots("before"), "app.serve", check) is None
    assert plan({rel: patched.encode()}, list(findings)).empty  # a second run changes nothing


def test_a_keyword_the_baseline_read_stays_unsafe(tmp_path):
    before = {**BEFORE, "gizmo/engine.py": BEFORE["gizmo/engine.py"].replace(
        "return cls(log_requests=enable_log_requests)",
        "return cls(log_requests=enable_log_requests and not disable_log_requests)")}
    assert "and not disable_log_requests" in before["gizmo/engine.py"]
    f = only(findings_of(tmp_path, Case("read", before, AFTER, CONSUMER)), "DRIFT010")
    assert f.fix.codemod == "drop_keyword" and f.fix.tier == UNSAFE


def test_under_a_decorator_that_may_read_the_keywords_it_stays_unsafe(tmp_path):
    before = {**BEFORE, "gizmo/engine.py": BEFORE["gizmo/engine.py"].replace("deprecate_kwargs", "route_kwargs")}
    f = only(findings_of(tmp_path, Case("wrapped", before, AFTER, CONSUMER)), "DRIFT010")
    assert f.fix.codemod == "drop_keyword" and f.fix.tier == UNSAFE


def test_the_probe_records_unread_parameters_and_nothing_for_a_stub():
    import ast

    from drift.probes.unread import unread_params

    def first(text):
        return ast.parse(text).body[0]

    assert unread_params(first("def f(a, b, c=1):\n    x = a\n    def g():\n        return c\n"), ["a", "b", "c"]) == ["b"]
    assert unread_params(first("def f(a, b):\n    '''doc'''\n    raise NotImplementedError\n"), ["a", "b"]) == []
    assert unread_params(first("def f(a, b):\n    return locals()\n"), ["a", "b"]) == []
    assert unread_params(first("def f(a, b):\n    b = 1\n    return a\n"), ["a", "b"]) == []


def test_a_range_consumer_gets_the_drop_in_a_version_branch(tmp_path):
    """Only the baseline is known to ignore the keyword: a release before it may have read it, so a
    range consumer keeps its original call for them."""
    from drift.fixes.version_helper import choose_gate

    findings = findings_of(tmp_path, Case("noop-range", BEFORE, AFTER, CONSUMER))
    assert only(findings, "DRIFT010").fix.args["unread_in"].startswith("gizmo/engine.py")
    rel = "app/serve.py"
    files = {rel: (tmp_path / "consumer" / rel).read_bytes()}
    gate = choose_gate(files, top="app", since="0.12.0", before="0.11.0")
    mine = {c.path: c.after.decode() for c in plan(files, list(findings), gate=gate, gate_lines={}).changes}[rel]
    assert mine.count("if vllm_version_at_least") == 1
    assert "Engine.from_config({})" in mine and "Engine.from_config({}, disable_log_requests=quiet)" in mine
    compile(mine, rel, "exec")
