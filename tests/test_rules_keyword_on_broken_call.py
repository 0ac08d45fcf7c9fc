"""DRIFT010 on a call that already lacked a required argument on the baseline
(`GroupCoordinator(ranks, rank, backend, use_pynccl=...)` where the baseline also required
`use_hpu_communicator`): that path raised there too, so the keyword the target removed is risky,
not a break the upgrade made. The same keyword on a call that bound the baseline is breaking."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/group.py": """
    class GroupCoordinator:
        def __init__(self, ranks, backend, use_pynccl: bool, use_hpu: bool):
            self.ranks = ranks
    """}
AFTER = {"gizmo/group.py": """
    class GroupCoordinator:
        def __init__(self, ranks, backend, use_hpu: bool):
            self.ranks = ranks
    """}
CONSUMER = {"app/dist.py": """
    from gizmo.group import GroupCoordinator


    def old_path(ranks):
        return GroupCoordinator(ranks, "nccl", use_pynccl=True)


    def good_path(ranks):
        return GroupCoordinator(ranks, "nccl", use_pynccl=True, use_hpu=False)
    """}


def test_a_removed_keyword_on_a_call_the_baseline_already_rejected_is_risky(tmp_path):
    src = CONSUMER["app/dist.py"]
    found = [f for f in findings_of(tmp_path, Case("broken-call", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT010"]
    got = sorted((f.consumer_site.line, f.severity.value) for f in found)
    assert got == [(line_of(src, 'GroupCoordinator(ranks, "nccl", use_pynccl=True)'), "risky"),
                   (line_of(src, "use_pynccl=True, use_hpu=False"), "breaking")], got
