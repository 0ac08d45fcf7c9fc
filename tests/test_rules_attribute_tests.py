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
