"""DRIFT139: a consumer function that sets a target module's globals by hand (`ps._TP = tp`, as
vLLM's `initialize_model_parallel` does), where the target's setter now also sets a new global a
getter asserts on (`_PCP`, `get_pcp_group()`): the hand-made state is one short. A function that
also calls the setter, and one that sets a single name, stay silent."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/parallel.py": """
        _TP = None
        _PP = None


        def destroy_groups():
            global _TP, _PP
            _TP = _PP = None


        def initialize(tp, pp):
            global _TP, _PP
            _TP = tp
            _PP = pp


        def get_tp():
            assert _TP is not None, "tensor parallel group is not initialized"
            return _TP


        def get_pp():
            assert _PP is not None, "pipeline parallel group is not initialized"
            return _PP


        def layer():
            return get_tp()
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/parallel.py": """
        _TP = None
        _PP = None
        _CP = None


        def destroy_groups():
            global _TP, _PP, _CP
            _TP = _PP = _CP = None


        def initialize(tp, pp, cp=1):
            global _TP, _PP, _CP
            _TP = tp
            _PP = pp
            _CP = cp


        def get_tp():
            assert _TP is not None, "tensor parallel group is not initialized"
            return _TP


        def get_pp():
            assert _PP is not None, "pipeline parallel group is not initialized"
            return _PP


        def get_cp():
            assert _CP is not None, "context parallel group is not initialized"
            return _CP


        def layer():
            return get_tp(), get_cp()
        """,
}
APP = """
    from gizmo import parallel as ps


    def share_groups(tp, pp):
        ps._TP = tp
        ps._PP = pp


    def share_then_init(tp, pp):
        ps._TP = tp
        ps._PP = pp
        ps.initialize(tp, pp)


    def only_tp(tp):
        ps._TP = tp
    """


def test_hand_set_state_one_short_of_the_targets_setter_is_reported(tmp_path):
    found = findings_of(tmp_path, Case("globals", BEFORE, AFTER, {"app/groups.py": APP}))
    assert_findings(found, [("DRIFT139", line_of(APP, "def share_groups"))])
    f = found[0]
    assert f.severity.value == "risky" and f.symbol == "gizmo.parallel._CP" and "`get_cp`" in f.title
    assert "as the target's `initialize` does" in f.title  # the setter it mirrors, not the teardown
    run = "(share_groups(1, 2), __import__('gizmo.parallel').parallel.layer())"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.groups", run) is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.groups", run) == \
        "AssertionError: context parallel group is not initialized"
