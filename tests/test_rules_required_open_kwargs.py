"""DRIFT011 through a `**d` drift cannot see into: the target now requires a parameter the
baseline's callable neither had nor could take through `**kwargs`, so no dict that worked on the
baseline holds it; only for a parameter annotated with a class of the target (an object no
configuration data carries; a plain value may come from data the user extends, and is silent). Silent where the consumer writes that key somewhere (a version branch filling
it), where the baseline's callable took `**kwargs`, where the dict is built from another object
(`**vars(obj)`, `**asdict(batch)`: it holds that object's fields on each side), and for a pydantic
model."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/__init__.py": "", "gizmo/serving.py": """
    class Chat:
        def __init__(self, engine, *, models, role="assistant", logger=None):
            self.engine = engine


    class Loose:
        def __init__(self, engine, **kwargs):
            self.engine = engine
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/serving.py": """
    class Render:
        pass


    class Chat:
        def __init__(self, engine, *, models, render: Render, role="assistant", logger=None):
            self.engine = engine


    class Loose:
        def __init__(self, engine, *, render: Render, **kwargs):
            self.engine = engine
    """}
CONSUMER = {"app/__init__.py": "", "app/server.py": """
    from gizmo.serving import Chat, Loose


    def build(engine, extra):
        return Chat(engine, models=[], **extra)


    def loose(engine, extra):
        return Loose(engine, **extra)


    def _defaults():
        return {"role": "user"}


    def helper_built(engine, old_api):
        kw = _defaults()
        legacy = {}
        if old_api:
            legacy["logger"] = None
        return Chat(engine, models=[], **legacy, **kw)


    def from_object(engine, other):
        return Chat(engine, models=[], **vars(other))
    """, "app/gated.py": """
    from gizmo.serving import Chat


    def build(engine, extra, new_api):
        kwargs = dict(extra)
        if new_api:
            kwargs["render"] = object()
        return Chat(engine, models=[], **kwargs)
    """}


def test_a_required_parameter_no_baseline_dict_could_hold(tmp_path):
    src = CONSUMER["app/server.py"]
    found = [f for f in findings_of(tmp_path, Case("open", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT011"]
    assert sorted((f.consumer_site.path, f.consumer_site.line) for f in found) == \
        [("app/server.py", line_of(src, "return Chat(engine, models=[], **extra)")),
         ("app/server.py", line_of(src, "return Chat(engine, models=[], **legacy, **kw)"))], [f.title for f in found]
    roots = [write_tree(tmp_path / "run_after", AFTER), write_tree(tmp_path / "run_app", CONSUMER)]
    assert raised_by(roots, "app.server", "build(None, {'logger': None})") == found[0].predicted_failure
    roots = [write_tree(tmp_path / "run_before", BEFORE), tmp_path / "run_app"]
    assert raised_by(roots, "app.server", "build(None, {'logger': None})") is None
