"""A list of plain Python values passed positionally for a parameter the target now declares as
one class itself (`nums: list[int]` became `nums_np: np.ndarray`, renamed as it was retyped): the
target uses the whole argument as that class (`.shape`, `torch.from_numpy`), which a list is not
(DRIFT064, risky). The receiver here is a slice or an item of a target object, typed by what its
class's `__getitem__` declares it returns (synthetic before/after pairs, the consumer really run on both)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

META = """
    from __future__ import annotations

    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        import numpy as np


    class Meta:
        def __init__(self, lens=(1, 2, 3)):
            self.lens = list(lens)

        def __getitem__(self, indices: slice) -> Meta:
            return Meta(self.lens[indices])

        def build(self, {param}):
            return {body}
    """
BEFORE = {"gizmo/__init__.py": "", "gizmo/meta.py": META.format(param="nums: list[int]", body="sum(nums)")}
AFTER = {"gizmo/__init__.py": "", "gizmo/meta.py": META.format(param="nums_np: np.ndarray", body="nums_np.shape[0]")}
MINE = """
    from gizmo.meta import Meta


    def run(meta: Meta, counts):
        part = meta[0:2]
        return part.build(counts.tolist())


    def run_kept(meta: Meta, counts):
        return meta[0:2].build(counts)


    def run_item(meta: Meta, counts):
        return meta[0].build(counts.tolist())
    """
RUN = "run(__import__('gizmo.meta', fromlist=['Meta']).Meta(), __import__('array').array('i', [1, 2]))"


def test_a_list_passed_where_the_target_now_wants_one_class_is_reported(tmp_path):
    findings = findings_of(tmp_path, Case("whole", BEFORE, AFTER, {"app/__init__.py": "", "app/mine.py": MINE}))
    assert_findings(findings, [("DRIFT064", line_of(MINE, "return part.build(counts.tolist())")),
                               ("DRIFT064", line_of(MINE, "return meta[0].build(counts.tolist())"))])
    assert all(f.severity.name == "RISKY" and "np.ndarray" in f.title for f in findings)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", RUN) == \
        "AttributeError: 'list' object has no attribute 'shape'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", RUN) is None
