"""A consumer class whose base exists only on the target (the consumer followed a snapshot newer
than its baseline release): its overrides are held to the nearest ancestor both sides define.
DRIFT070 reports a keyword the target's callers now pass that the override does not take, and
DRIFT071 does not count the shared ancestor's old abstract methods as new."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/moe.py": """
    import abc

    class MethodBase(abc.ABC):
        @abc.abstractmethod
        def create_weights(self, layer):
            ...

        def apply(self, layer, x):
            raise NotImplementedError

    class Runner:
        def __init__(self, method):
            self.method = method

        def run(self, layer, x):
            return self.method.apply(layer, x)
    """}
AFTER = {"gizmo/moe.py": """
    import abc

    class MethodBase(abc.ABC):
        @abc.abstractmethod
        def create_weights(self, layer):
            ...

        def apply(self, layer, x, ids=None):
            raise NotImplementedError

    class SplitMethod(MethodBase):
        def create_weights(self, layer):
            return None

        def apply(self, layer, x, ids=None):
            return x

    class Runner:
        def __init__(self, method):
            self.method = method

        def run(self, layer, x, ids):
            return self.method.apply(layer=layer, x=x, ids=ids)
    """}
CONSUMER = """
    from gizmo.moe import SplitMethod

    class MyMethod(SplitMethod):
        def create_weights(self, layer):
            return 1

        def apply(self, layer, x):
            return x
    """


def test_override_of_a_target_only_base_is_held_to_the_shared_ancestor(tmp_path):
    found = findings_of(tmp_path, Case("nearest", BEFORE, AFTER, {"app/moe.py": CONSUMER}))
    over = [f for f in found if f.rule_id == "DRIFT070"]
    assert len(over) == 1, [f.title for f in found]
    assert over[0].consumer_site.line == line_of(CONSUMER, "def apply")
    assert "ids" in over[0].predicted_failure
    assert over[0].severity.value == "breaking"
    # the shared ancestor already declared create_weights abstract: nothing new to implement
    assert not [f for f in found if f.rule_id == "DRIFT071"], [f.title for f in found]


def test_no_shared_ancestor_leaves_the_class_alone(tmp_path):
    after = {"gizmo/moe.py": AFTER["gizmo/moe.py"].replace("class SplitMethod(MethodBase):", "class SplitMethod:")}
    found = findings_of(tmp_path, Case("nearest_none", BEFORE, after, {"app/moe.py": CONSUMER}))
    assert not [f for f in found if f.rule_id in ("DRIFT070", "DRIFT071")], [f.title for f in found]
