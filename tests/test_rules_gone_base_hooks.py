"""DRIFT072 for a consumer class whose base the target no longer resolves at all (its module was
split into a package, the class renamed): each override of a method the baseline's base defined
and the baseline's code called, that no target code calls any more, is reported risky at its
`def`; an override the target still calls somewhere, or one the consumer calls itself, is not.
Read as `drift check` reads a release on disk (sources at hand: "no target code calls it" is a
search of the target's text)."""

from __future__ import annotations

from drift.model.targets import load_facts
from drift.pipeline.run import check
from tests.rule_cases import consumer_of, line_of, write_tree

BEFORE = {"gizmo/wrap.py": """
    class Wrapper:
        def add_packed(self, y, x):
            return y

        def add_single(self, y, x):
            return y

        def reset(self):
            return None

    class Layer:
        def __init__(self, wrapper):
            self.wrapper = wrapper

        def forward(self, y, x):
            self.wrapper.add_packed(y, x)
            self.wrapper.reset()
            return self.wrapper.add_single(y, x)
    """}
AFTER = {"gizmo/wrapping/base.py": """
    class WrapperBase:
        def add_linear(self, y, x):
            return y

        def add_single(self, y, x):
            return y

    class Layer:
        def __init__(self, wrapper):
            self.wrapper = wrapper

        def forward(self, y, x):
            self.wrapper.add_linear(y, x)
            return self.wrapper.add_single(y, x)
    """}
CONSUMER = """
    from gizmo.wrap import Wrapper

    class FastWrapper(Wrapper):
        def add_packed(self, y, x):
            return x

        def add_single(self, y, x):
            return x

        def reset(self):
            return None

    def clear(w: FastWrapper):
        w.reset()
    """


def _findings(tmp_path):
    facts = {}
    for side, files in (("before", BEFORE), ("after", AFTER)):
        root = write_tree(tmp_path / side, dict(files, **{"gizmo/__init__.py": f"# {tmp_path} {side}\n"}))
        loaded = load_facts(str(root), packages=["gizmo"], demand=True)
        assert loaded.ok, loaded.error
        facts[side] = loaded.facts
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/wrap.py": CONSUMER}))
    outcome = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"], target_package="gizmo")
    assert outcome.error is None, outcome.error
    return outcome.report.findings


def test_overrides_of_a_gone_base_that_nothing_calls_are_orphaned(tmp_path):
    found = _findings(tmp_path)
    hooks = [f for f in found if f.rule_id == "DRIFT072"]
    # add_single: the target still calls it; reset: the consumer calls it itself
    assert [f.consumer_site.line for f in hooks] == [line_of(CONSUMER, "def add_packed")], [f.title for f in found]
    assert hooks[0].severity.value == "risky"
    assert hooks[0].baseline_evidence[0].line == line_of(BEFORE["gizmo/wrap.py"], "self.wrapper.add_packed(y, x)")
