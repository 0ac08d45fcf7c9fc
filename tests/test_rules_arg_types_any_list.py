"""DRIFT064 for a list of any elements (synthetic before/after pair): the baseline's constructor
took `paths: list[Path]` in its third slot, the target's takes `models: Registry` there and reads
Registry's members off it. The consumer still passes a list of the target's own `Path` objects
(a comprehension bound to a local) by position: the call binds, and the target fails when it
uses the list as a Registry. Silent where the consumer passes something drift cannot prove is a
list, and where the target still declares a list."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

BEFORE = """
    class Path:
        def __init__(self, name):
            self.name = name


    class Handler:
        def __init__(self, engine, config, paths: list[Path], *, logger=None):
            self.names = [p.name for p in paths]
    """
AFTER = """
    class Path:
        def __init__(self, name):
            self.name = name


    class Registry:
        def __init__(self, paths):
            self.paths = paths

        def is_base_model(self, name):
            return any(p.name == name for p in self.paths)


    class Handler:
        def __init__(self, engine, config, models: Registry, *, logger=None):
            self.known = models.is_base_model("m")
    """
MINE = """
    from gizmo.serving import Handler, Path


    def build(engine, config, names, given):
        paths = [Path(name) for name in names]
        first = Handler(engine, config, paths)
        second = Handler(engine, config, given)
        return first, second
    """


def test_a_list_for_a_slot_now_declared_one_class(tmp_path):
    case = Case("any-list", {"gizmo/__init__.py": "", "gizmo/serving.py": BEFORE},
                {"gizmo/__init__.py": "", "gizmo/serving.py": AFTER}, {"app/__init__.py": "", "app/mine.py": MINE})
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT064"]
    assert [f.consumer_site.line for f in found] == [line_of(MINE, "first = Handler(")], [f.title for f in found]
    assert "a Python list" in found[0].title and "Registry" in found[0].title
    after, before = [tmp_path / "after", tmp_path / "consumer"], [tmp_path / "before", tmp_path / "consumer"]
    assert raised_by(after, "app.mine", "build(None, None, ['m'], None)") == \
        "AttributeError: 'list' object has no attribute 'is_base_model'"
    assert raised_by(before, "app.mine", "build(None, None, ['m'], [])") is None
