"""DRIFT111: a call that leaves out a parameter the target added with a None default and whose
omission the target's function warns is deprecated, going on with a fallback of its own. The call
still binds (no signature rule speaks); the warning Python emits is the evidence, checked here by
running the synthetic code with warnings turned into errors."""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/__init__.py": "", "gizmo/server.py": """
    def init_state(engine, state, args):
        state.tasks = engine.tasks()


    def build_app(args):
        return args
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/server.py": """
    import warnings

    FALLBACK = ("generate",)


    def init_state(engine, state, args, tasks=None):
        if tasks is None:
            warnings.warn("The 'tasks' parameter was not provided and will be required in a future version.",
                          DeprecationWarning, stacklevel=2)
            tasks = FALLBACK
        state.tasks = tasks


    def build_app(args, tasks=None):
        if tasks is None:
            tasks = FALLBACK  # a plain default: no warning, nothing deprecated
        return args
    """}
CONSUMER = {"app/__init__.py": "", "app/run.py": """
    import warnings
    from types import SimpleNamespace

    from gizmo.server import build_app, init_state


    class Engine:
        def tasks(self):
            return ("embed",)


    def start():
        state = SimpleNamespace()
        init_state(Engine(), state, None)
        build_app(None)
        return state.tasks


    def start_passing():
        state = SimpleNamespace()
        init_state(Engine(), state, None, ("embed",))
        return state.tasks


    def strict():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return start()
    """}


def test_a_call_leaving_out_a_parameter_whose_omission_the_target_deprecates(tmp_path):
    src = CONSUMER["app/run.py"]
    found = [f for f in findings_of(tmp_path, Case("omission", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT111"]
    assert [(f.consumer_site.line, f.severity) for f in found] == \
        [(line_of(src, "init_state(Engine(), state, None)"), Severity.RISKY)], [f.title for f in found]
    assert "`tasks`" in found[0].title
    app = write_tree(tmp_path / "run_app", CONSUMER)
    after = write_tree(tmp_path / "run_after", AFTER)
    assert raised_by([after, app], "app.run", "strict()").startswith("DeprecationWarning: The 'tasks' parameter")
    assert raised_by([after, app], "app.run", "start() == ('generate',) or 1/0") is None  # the fallback ran
    before = write_tree(tmp_path / "run_before", BEFORE)
    assert raised_by([before, app], "app.run", "start() == ('embed',) or 1/0") is None
