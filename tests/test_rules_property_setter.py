"""DRIFT067 (synthetic before/after pairs): assigning an attribute the target made a property
without a setter, on objects typed through container annotations (`tuple[list[Block], ...]`
elements, slices) and on `self` in a subclass."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BLOCK_BEFORE = """
    class Block:
        def __init__(self, i):
            self.block_id = i
            self._hash = None

        @property
        def block_hash(self):
            return self._hash

        @block_hash.setter
        def block_hash(self, h):
            self._hash = h


    class Coordinator:
        def __init__(self):
            self.groups = [[Block(0), Block(1)]]

        def get_blocks(self, req) -> tuple[list[Block], ...]:
            return tuple(self.groups)
    """
BLOCK_AFTER = BLOCK_BEFORE.replace("""        @block_hash.setter
        def block_hash(self, h):
            self._hash = h
""", """        def set_block_hash(self, h):
            self._hash = h
""")
USER = """
    from gizmo.blocks import Block, Coordinator


    class Manager:
        def __init__(self, coordinator: Coordinator):
            self.coordinator = coordinator

        def mark(self, req, gid, i):
            blk = self.coordinator.get_blocks(req)[gid][i]
            blk.block_hash = b"x"
            for other in self.coordinator.get_blocks(req)[gid][1:]:
                pass
            tail = self.coordinator.get_blocks(req)[gid][1:][0]
            tail.block_hash = b"y"
            return blk


    class MyBlock(Block):
        def reset(self):
            self.block_hash = None
    """


def _case(before=BLOCK_BEFORE, after=BLOCK_AFTER, user=USER):
    return Case("setter", {"gizmo/blocks.py": before}, {"gizmo/blocks.py": after},
                {"app/__init__.py": "", "app/mgr.py": user})


def test_assignment_to_a_property_that_lost_its_setter(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT067", line_of(USER, 'blk.block_hash = b"x"')),
                               ("DRIFT067", line_of(USER, 'tail.block_hash = b"y"')),
                               ("DRIFT067", line_of(USER, "self.block_hash = None"))])
    by_line = {f.consumer_site.line: f for f in findings}
    f = by_line[line_of(USER, 'blk.block_hash = b"x"')]
    assert f.symbol == "gizmo.blocks.Block.block_hash" and f.severity.value == "breaking"
    assert "set_block_hash" in f.fix.description
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.mgr", "Manager(Coordinator()).mark(None, 0, 0)") == f.predicted_failure
    mine = by_line[line_of(USER, "self.block_hash = None")]
    assert raised_by(roots, "app.mgr", "MyBlock(0).reset()") == mine.predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mgr",
                     "(Manager(Coordinator()).mark(None, 0, 0), MyBlock(0).reset())") is None


def test_no_finding_when_the_setter_stays_or_was_never_there(tmp_path):
    assert_findings(findings_of(tmp_path / "same", _case(after=BLOCK_BEFORE)), [])
    # read-only in both releases: the consumer already lived with it (nothing new)
    assert_findings(findings_of(tmp_path / "old", _case(before=BLOCK_AFTER)), [])
    # a class deciding assignments itself
    own = BLOCK_AFTER.replace("class Block:\n", "class Block:\n        def __setattr__(self, k, v):\n"
                                                "            object.__setattr__(self, k, v)\n\n", 1)
    assert_findings(findings_of(tmp_path / "own", _case(after=own)), [])
