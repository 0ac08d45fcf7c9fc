"""A `hasattr` feature test is answered on the target's facts (drift/analysis/signature_tests.py
over probes/ir.py `hastest`): the code written for a release whose object lacks the name (the
`else`, or what follows a body that returns) never runs on a target whose object has it, and a
removed name read there is no break; where the target's object lacks the name, that side runs and
its finding stays. The consumer runs on both releases to show it."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/lora.py": """
    class LoRAModel:
        @classmethod
        def old_load(cls, path):
            return "old"
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/lora.py": """
    class LoRAModel:
        @classmethod
        def new_load(cls, path, vocab=0):
            return "new"
    """}
NEITHER = {"gizmo/__init__.py": "", "gizmo/lora.py": """
    class LoRAModel:
        @classmethod
        def load(cls, path):
            return "plain"
    """}
CONSUMER = """
    from gizmo.lora import LoRAModel


    def load(path):
        if hasattr(LoRAModel, "new_load"):
            return LoRAModel.new_load(path)
        else:
            return LoRAModel.old_load(path)  # else side


    def load_early(path, model=LoRAModel):
        if hasattr(model, "new_load"):
            return model.new_load(path)
        return model.old_load(path)  # after an exiting body


    def load_negated(path):
        if not hasattr(LoRAModel, "new_load"):
            return LoRAModel.old_load(path)  # negated
        return LoRAModel.new_load(path)
    """


def test_the_side_written_for_an_object_lacking_the_name_is_silent_where_the_target_has_it(tmp_path):
    found = findings_of(tmp_path, Case("hasattr", BEFORE, AFTER, {"app/x.py": CONSUMER}))
    assert [f for f in found if f.rule_id == "DRIFT060"] == []
    after = [tmp_path / "after", tmp_path / "consumer"]
    for call in ("load('p')", "load_early('p')", "load_negated('p')"):
        assert raised_by(after, "app.x", call) is None


def test_where_the_target_lacks_both_names_the_old_side_runs_and_breaks(tmp_path):
    found = findings_of(tmp_path, Case("hasattr_b", BEFORE, NEITHER, {"app/x.py": CONSUMER}))
    lines = sorted(f.consumer_site.line for f in found if f.rule_id == "DRIFT060")
    assert lines == sorted(line_of(CONSUMER, mark) for mark in ("# else side", "# after an exiting", "# negated"))
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert (raised_by(after, "app.x", "load('p')") or "").startswith("AttributeError")


GATED = """
    from gizmo.lora import LoRAModel


    def load(path, parts):
        if parts > 1 and hasattr(LoRAModel, "old_load"):
            return LoRAModel.old_load(path)  # conjunct
        if parts > 1 and not hasattr(LoRAModel, "old_load"):
            return "no old"
        return "plain"


    def load_else(path, parts):
        if parts > 1 and hasattr(LoRAModel, "new_load"):
            return LoRAModel.new_load(path)
        else:
            return LoRAModel.old_load(path)  # else of a conjunct
    """


def test_a_feature_test_among_and_parts_answers_its_body_only(tmp_path):
    """`if n > 1 and hasattr(X, "m"):` runs its body only where X has m: on a target without m the
    body is silent; its `else` runs where n <= 1 too, so it stays checked."""
    found = findings_of(tmp_path, Case("hasattr_and", BEFORE, AFTER, {"app/x.py": GATED}))
    assert sorted(f.consumer_site.line for f in found if f.rule_id == "DRIFT060") == [
        line_of(GATED, "# else of a conjunct")]
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.x", "load('p', 2)") is None
    assert (raised_by(after, "app.x", "load_else('p', 1)") or "").startswith("AttributeError")


BASE_BEFORE = {"gizmo/__init__.py": "", "gizmo/moe.py": """
    class Experts:
        def reduce_all(self, x):
            return x


    class Block:
        def __init__(self):
            self.experts = Experts()
    """}
BASE_AFTER = {"gizmo/__init__.py": "", "gizmo/moe.py": """
    class Experts:
        pass


    class Block:
        def __init__(self):
            self.experts = Experts()
    """}
SUBCLASS = """
    from gizmo.moe import Block


    class MyBlock(Block):
        def forward(self, out, parts):
            if parts > 1 and hasattr(self.experts, "reduce_all"):
                out = self.experts.reduce_all(out)  # tested
            return out

        def forward_plain(self, out):
            return self.experts.reduce_all(out)  # untested
    """


def test_a_gone_name_in_a_body_its_hasattr_test_guards_is_no_break(tmp_path):
    """The subject is an attribute the target's base class sets (the solver does not type it): the
    finding's own claim, that the name is gone, answers the test, and the body never runs."""
    found = findings_of(tmp_path, Case("hasattr_base", BASE_BEFORE, BASE_AFTER, {"app/x.py": SUBCLASS}))
    assert sorted(f.consumer_site.line for f in found if f.rule_id == "DRIFT060") == [line_of(SUBCLASS, "# untested")]
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.x", "MyBlock().forward(1, 2)") is None
    assert (raised_by(after, "app.x", "MyBlock().forward_plain(1)") or "").startswith("AttributeError")
