"""DRIFT061 where a container attribute became one object (synthetic before/after pairs):
`for r in out.cached:` written for `cached: list[Req]` raises TypeError once the target
annotates `cached: CachedReqs`, a class that defines no iteration."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

OUT_BEFORE = """
    from dataclasses import dataclass


    @dataclass
    class Req:
        req_id: str


    @dataclass
    class SchedOut:
        cached: list[Req]
    """
OUT_AFTER = """
    from dataclasses import dataclass


    @dataclass
    class CachedReqs:
        req_ids: list[str]


    @dataclass
    class SchedOut:
        cached: CachedReqs
    """
MINE = """
    from gizmo.out import SchedOut


    def step(out: SchedOut):
        ids = []
        for r in out.cached:
            ids.append(r.req_id)
        return ids
    """


def _case(after=OUT_AFTER):
    return Case("iter", {"gizmo/out.py": OUT_BEFORE}, {"gizmo/out.py": after}, {"app/__init__.py": "", "app/mine.py": MINE})


def test_iterating_what_became_one_object_is_a_break(tmp_path):
    findings = [f for f in findings_of(tmp_path, _case()) if f.rule_id == "DRIFT061"]
    assert len(findings) == 1
    f = findings[0]
    assert f.severity.value == "breaking" and f.symbol == "gizmo.out.CachedReqs"
    assert f.consumer_site.line == line_of(MINE, "for r in out.cached")  # where Python raises
    roots = [tmp_path / "after", tmp_path / "consumer"]
    got = raised_by(roots, "app.mine", "step(__import__('gizmo.out', fromlist=['x']).SchedOut(None))")
    assert got is not None and got.startswith("TypeError") and "not iterable" in got
    assert f.predicted_failure == "TypeError: 'CachedReqs' object is not iterable"


def test_a_class_that_defines_iteration_is_still_iterable(tmp_path):
    iterable = OUT_AFTER.replace("        req_ids: list[str]\n",
                                 "        req_ids: list[str]\n\n        def __iter__(self):\n"
                                 "            return iter(self.req_ids)\n")
    assert iterable != OUT_AFTER
    assert [f for f in findings_of(tmp_path, _case(iterable)) if f.rule_id == "DRIFT061"] == []
