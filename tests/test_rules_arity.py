"""DRIFT032: a call's result unpacked into the number of values the baseline's annotation
returned, where the target's annotation returns another number."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by, write_tree

MANAGER_BEFORE = """
    class Blocks:
        pass

    class Manager:
        def computed(self, request) -> tuple[Blocks, int]:
            return Blocks(), 0

        def spans(self) -> tuple[int, ...]:
            return (1, 2)

        async def acomputed(self, request) -> tuple[Blocks, int]:
            return Blocks(), 0

        def maybe(self) -> "tuple[int, int] | None":
            return 1, 2

    def pad(x) -> tuple[int, int]:
        return x, 0

    def build():
        return Manager()
    """
MANAGER_AFTER = """
    class Blocks:
        pass

    class Manager:
        def computed(self, request) -> tuple[Blocks, int, int]:
            return Blocks(), 0, 0

        def spans(self) -> tuple[int, ...]:
            return (1, 2, 3)

        async def acomputed(self, request) -> tuple[Blocks, int, int]:
            return Blocks(), 0, 0

        def maybe(self) -> "tuple[int, int, int] | None":
            return 1, 2, 3

    def pad(x) -> tuple[int]:
        return (x,)

    def build():
        return Manager()
    """
# The manager reaches the consumer the way vLLM's own objects do: built by the library and kept
# on self; the plain function is imported; a starred unpacking still fits a longer tuple.
CONSUMER = """
    from gizmo.core import Manager, build, pad

    class Sched:
        def __init__(self):
            self.manager: Manager = build()

        def step(self, request):
            blocks, n = self.manager.computed(request)
            first, *rest = self.manager.computed(request)
            a, b = self.manager.spans()
            c, d = self.manager.maybe()
            return blocks, n, first, rest, a, b, c, d

    def padded(x):
        value, width = pad(x)
        return value, width

    def padded_star(x):
        *head, last = pad(x)
        return head, last

    async def later(m: Manager, request):
        blocks, n = await m.acomputed(request)
        return blocks, n
    """

CASE = Case("arity", before={"gizmo/core.py": MANAGER_BEFORE}, after={"gizmo/core.py": MANAGER_AFTER},
            consumer={"app/sched.py": CONSUMER},
            expected=[("DRIFT032", line_of(CONSUMER, "blocks, n = self.manager.computed")),
                      ("DRIFT032", line_of(CONSUMER, "value, width = pad(x)")),
                      ("DRIFT032", line_of(CONSUMER, "blocks, n = await m.acomputed"))])


def test_unpacking_into_the_old_count_is_reported_where_python_raises(tmp_path):
    findings = findings_of(tmp_path, CASE)
    assert_findings(tuple(f for f in findings if f.rule_id == "DRIFT032"), CASE.expected)
    grown = next(f for f in findings if f.rule_id == "DRIFT032" and "computed" in f.title)
    assert "now returns 3 values" in grown.title and "unpacked into 2" in grown.title
    assert grown.severity.value == "breaking"
    assert grown.target_evidence[0].symbol == "gizmo.core.Manager.computed"
    # appended at the end, type by type: `blocks, n, *_ = ...` fits both releases
    assert (grown.fix.codemod, grown.fix.args, grown.fix.tier) == ("unpack_rest", {"callee": "computed", "names": 2}, "safe")
    padded = next(f for f in findings if f.rule_id == "DRIFT032" and "pad" in f.title)
    assert padded.fix.tier == "manual", padded.fix


def test_predicted_errors_are_the_ones_python_raises(tmp_path):
    findings = findings_of(tmp_path, CASE)
    after = write_tree(tmp_path / "run_after", {"gizmo/core.py": MANAGER_AFTER})
    app = write_tree(tmp_path / "run_app", {"app/sched.py": CONSUMER})
    grown = next(f for f in findings if f.rule_id == "DRIFT032" and "computed" in f.title)
    shrunk = next(f for f in findings if f.rule_id == "DRIFT032" and "pad" in f.title)
    assert raised_by([after, app], "app.sched", "Sched().step(None)") == grown.predicted_failure
    assert raised_by([after, app], "app.sched", "padded(1)") == shrunk.predicted_failure
    # the starred forms are silent because they still run
    assert raised_by([after, app], "app.sched", "padded_star(1)") is None


def test_a_call_that_still_fits_is_silent(tmp_path):
    same = Case("same", before={"gizmo/core.py": MANAGER_BEFORE}, after={"gizmo/core.py": MANAGER_BEFORE},
                consumer={"app/sched.py": CONSUMER})
    assert not [f for f in findings_of(tmp_path, same) if f.rule_id == "DRIFT032"]


def test_without_a_baseline_nothing_is_compared(tmp_path):
    from tests.rule_cases import run_case

    outcome = run_case(tmp_path, before=None, after={"gizmo/core.py": MANAGER_AFTER},
                       consumer={"app/sched.py": CONSUMER})
    assert outcome.report is not None
    assert not [f for f in outcome.report.findings if f.rule_id == "DRIFT032"]


# No annotation: the number of values is read off the returns when every one is a tuple literal of
# one length; returns of several lengths (or a starred item) say nothing.
LITERAL_BEFORE = {"gizmo/pads.py": """
    def pad(x):
        if x:
            return x, 0
        return 0, 0


    def either(x):
        if x:
            return x, 0
        return x, 0, 0


    def spread(x):
        return (*x, 0)
    """}
LITERAL_AFTER = {"gizmo/pads.py": """
    def pad(x):
        if x:
            return x, 0, 0
        return 0, 0, 0


    def either(x):
        if x:
            return x, 0, 0
        return x, 0


    def spread(x):
        return (*x, 0, 0)
    """}
LITERAL_CONSUMER = {"app/use.py": """
    from gizmo.pads import either, pad, spread


    def run(x):
        a, b = pad(x)
        c, d = either(x)
        e, f = spread([x])
        return a, b, c, d, e, f
    """}


def test_unannotated_tuple_returns_of_one_length_are_counted(tmp_path):
    src = LITERAL_CONSUMER["app/use.py"]
    findings = findings_of(tmp_path, Case("literal-returns", LITERAL_BEFORE, LITERAL_AFTER, LITERAL_CONSUMER))
    assert_findings(findings, [("DRIFT032", line_of(src, "a, b = pad(x)"))])
    assert "`return x, 0, 0`" in findings[0].title
    before = write_tree(tmp_path / "before", LITERAL_BEFORE)
    after = write_tree(tmp_path / "after", LITERAL_AFTER)
    app = write_tree(tmp_path / "app", LITERAL_CONSUMER)
    assert raised_by([before, app], "app.use", "run(1)") is None
    assert raised_by([after, app], "app.use", "run(1)") == findings[0].predicted_failure


def test_an_inherited_helper_called_on_self_gets_the_star_only_as_an_unsafe_fix(tmp_path):
    """vllm-ascend's scheduler copies `schedule` and calls the inherited
    `self._try_schedule_encoder_inputs(...)`: the class replays the target's own protocol, whose
    caller acts on the value the target appended, so `*_` is offered as unsafe."""
    mine = """
    from gizmo.core import Manager


    class MyManager(Manager):
        def step(self, request):
            blocks, n = self.computed(request)
            return blocks, n
    """
    case = Case("arity-self", {"gizmo/core.py": MANAGER_BEFORE}, {"gizmo/core.py": MANAGER_AFTER}, {"app/mine.py": mine})
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT032"]
    assert [(f.fix.codemod, f.fix.tier) for f in found] == [("unpack_rest", "unsafe")], [f.title for f in found]
