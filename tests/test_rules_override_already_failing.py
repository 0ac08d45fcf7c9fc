"""DRIFT070 leaves out a target call the override already failed the same way at the baseline.

The override `apply(self, layer, x, router=None)` never took `activation` or `scale`, which the
baseline's own call already passed: it failed there (Python named `activation`, the first). The
target's call adds the new `router=` (which the old declaration does not take, so the call is one
this release brought) and passes the others in another order, so Python names `scale` first: the
same old failure all the same. A call that also passes `gate=`, which the override lacks and the
baseline's calls never passed, is a new failure and is still reported.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, only, raised_by

METHOD_BEFORE = """
    class Method:
        def apply(self, layer, x, activation="silu", scale=1.0):
            return x
    """
METHOD_AFTER = """
    class Method:
        def apply(self, layer, x, scale=1.0, activation="silu", router=None, gate=None):
            return x
    """
LAYER_BEFORE = """
    def forward(method):
        return method.apply(layer=1, x=2, activation="silu", scale=1.0)
    """
CONSUMER = {"app/method.py": """
    from gizmo.method import Method

    class MyMethod(Method):
        def apply(self, layer, x, router=None):
            return x
    """}


def _case(layer_after: str) -> Case:
    return Case("override-already-failing",
                before={"gizmo/method.py": METHOD_BEFORE, "gizmo/layer.py": LAYER_BEFORE},
                after={"gizmo/method.py": METHOD_AFTER, "gizmo/layer.py": layer_after},
                consumer=CONSUMER)


def test_a_call_that_fails_only_as_the_baselines_did_is_not_reported(tmp_path):
    found = findings_of(tmp_path, _case("""
        def forward(method):
            return method.apply(layer=1, x=2, scale=1.0, activation="silu", router="r")
        """))
    assert not [f for f in found if f.rule_id == "DRIFT070"], [f.title for f in found]
    # Python: the baseline's call already failed on the override, and the target's fails alike
    for side in ("before", "after"):
        raised = raised_by([tmp_path / side, tmp_path / "consumer"], "app.method",
                           "__import__('gizmo.layer').layer.forward(MyMethod())")
        assert raised is not None and raised.startswith("TypeError") and "unexpected keyword argument" in raised


def test_a_call_with_a_keyword_the_baselines_never_passed_is_still_reported(tmp_path):
    found = findings_of(tmp_path, _case("""
        def forward(method):
            return method.apply(layer=1, x=2, scale=1.0, activation="silu", router="r", gate="g")
        """))
    f = only(found, "DRIFT070")
    assert f.consumer_site.line == line_of(CONSUMER["app/method.py"], "def apply")
    assert "gate=" in f.title
