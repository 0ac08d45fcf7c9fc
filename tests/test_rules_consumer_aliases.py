"""A consumer module that binds a target name at module level (`Factory = layers.Factory`, with a
fallback to an older name in the `else` of a `hasattr` test) re-exports it: the consumer's other
modules that import `Factory` from it (and the target itself, as only modules that do are read)
reach the target's, and what they build with it is the target's object. Each side takes the one of the names it defines, as the `hasattr` does; a side
that defines both leaves the name untyped (which one the consumer binds there is its decision)."""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/layers.py": """
    class Runner:
        @property
        def is_internal(self) -> bool:
            return True

        def run(self, x):
            return x


    def Factory(n: int) -> Runner:
        return Runner()
    """}
AFTER = {"gizmo/layers.py": """
    class Runner:
        def run(self, x):
            return x


    def Factory(n: int) -> Runner:
        return Runner()
    """}
COMPAT = """
    import gizmo.layers as layers

    if hasattr(layers, "Factory"):
        Factory = layers.Factory
    else:
        Factory = layers.OldFactory
    """
MODEL = """
    import gizmo

    from app.compat import Factory


    class Block:
        def __init__(self):
            self.experts = Factory(4)

        def forward(self, x):
            if self.experts.is_internal:
                return self.experts.run(x)
            return x


    def direct(x):
        return Factory(2).is_internal
    """
CONSUMER = {"app/compat.py": COMPAT, "app/model.py": MODEL}


def test_a_target_name_re_exported_by_a_consumer_module_is_the_target_s(tmp_path):
    found = [f for f in findings_of(tmp_path, Case("alias", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT060"]
    assert {(f.consumer_site.path, f.consumer_site.line) for f in found} == {
        ("app/model.py", line_of(MODEL, "if self.experts.is_internal:")),
        ("app/model.py", line_of(MODEL, "return Factory(2).is_internal")),
    }, [(f.consumer_site, f.title) for f in found]
    assert all(f.severity == Severity.BREAKING for f in found)
    assert {f.predicted_failure for f in found} == {"AttributeError: 'Runner' object has no attribute 'is_internal'"}


def test_a_side_that_has_both_names_types_nothing(tmp_path):
    legacy = """

    class Legacy:
        is_internal = True


    def OldFactory(n: int) -> Legacy:
        return Legacy()
    """
    both = {"gizmo/layers.py": AFTER["gizmo/layers.py"] + legacy}
    found = [f for f in findings_of(tmp_path, Case("both", BEFORE, both, CONSUMER)) if f.rule_id == "DRIFT060"]
    assert found == []


def test_python_raises_what_drift_predicts(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([before, app], "app.model", "Block().forward(1)") is None
    assert raised_by([after, app], "app.model", "Block().forward(1)") == \
        "AttributeError: 'Runner' object has no attribute 'is_internal'"
    assert raised_by([after, app], "app.model", "direct(1)") == \
        "AttributeError: 'Runner' object has no attribute 'is_internal'"
