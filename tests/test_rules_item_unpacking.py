"""DRIFT032 on each element of a call's result: `for a, b in self.pool.finished():` (and a
comprehension over it) where the baseline's return annotation promised items of two values
(`list[tuple[int, bool]]`) and the target's promises three: the loop raises on its first item.
The receiver is typed through `self.<attr>` assigned from the target's constructor."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of
from drift.analysis.rules.arity import item_annotation

BEFORE = {"gizmo/pool.py": """
    from typing import Iterator

    class Pool:
        def __init__(self, n):
            self.n = n

        def finished(self) -> list[tuple[int, bool]]:
            return []

        def stream(self) -> Iterator[tuple[int, bool]]:
            yield from ()

        def names(self) -> list[str]:
            return []
    """}
AFTER = {"gizmo/pool.py": """
    from typing import Iterator

    class Pool:
        def __init__(self, n):
            self.n = n

        def finished(self) -> list[tuple[int, bool, float]]:
            return []

        def stream(self) -> Iterator[tuple[int, bool]]:
            yield from ()

        def names(self) -> list[str]:
            return []
    """}
CONSUMER = """
    from gizmo.pool import Pool

    class Tier:
        def __init__(self):
            self.pool = Pool(2)

        def poll(self):
            for job, ok in self.pool.finished():
                print(job, ok)
            for job, *rest in self.pool.finished():
                print(job, rest)
            for job, ok in self.pool.stream():
                print(job, ok)
            for a, b in self.pool.names():
                print(a, b)
            return [job for job, ok in self.pool.finished() if ok]
    """


def test_items_unpacked_into_the_baselines_count_break_where_the_target_adds_one(tmp_path):
    found = [f for f in findings_of(tmp_path, Case("items", BEFORE, AFTER, {"app/tier.py": CONSUMER}))
             if f.rule_id == "DRIFT032"]
    lines = sorted(f.consumer_site.line for f in found)
    # the starred loop still fits; stream() kept its items; names() tells no count
    assert lines == [line_of(CONSUMER, "for job, ok in self.pool.finished()"),
                     line_of(CONSUMER, "return [job for job, ok")], [f.title for f in found]
    assert all(f.predicted_failure == "ValueError: too many values to unpack (expected 2)" for f in found)
    assert all(f.severity.value == "breaking" for f in found)


def test_item_annotation_reads_the_element_type_of_iterables_only():
    assert item_annotation("list[tuple[A, B]]") == "tuple[A, B]"
    assert item_annotation("typing.Iterator[Tuple[A, B, C]]") == "Tuple[A, B, C]"
    assert item_annotation("Generator[tuple[A, B], None, None]") == "tuple[A, B]"
    assert item_annotation("tuple[tuple[A, B], ...]") == "tuple[A, B]"
    assert item_annotation("tuple[A, B]") is None
    assert item_annotation("dict[str, tuple[A, B]]") is None
    assert item_annotation("list[tuple[A, B]] | None") is None


def test_a_tuple_grown_at_its_end_gets_a_safe_star_that_fits_both_releases(tmp_path):
    """The target appended a float to each item: `*_` takes the same two values on both sides."""
    found = [f for f in findings_of(tmp_path, Case("items-rest", BEFORE, AFTER, {"app/tier.py": CONSUMER}))
             if f.rule_id == "DRIFT032"]
    assert {(f.fix.codemod, f.fix.tier) for f in found} == {("unpack_rest", "safe")}
    assert all(f.fix.args == {"callee": "finished", "names": 2} for f in found)
    assert "`*_`" in found[0].fix.description


def test_a_value_inserted_in_front_is_left_to_the_consumer(tmp_path):
    """(float, int, bool): the first two values changed meaning, so no star is offered."""
    front = {"gizmo/pool.py": AFTER["gizmo/pool.py"].replace("tuple[int, bool, float]", "tuple[float, int, bool]")}
    found = [f for f in findings_of(tmp_path, Case("items-front", BEFORE, front, {"app/tier.py": CONSUMER}))
             if f.rule_id == "DRIFT032"]
    assert found and all(f.fix.codemod is None and f.fix.tier == "manual" for f in found)
