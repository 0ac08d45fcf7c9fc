"""A loop over a container the target annotates binds what iterating it yields: an element of a
`list[C]`, of an `Iterator[tuple[str, C]]` unpacked (`for name, c in ...`), a value of a
`dict[str, C]` through `.values()` / `.items()`, an element under `enumerate`; a plain loop over a
mapping yields its keys. Reads on those elements are checked like any typed read (DRIFT060), and a
name gone from the iterable itself fails at the loop, not again at each use of the loop variable."""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/pool.py": """
    from typing import Iterator


    class Block:
        def __init__(self):
            self.hash = 0
            self.size = 1


    class Pool:
        def blocks(self) -> list[Block]:
            return [Block()]

        def named(self) -> Iterator[tuple[str, Block]]:
            yield "a", Block()

        def by_id(self) -> dict[str, Block]:
            return {"a": Block()}

        def old_blocks(self) -> list[Block]:
            return [Block()]
    """}
AFTER = {"gizmo/pool.py": """
    from typing import Iterator


    class Block:
        def __init__(self):
            self.block_hash = 0
            self.size = 1


    class Pool:
        def blocks(self) -> list[Block]:
            return [Block()]

        def named(self) -> Iterator[tuple[str, Block]]:
            yield "a", Block()

        def by_id(self) -> dict[str, Block]:
            return {"a": Block()}
    """}
CONSUMER = {"app/walk.py": """
    from gizmo.pool import Pool


    def elements(pool: Pool):
        for b in pool.blocks():
            print(b.hash, b.size)


    def unpacked(pool: Pool):
        for name, b in pool.named():
            print(name, b.hash)


    def keys(pool: Pool):
        for k in pool.by_id():
            print(k.upper())


    def values(pool: Pool):
        for v in pool.by_id().values():
            print(v.hash)


    def items(pool: Pool):
        for k, v in pool.by_id().items():
            print(k, v.hash)


    def numbered(pool: Pool):
        for i, b in enumerate(pool.blocks()):
            print(i, b.hash)


    def gone(pool: Pool):
        for b in pool.old_blocks():
            print(b.size)
    """}


def test_loop_variables_take_the_element_the_target_declares(tmp_path):
    src = CONSUMER["app/walk.py"]
    findings = [f for f in findings_of(tmp_path, Case("iterated", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT060"]
    expected = {line_of(src, "print(b.hash, b.size)"), line_of(src, "print(name, b.hash)"),
                line_of(src, "print(v.hash)"), line_of(src, "print(k, v.hash)"), line_of(src, "print(i, b.hash)"),
                line_of(src, "for b in pool.old_blocks():")}
    assert {f.consumer_site.line for f in findings} == expected, [(f.consumer_site.line, f.title) for f in findings]
    assert len(findings) == len(expected)  # the gone method once, at the loop; `b.size` after it is not reported
    for f in findings:
        assert f.severity == Severity.BREAKING
        if "old_blocks" not in f.title:
            assert f.predicted_failure == "AttributeError: 'Block' object has no attribute 'hash'"


def test_python_raises_what_drift_predicts(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    for fn in ("elements", "unpacked", "keys", "values", "items", "numbered", "gone"):
        assert raised_by([before, app], "app.walk", f"{fn}(__import__('gizmo.pool').pool.Pool())") is None
    for fn in ("elements", "unpacked", "values", "items", "numbered"):
        assert raised_by([after, app], "app.walk", f"{fn}(__import__('gizmo.pool').pool.Pool())") == \
            "AttributeError: 'Block' object has no attribute 'hash'"
    assert raised_by([after, app], "app.walk", "keys(__import__('gizmo.pool').pool.Pool())") is None
    assert raised_by([after, app], "app.walk", "gone(__import__('gizmo.pool').pool.Pool())") == \
        "AttributeError: 'Pool' object has no attribute 'old_blocks'"
