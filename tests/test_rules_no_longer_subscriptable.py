"""DRIFT061 where an indexed attribute became one object of a class without item access
(synthetic before/after pairs): `table.slots[:n]` and `table.slots[n:].fill(-1)` written for a
list-building `slots` raise TypeError once the target stores a `Buffer`, a class that defines no
`__getitem__`. A class that defines it (or the same class on both sides) is left alone."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

TABLE_BEFORE = """
    def make_slots(n):
        return [0] * n


    class Table:
        def __init__(self, n):
            self.slots = make_slots(n)
    """
TABLE_AFTER = """
    class Buffer:
        def __init__(self, n):
            self.cpu = [0] * n
            self.gpu = [0] * n


    class Table:
        def __init__(self, n):
            self.slots = Buffer(n)
    """
MINE = """
    from gizmo.table import Table


    class Row(list):
        def fill(self, v):
            self[:] = [v] * len(self)


    def head(table: Table, n):
        first = table.slots[:n]
        return first


    def clear(table: Table, n):
        Row(table.slots[n:]).fill(-1)
        table.slots[0] = 1
    """


def _case(after=TABLE_AFTER):
    return Case("subscript", {"gizmo/table.py": TABLE_BEFORE}, {"gizmo/table.py": after},
                {"app/__init__.py": "", "app/mine.py": MINE})


def test_indexing_what_became_one_object_is_a_break(tmp_path):
    findings = sorted((f for f in findings_of(tmp_path, _case()) if f.rule_id == "DRIFT061"),
                      key=lambda f: f.consumer_site.line)
    assert [f.consumer_site.line for f in findings] == [line_of(MINE, "first = table.slots[:n]"),
                                                        line_of(MINE, "Row(table.slots[n:])"),
                                                        line_of(MINE, "table.slots[0] = 1")]
    assert all(f.severity.value == "breaking" and f.symbol == "gizmo.table.Buffer" for f in findings)
    assert findings[0].predicted_failure == "TypeError: 'Buffer' object is not subscriptable"
    assert findings[2].predicted_failure == "TypeError: 'Buffer' object does not support item assignment"
    assert ".cpu" in findings[0].fix.description and ".gpu" in findings[0].fix.description
    after = [tmp_path / "after", tmp_path / "consumer"]
    table = "__import__('gizmo.table', fromlist=['x']).Table(4)"
    assert raised_by(after, "app.mine", f"head({table}, 2)") == findings[0].predicted_failure
    assert raised_by(after, "app.mine", f"clear({table}, 2)") == findings[0].predicted_failure
    before = [tmp_path / "before", tmp_path / "consumer"]
    assert raised_by(before, "app.mine", f"clear({table}, 2)") is None


def test_a_class_that_defines_item_access_is_left_alone(tmp_path):
    indexable = TABLE_AFTER.replace("            self.gpu = [0] * n\n",
                                    "            self.gpu = [0] * n\n\n        def __getitem__(self, i):\n"
                                    "            return self.cpu[i]\n\n        def __setitem__(self, i, v):\n"
                                    "            self.cpu[i] = v\n")
    assert indexable != TABLE_AFTER
    assert [f for f in findings_of(tmp_path, _case(indexable)) if f.rule_id == "DRIFT061"] == []


def test_the_same_class_on_both_sides_is_left_alone(tmp_path):
    same = Case("subscript-same", {"gizmo/table.py": TABLE_AFTER}, {"gizmo/table.py": TABLE_AFTER},
                {"app/__init__.py": "", "app/mine.py": MINE})
    assert [f for f in findings_of(tmp_path, same) if f.rule_id == "DRIFT061"] == []
