"""DRIFT140: a read, by reflection, of a target msgspec struct's field list (`__struct_fields__`)
or class option (`__struct_config__.array_like`) that the target changed; reads of a struct whose
shape stayed put, and a dataclass's field table (read to filter keys, tests/test_rules_keys.py),
are silent."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/events.py": """
        import msgspec


        class Event(msgspec.Struct):
            kind: str


        class Stored(Event):
            hashes: list
            size: int = 0


        class Same(msgspec.Struct):
            name: str
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/events.py": """
        import msgspec


        class Event(msgspec.Struct):
            kind: str


        class Stored(Event):
            hashes: list
            size: int = 0
            locality: str = "local"


        class Same(msgspec.Struct):
            name: str
        """,
}
APP = """
    from gizmo.events import Same, Stored


    def check_shape():
        fields = Stored.__struct_fields__
        assert fields == ("kind", "hashes", "size"), fields
        assert Same.__struct_fields__ == ("name",)
    """


def test_a_changed_field_list_read_by_reflection_is_reported(tmp_path):
    found = findings_of(tmp_path, Case("fields", BEFORE, AFTER, {"app/shape.py": APP}))
    assert_findings(found, [("DRIFT140", line_of(APP, "Stored.__struct_fields__"))])
    assert found[0].severity.value == "risky" and "added `locality`" in found[0].title
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.shape", "check_shape()") is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.shape", "check_shape()") == \
        "AssertionError: ('kind', 'hashes', 'size', 'locality')"


STRUCT_BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/wire.py": """
        import msgspec


        class Event(msgspec.Struct, array_like=True, tag=True):
            pass


        class Removed(Event):
            hashes: list
        """,
}
STRUCT_AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/wire.py": """
        import msgspec


        class Event(msgspec.Struct, tag=True):
            pass


        class Removed(Event):
            hashes: list
        """,
}
WIRE = """
    from gizmo.wire import Removed


    def check_wire():
        config = getattr(Removed, "__struct_config__", None)
        assert config.array_like is True, "no longer array_like"
    """


def test_a_msgspec_option_the_target_dropped_is_reported(tmp_path):
    found = findings_of(tmp_path, Case("wire", STRUCT_BEFORE, STRUCT_AFTER, {"app/wire.py": WIRE}))
    assert_findings(found, [("DRIFT140", line_of(WIRE, "config.array_like"))])
    assert "`array_like` changed (True -> unset)" in found[0].title
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.wire", "check_wire()") is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.wire", "check_wire()") == \
        "AssertionError: no longer array_like"
