"""DRIFT030 / DRIFT031: a return value whose shape now depends on an argument the consumer passes."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only

GROUP_BEFORE = """
    class Group:
        def rpc(self, m, rank=None):
            out = [m(i) for i in range(2)]
            return out
    """
GROUP_AFTER = """
    class Group:
        def rpc(self, m, rank=None):
            out = [m(i) for i in range(2)]
            return out[0] if rank is not None else out
    """
GROUP_ALIAS = """
    class Group:
        def rpc(self, m, rank=None):
            out = [m(i) for i in range(2)]
            r = rank
            return out[0] if r is not None else out
    """
GROUP_NESTED = """
    class Group:
        def rpc(self, m, rank=None):
            def gather():
                out = [m(i) for i in range(2)]
                return out[0] if rank is not None else out
            return gather()
    """

INDEXES_WITH_RANK = """
    from gizmo.group import Group

    class App:
        def __init__(self):
            self.g = Group()

        def ready(self, fn):
            res = self.g.rpc(fn, rank=0)
            v = res[0]
            if not v:
                return False
            return True
    """
INDEXES_WITHOUT_RANK = """
    from gizmo.group import Group

    class App:
        def __init__(self):
            self.g = Group()

        def ready(self, fn):
            res = self.g.rpc(fn)
            v = res[0]
            if not v:
                return False
            return True
    """
ITERATES_WITH_RANK = """
    from gizmo.group import Group

    class App:
        def __init__(self):
            self.g = Group()

        def total(self, fn):
            res = self.g.rpc(fn, rank=0)
            n = 0
            for v in res:
                n += v
            return n
    """
INDEX_LINE = line_of(INDEXES_WITH_RANK, "v = res[0]")

CASES = [
    Case("indexed-then-truth-tested", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_AFTER},
         {"app/main.py": INDEXES_WITH_RANK}, [("DRIFT030", INDEX_LINE)]),
    Case("through-an-alias", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_ALIAS},
         {"app/main.py": INDEXES_WITH_RANK}, [("DRIFT030", INDEX_LINE)]),
    Case("in-a-nested-function", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_NESTED},
         {"app/main.py": INDEXES_WITH_RANK}, [("DRIFT030", INDEX_LINE)]),
    Case("rank-passed-positionally", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_AFTER},
         {"app/main.py": INDEXES_WITH_RANK.replace("rank=0", "0")}, [("DRIFT030", INDEX_LINE)]),
    Case("consumer-does-not-pass-rank", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_AFTER},
         {"app/main.py": INDEXES_WITHOUT_RANK}, []),
    Case("shape-already-in-the-baseline", {"gizmo/group.py": GROUP_AFTER}, {"gizmo/group.py": GROUP_AFTER},
         {"app/main.py": INDEXES_WITH_RANK}, []),
    Case("unchanged", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_BEFORE},
         {"app/main.py": INDEXES_WITH_RANK}, []),
    Case("iterated", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_AFTER},
         {"app/main.py": ITERATES_WITH_RANK}, [("DRIFT031", line_of(ITERATES_WITH_RANK, "for v in res"))]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_return_shape(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_finding_predicts_the_tensor_ambiguity_at_the_truth_test(tmp_path):
    f = only(findings_of(tmp_path, CASES[0]), "DRIFT030")
    truth_line = line_of(INDEXES_WITH_RANK, "if not v:")
    assert f.title == "`Group.rpc(..., rank=...)` now returns the element, not a list; the result is indexed"
    assert f.predicted_failure.startswith("RuntimeError: Boolean value of Tensor with more than one value is ambiguous")
    assert f"line {truth_line}" in f.predicted_failure
    assert [(e.path, e.line) for e in f.target_evidence] == [("gizmo/group.py", line_of(GROUP_AFTER, "return out[0]"))]
    assert f.details == f"call at line {line_of(INDEXES_WITH_RANK, 'self.g.rpc(')} passes `rank`"
    assert (f.fix.codemod, f.fix.args) == ("unwrap_index", {"index": "0", "name": "res"})


def test_without_a_truth_test_the_prediction_is_about_indexing(tmp_path):
    consumer = INDEXES_WITH_RANK.replace("            if not v:\n                return False\n", "")
    case = Case("index-only", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_AFTER},
                {"app/main.py": consumer}, [("DRIFT030", INDEX_LINE)])
    f = only(findings_of(tmp_path, case), "DRIFT030")
    assert f.predicted_failure.startswith("the `[0]` now indexes into the element itself")


def test_passing_none_keeps_the_sequence(tmp_path):
    case = Case("rank-none", {"gizmo/group.py": GROUP_BEFORE}, {"gizmo/group.py": GROUP_AFTER},
                {"app/main.py": INDEXES_WITH_RANK.replace("rank=0", "rank=None")}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
