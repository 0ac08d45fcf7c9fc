"""DRIFT119: a class the consumer registers with the target, extending no target class that
declares the method, is held to the target's own calls of that method on the objects it holds
(synthetic before/after trees). The runner's `self.model.score(h, None)` became
`self.model.score(h)`: a registered class still requiring `meta` raises TypeError there. A method
that takes both, a class never handed, and a composite's delegation to its part (a call inside a
method of the same name) are left alone."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

BEFORE = {"gizmo/registry.py": """
    _MODELS = {}


    def register(name, cls):
        _MODELS[name] = cls


    class Runner:
        def __init__(self, name):
            self.model = _MODELS[name]()

        def step(self, h):
            return self.model.score(h, None)


    class Composite:
        def __init__(self, part):
            self.part = part

        def score(self, h, meta):
            return self.part.score(h, meta)
    """}
AFTER = {"gizmo/registry.py": """
    _MODELS = {}


    def register(name, cls):
        _MODELS[name] = cls


    class Runner:
        def __init__(self, name):
            self.model = _MODELS[name]()

        def step(self, h):
            return self.model.score(h)


    class Composite:
        def __init__(self, part):
            self.part = part

        def score(self, h, meta):
            return self.part.score(h, meta)
    """}
MINE = """
    from gizmo.registry import register


    class Mine:
        def score(self, h, meta):
            return h


    class Flexible:
        def score(self, h, meta=None):
            return h


    class Unused:
        def score(self, h, meta):
            return h


    register("mine", Mine)
    register("flexible", Flexible)
    """


def test_a_registered_class_is_held_to_the_targets_calls_on_held_objects(tmp_path):
    case = Case("handed-calls", BEFORE, AFTER, {"app/__init__.py": "", "app/mine.py": MINE},
                [("DRIFT119", line_of(MINE, "def score(self, h, meta):"))])
    findings = findings_of(tmp_path, case)
    assert_findings([f for f in findings if f.rule_id == "DRIFT119"], case.expected)
    found = only(findings, "DRIFT119")
    assert found.severity.value == "risky"
    assert found.predicted_failure == "TypeError: Mine.score() missing 1 required positional argument: 'meta'"
    run = "__import__('gizmo.registry', fromlist=['x']).Runner('mine').step(1)"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", run) == found.predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", run) is None
    flexible = run.replace("'mine'", "'flexible'")
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", flexible) is None


MODELS = """
    from gizmo.registry import Composite


    class Mine:
        def score(self, h, meta):
            return h

        def wrapped(self):
            return Composite(self)
    """
BY_NAME = """
    from importlib import import_module

    from gizmo.registry import register


    def plug(new):
        if new:
            module = import_module("app.models")
        else:
            raise RuntimeError("unsupported")
        cls = getattr(module, "Mine")
        register("mine", cls)
    """


def test_a_class_reached_by_name_through_import_module_is_handed_too(tmp_path):
    """`getattr(import_module("app.models"), "Mine")` names the consumer's class as an import
    would: registering it hands it to the target, and its method is held to the target's calls."""
    case = Case("by-name", BEFORE, AFTER, {"app/__init__.py": "", "app/models.py": MODELS, "app/plug.py": BY_NAME},
                [("DRIFT119", line_of(MODELS, "def score(self, h, meta):"))])
    findings = findings_of(tmp_path, case)
    assert_findings([f for f in findings if f.rule_id == "DRIFT119"], case.expected)
    assert only(findings, "DRIFT119").consumer_site.path.endswith("app/models.py")
    run = "(m.plug(True), __import__('gizmo.registry', fromlist=['x']).Runner('mine').step(1))"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.plug", run.replace("m.", "")) == \
        only(findings, "DRIFT119").predicted_failure


def test_probe_resolves_only_the_consumers_own_modules_by_name(tmp_path):
    """A literal naming a module outside the consumer's package (another library) hands nothing."""
    from drift.consumer.usage import collect_usage
    from tests.rule_cases import write_tree

    other = BY_NAME.replace('"app.models"', '"elsewhere.models"')
    write_tree(tmp_path, {"app/models.py": MODELS, "app/plug.py": BY_NAME, "app/other.py": other,
                          "gizmo/registry.py": AFTER["gizmo/registry.py"]})
    usage = {m["module"]: m for m in collect_usage(tmp_path, ["app"], ["gizmo"])}
    handed = lambda mod: [c.get("class_args") for c in usage[mod]["calls"] if c.get("class_args")]
    assert handed("app.plug") == [["app.models.Mine"]]
    assert handed("app.other") == []


def test_an_fstring_of_module_constants_names_the_module_too(tmp_path):
    """`import_module(f"{PKG}.models")` with `PKG = "app"`: the parts are constants, so the
    module is known; a part that is not (a parameter) names nothing."""
    from drift.consumer.usage import collect_usage
    from tests.rule_cases import write_tree

    fstring = BY_NAME.replace('"app.models"', 'f"{PKG}.models"').replace(
        "from gizmo.registry import register\n", 'from gizmo.registry import register\n\n    PKG = "app"\n')
    unknown = fstring.replace("def plug(new):", "def plug(new, PKG=None):").replace('PKG = "app"', "")
    write_tree(tmp_path, {"app/models.py": MODELS, "app/plug.py": fstring, "app/other.py": unknown,
                          "gizmo/registry.py": AFTER["gizmo/registry.py"]})
    usage = {m["module"]: m for m in collect_usage(tmp_path, ["app"], ["gizmo"])}
    handed = lambda mod: [c.get("class_args") for c in usage[mod]["calls"] if c.get("class_args")]
    assert handed("app.plug") == [["app.models.Mine"]]
    assert handed("app.other") == []
