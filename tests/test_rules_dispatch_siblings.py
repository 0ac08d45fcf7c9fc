"""DRIFT070 on a dispatch family's shared contract: a target class picks one of its methods at
construction (`self._forward_method = self.dispatch_forward()`, returning `self.forward_oot` or
`self.forward_native`) and its public `forward(*args, **kwargs)` runs the chosen one with the
caller's arguments. The target's own sibling, `forward_native`, gained `offsets`; its callers pass
it; a plugin's `forward_oot`, written to `forward_native`'s old parameters, does not take it,
although its own declaration never changed and nothing calls `.forward_oot(...)` by name."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

OP = """
    class CustomOp:
        def __init__(self):
            self._forward_method = self.dispatch_forward()

        def forward(self, *args, **kwargs):
            return self._forward_method(*args, **kwargs)

        def dispatch_forward(self):
            if self.enabled():
                return self.forward_oot
            return self.forward_native

        def enabled(self):
            return True

        def forward_native(self, *args, **kwargs):
            raise NotImplementedError

        def forward_oot(self, *args, **kwargs):
            return self.forward_native(*args, **kwargs)


    class Rope(CustomOp):
        def forward_native(self, positions, query, key=None{extra}):
            return query
    """
MODEL = """
    from gizmo.op import Rope


    class Attn:
        def __init__(self, rope=None):
            self.rope = rope or Rope()

        def run(self, p, q, k):
            return self.rope.forward(p, q, k{call})
    """
BEFORE = {"gizmo/op.py": OP.replace("{extra}", ""), "gizmo/model.py": MODEL.replace("{call}", "")}
AFTER = {"gizmo/op.py": OP.replace("{extra}", ", offsets=None"), "gizmo/model.py": MODEL.replace("{call}", ", offsets=0")}
PLUGIN = """
    from gizmo.op import Rope


    class MyRope(Rope):
        def forward_oot(self, positions, query, key=None):
            return query
    """


def test_an_override_of_a_sibling_lacking_the_contracts_new_parameter(tmp_path):
    findings = findings_of(tmp_path, Case("siblings", BEFORE, AFTER, {"app/rope.py": PLUGIN}))
    assert_findings(findings, [("DRIFT070", line_of(PLUGIN, "def forward_oot"))])
    f = findings[0]
    assert f.severity.value == "risky"  # `offsets` has a default: only callers that pass it fail
    assert "new in `Rope.forward_native`" in f.title
    assert f.predicted_failure == "TypeError: MyRope.forward_oot() got an unexpected keyword argument 'offsets'"


def test_an_override_that_takes_it_or_never_followed_the_contract_says_nothing(tmp_path):
    takes = PLUGIN.replace("key=None)", "key=None, offsets=None)")
    assert_findings(findings_of(tmp_path / "a", Case("sib-takes", BEFORE, AFTER, {"app/rope.py": takes})), [])
    own = PLUGIN.replace("def forward_oot(self, positions, query, key=None)", "def forward_oot(self, x)")
    assert_findings(findings_of(tmp_path / "b", Case("sib-own", BEFORE, AFTER, {"app/rope.py": own})), [])


def test_python_fails_where_the_finding_says(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", {"app/rope.py": PLUGIN})
    run = "__import__('gizmo.model').model.Attn(MyRope()).run(1, 2, 3)"
    assert raised_by([before, app], "app.rope", run) is None
    assert raised_by([after, app], "app.rope", run) == \
        "TypeError: MyRope.forward_oot() got an unexpected keyword argument 'offsets'"


def test_a_parameter_renamed_in_place_is_no_new_one(tmp_path):
    """`forward_native(self, positions, query, key=None)` -> `(self, positions, q, key=None)`: the
    callers pass it by position, as before, and the override's `query` still receives it."""
    after = {"gizmo/op.py": OP.replace("{extra}", "").replace("positions, query, key=None", "positions, q, key=None"),
             "gizmo/model.py": MODEL.replace("{call}", "")}
    assert_findings(findings_of(tmp_path, Case("sib-renamed", BEFORE, after, {"app/rope.py": PLUGIN})), [])
