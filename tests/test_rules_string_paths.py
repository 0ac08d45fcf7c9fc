"""Import paths written as strings (`"gizmo.x:Cls"`, `"gizmo.x.Cls"`) that reach an importer: a
path the target no longer holds fails where the string is resolved (synthetic before/after pairs;
the predicted failure is what Python raises). Prose, logger names, `sys.modules` keys,
comparisons and lists of paths tried in turn stay silent."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

BEFORE = {"gizmo/conn/__init__.py": "", "gizmo/conn/base.py": "class Connector:\n    pass\n",
          "gizmo/ops.py": "def fused():\n    return 1\n\n\ndef kept():\n    return 2\n"}
AFTER = {"gizmo/conn/__init__.py": "", "gizmo/conn/v1/__init__.py": "", "gizmo/conn/v1/base.py": "class Connector:\n    pass\n",
         "gizmo/ops.py": "def kept():\n    return 2\n"}

MINE = """
    import importlib
    import logging
    import sys

    CONNECTORS = {"default": "gizmo.conn.base:Connector"}
    HELP = "the connector lives in gizmo.conn.base, see its docs"
    LOG = logging.getLogger("gizmo.conn.base")
    TRIED = ["gizmo.conn.base", "gizmo.conn.v1.base"]


    def resolve(path):
        if ":" in path:
            module, _, name = path.partition(":")
        else:
            module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)


    def connector(kind="default"):
        return resolve(CONNECTORS[kind])


    def fused_op():
        return resolve("gizmo.ops.fused")


    def kept_op():
        return resolve("gizmo.ops.kept")


    def loaded():
        return "gizmo.conn.base" in sys.modules or sys.modules.get("gizmo.ops.fused")


    def optional():
        try:
            return resolve("gizmo.ops.fused")
        except AttributeError:
            return None
    """

SETTINGS = """
    from gizmo.ops import kept


    def configure(config):
        config.worker_cls = "gizmo.conn.base.Connector"
        return kept()
    """


def _case(files):
    return Case("strings", BEFORE, AFTER, {"app/__init__.py": "", **files})


def test_a_path_a_helper_resolves_breaks_where_the_string_is_written(tmp_path):
    findings = findings_of(tmp_path, _case({"app/mine.py": MINE}))
    assert_findings(findings, [("DRIFT008", line_of(MINE, '"gizmo.conn.base:Connector"')),
                               ("DRIFT008", line_of(MINE, 'resolve("gizmo.ops.fused")'))])
    assert all(f.severity.value == "breaking" for f in findings)
    after, before = [tmp_path / "after", tmp_path / "consumer"], [tmp_path / "before", tmp_path / "consumer"]
    moved = only(tuple(f for f in findings if "Connector" in f.symbol), "DRIFT008")
    assert "gizmo.conn.v1.base" in moved.title
    assert moved.predicted_failure == raised_by(after, "app.mine", "connector()")
    gone = only(tuple(f for f in findings if f.symbol == "gizmo.ops.fused"), "DRIFT008")
    assert gone.predicted_failure == raised_by(after, "app.mine", "fused_op()")
    for expr in ("connector()", "fused_op()", "kept_op()", "loaded()", "optional()"):
        assert raised_by(before, "app.mine", expr) is None
    assert raised_by(after, "app.mine", "kept_op(), loaded(), optional()") is None


def test_a_path_handed_to_a_setting_resolved_elsewhere_is_risky(tmp_path):
    findings = findings_of(tmp_path, _case({"app/settings.py": SETTINGS}))
    assert_findings(findings, [("DRIFT008", line_of(SETTINGS, "worker_cls"))])
    assert findings[0].severity.value == "risky"


HELPER = """
    import importlib


    def from_path(path):
        module, _, name = path.replace(":", ".").rpartition(".")
        return getattr(importlib.import_module(module), name)
    """
USER = """
    from gizmo.ops import kept

    from app.helpers import from_path


    def fused_op():
        return from_path("gizmo.ops:fused"), kept
    """


def test_a_path_handed_to_the_packages_own_resolver_in_another_module_breaks(tmp_path):
    findings = findings_of(tmp_path, _case({"app/helpers.py": HELPER, "app/user.py": USER}))
    assert_findings(findings, [("DRIFT008", line_of(USER, '"gizmo.ops:fused"'))])
    assert findings[0].severity.value == "breaking"
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert findings[0].predicted_failure == raised_by(after, "app.user", "fused_op()")
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.user", "fused_op()") is None


# wrapt-style hooks (tracing add-ons): the module and the attribute path are two strings, written
# in the call or in a table the call's loop unpacks; the real wrapt resolves them
ENGINE_BEFORE = "class Processor:\n    def process_inputs(self, x):\n        return x\n\n    def kept(self):\n        return 1\n"
ENGINE_AFTER = "class Processor:\n    def process(self, x):\n        return x\n\n    def kept(self):\n        return 1\n"

STRICT = """
    from wrapt import wrap_function_wrapper

    HOOKS = [
        ("gizmo.engine", "Processor.process_inputs"),
        ("gizmo.engine", "Processor.kept"),
    ]


    def traced(wrapped, instance, args, kwargs):
        return wrapped(*args, **kwargs)


    def install():
        for module, name in HOOKS:
            wrap_function_wrapper(module, name, traced)


    def install_direct():
        wrap_function_wrapper("gizmo.engine", "Processor.process_inputs", traced)
    """

QUIET = """
    import logging

    import wrapt

    log = logging.getLogger(__name__)


    def traced(wrapped, instance, args, kwargs):
        return wrapped(*args, **kwargs)


    def install():
        for module, name, hook in [
            ("gizmo.engine", "Processor.process_inputs", traced),
            ("gizmo.engine", "Processor.kept", traced),
        ]:
            try:
                wrapt.wrap_function_wrapper(module, name, hook)
            except (ModuleNotFoundError, AttributeError) as exc:
                log.debug("skip %s.%s: %s", module, name, exc)


    def install_any():
        for module in ("gizmo.engine", "gizmo.v1.engine"):
            try:
                wrapt.wrap_function_wrapper(module, "Processor.process_inputs", traced)
                break
            except (ModuleNotFoundError, AttributeError):
                pass
    """


def _hooks(files):
    return Case("hooks", {**BEFORE, "gizmo/engine.py": ENGINE_BEFORE}, {**AFTER, "gizmo/engine.py": ENGINE_AFTER},
                {"app/__init__.py": "", **files})


def test_a_wrapt_hook_on_a_method_gone_breaks_at_its_row_and_at_the_call(tmp_path):
    findings = findings_of(tmp_path, _hooks({"app/strict.py": STRICT}))
    assert_findings(findings, [("DRIFT008", line_of(STRICT, '("gizmo.engine", "Processor.process_inputs")')),
                               ("DRIFT008", line_of(STRICT, 'wrap_function_wrapper("gizmo.engine"'))])
    assert {f.severity.value for f in findings} == {"breaking"}
    assert {f.symbol for f in findings} == {"gizmo.engine.Processor.process_inputs"}
    after, before = [tmp_path / "after", tmp_path / "consumer"], [tmp_path / "before", tmp_path / "consumer"]
    assert findings[0].predicted_failure == "AttributeError: type object 'Processor' has no attribute 'process_inputs'"
    for expr in ("install()", "install_direct()"):
        assert raised_by(before, "app.strict", expr) is None
        raised = raised_by(after, "app.strict", expr)  # wrapt >= 2.5 raises its own AttributeError subclass
        assert _raised_type(raised) is AttributeError or issubclass(_raised_type(raised), AttributeError), raised
        assert "process_inputs" in raised


def _raised_type(raised: str) -> type:
    """The exception class `raised_by`'s `Type: message` names (a builtin, or `module.Class`)."""
    import builtins
    import importlib

    name = raised.split(":", 1)[0]
    module, _, cls = name.rpartition(".")
    return getattr(importlib.import_module(module) if module else builtins, cls)


def test_a_wrapt_hook_in_a_try_that_swallows_the_failure_is_risky_and_alternatives_stay_silent(tmp_path):
    findings = findings_of(tmp_path, _hooks({"app/quiet.py": QUIET}))
    assert_findings(findings, [("DRIFT008", line_of(QUIET, '("gizmo.engine", "Processor.process_inputs", traced)'))])
    assert findings[0].severity.value == "risky"
    assert "silently not installed" in findings[0].details
    after = [tmp_path / "after", tmp_path / "consumer"]
    # nothing raises: the hook is just not there (the traced method is gone, the kept one is wrapped)
    assert raised_by(after, "app.quiet", "install(), install_any()") is None


ALIASED = "class InputProcessor:\n    def process_inputs(self, x):\n        return x\n\n\nProcessor = InputProcessor\n"
DIRECT = """
    from wrapt import wrap_function_wrapper


    def traced(wrapped, instance, args, kwargs):
        return wrapped(*args, **kwargs)


    def install():
        wrap_function_wrapper("gizmo.engine", "Processor.process_inputs", traced)
    """


def test_a_wrapt_hook_whose_module_is_gone_breaks_even_when_the_baseline_names_the_class_by_an_alias(tmp_path):
    case = Case("hooks", {**BEFORE, "gizmo/engine.py": ALIASED}, AFTER, {"app/__init__.py": "", "app/direct.py": DIRECT})
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT008", line_of(DIRECT, 'wrap_function_wrapper("gizmo.engine"'))])
    assert findings[0].severity.value == "breaking" and findings[0].symbol == "gizmo.engine"
    after, before = [tmp_path / "after", tmp_path / "consumer"], [tmp_path / "before", tmp_path / "consumer"]
    assert raised_by(before, "app.direct", "install()") is None
    assert findings[0].predicted_failure == "ModuleNotFoundError: No module named 'gizmo.engine'"
    raised = raised_by(after, "app.direct", "install()")  # wrapt >= 2.5: its own ModuleNotFoundError subclass
    assert issubclass(_raised_type(raised), ModuleNotFoundError) and "gizmo.engine" in raised, raised
