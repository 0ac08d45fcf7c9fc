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


SCALE_BEFORE = """
    class Scaler:
        def apply(self, x, scale: float = 1.0):
            return x * scale
    """
SCALE_AFTER = """
    class Scale:
        def __init__(self, value):
            self.value = value

        def to(self, device):
            return self


    class Scaler:
        def apply(self, x, scale: Scale):
            return x * scale.to("cpu").value
    """
SCALED = """
    from gizmo.scale import Scaler


    def run(x, factor, name):
        s = Scaler()
        a = s.apply(x, scale=0.5 * 2)  # literal
        b = s.apply(x, float(len(name)))  # by position
        c = s.apply(x, scale=factor)  # unknown
        return a, b, c
    """


def test_a_python_number_for_a_parameter_now_declared_one_class(tmp_path):
    """`scale: float` became `scale: Scale`: a number the consumer writes is now used as the class;
    a value drift cannot type (`factor`) says nothing."""
    case = Case("number-retype", {"gizmo/scale.py": SCALE_BEFORE}, {"gizmo/scale.py": SCALE_AFTER},
                {"app/__init__.py": "", "app/mine.py": SCALED})
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT064", line_of(SCALED, "# literal")), ("DRIFT064", line_of(SCALED, "# by position"))])
    f = [f for f in findings if f.consumer_site.line == line_of(SCALED, "# literal")][0]
    assert "gets a Python number; `scale` is now `Scale` (was `float`)" in f.title and f.severity.value == "risky"
    use = "run(2, 1.0, 'ab')"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", use) is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", use) == \
        "AttributeError: 'float' object has no attribute 'to'"


def test_a_number_for_a_parameter_that_stays_a_number_is_silent(tmp_path):
    after = SCALE_BEFORE.replace("scale: float = 1.0", "scale: float | int = 1")
    case = Case("number-kept", {"gizmo/scale.py": SCALE_BEFORE}, {"gizmo/scale.py": after},
                {"app/__init__.py": "", "app/mine.py": SCALED})
    assert_findings(findings_of(tmp_path, case), [])
