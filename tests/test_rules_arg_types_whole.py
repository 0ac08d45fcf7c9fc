"""DRIFT064 when the parameter itself changes type (synthetic before/after pairs): the baseline
declared `counts: list[int]`, the target renames the parameter and declares it one class
(`counts_np: Counts`) and uses it as one. The consumer calls the method on a slice of a target object
(`self.meta[0:2]`: the class's `__getitem__` builds its own class, so the slice is one) and passes
a list of plain values by position. Shown by running the synthetic code on both releases."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

META_BEFORE = """
    class Meta:
        def __init__(self, lens):
            self.lens = lens

        def __getitem__(self, indices):
            return Meta(lens=self.lens[indices])

        def build(self, counts: list[int]):
            return sum(counts) + len(self.lens)
    """
META_AFTER = """
    class Counts:
        def __init__(self, values):
            self.values = values

        def total(self):
            return sum(self.values)


    class Meta:
        def __init__(self, lens):
            self.lens = lens

        def __getitem__(self, indices):
            return Meta(lens=self.lens[indices])

        def build(self, counts_np: Counts):
            return counts_np.total() + len(self.lens)
    """
MINE = """
    from gizmo.meta import Meta


    class Runner:
        def __init__(self):
            self.meta = Meta(lens=[1, 2, 3])

        def run(self, counts):
            part = self.meta[0:2]
            return part.build([int(c) for c in counts])
    """


def _case(mine=MINE, before=META_BEFORE, after=META_AFTER):
    return Case("whole-retype", {"gizmo/meta.py": before}, {"gizmo/meta.py": after},
                {"app/__init__.py": "", "app/mine.py": mine})


def test_list_for_a_parameter_now_declared_one_class_through_a_sliced_receiver(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT064", line_of(MINE, "return part.build("))])
    f = findings[0]
    assert f.severity.value == "risky" and f.symbol == "gizmo.meta.Meta.counts_np"
    assert "argument 1 (`counts_np`)" in f.title and "`Counts`" in f.title and "`counts: list[int]`" in f.title
    assert f.fix.description == "pass the value as `Counts`"
    use = "Runner().run([1, 2])"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", use) is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", use) == \
        "AttributeError: 'list' object has no attribute 'total'"


def test_a_slice_whose_class_builds_something_else_is_not_typed(tmp_path):
    before = META_BEFORE.replace("return Meta(lens=self.lens[indices])", "return dict(lens=self.lens[indices])")
    after = META_AFTER.replace("return Meta(lens=self.lens[indices])", "return dict(lens=self.lens[indices])")
    assert "dict(lens" in before and "dict(lens" in after
    assert_findings(findings_of(tmp_path, _case(before=before, after=after)), [])


def test_a_parameter_still_declared_a_list_is_silent(tmp_path):
    after = META_AFTER.replace("counts_np: Counts", "counts_np: list[int]").replace("counts_np.total()", "sum(counts_np)")
    assert_findings(findings_of(tmp_path, _case(after=after)), [])
