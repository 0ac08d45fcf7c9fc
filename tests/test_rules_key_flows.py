"""Keys a dict gathers on its way to `**kwargs`: `d.update({...})`, `d.update(dict(k=v))`,
`d = defaults | overrides` add keys where they are written, and a class the consumer makes inside
a function that writes no `__init__` of its own (`class Chat(Mixin, Server): pass`) is built by the
target base's constructor, so a key that constructor no longer takes is DRIFT017 at the key."""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/serving.py": """
    class Server:
        def __init__(self, engine, *, role="assistant", renderer=None, template=None):
            self.engine = engine
    """}
AFTER = {"gizmo/serving.py": """
    class Server:
        def __init__(self, engine, *, role="assistant", online_renderer=None, template=None):
            self.engine = engine
    """}
CONSUMER = {"app/serve.py": """
    from gizmo.serving import Server


    class Mixin:
        def extra(self):
            return 1


    def build(engine, overrides):
        class Chat(Mixin, Server):
            pass

        defaults = dict(role="assistant", template=None)
        kwargs = defaults | overrides
        kwargs.update(dict(engine=engine, renderer=object()))
        return Chat(**kwargs)


    def build_literal(engine):
        kwargs = {"role": "assistant"}
        kwargs.update({"renderer": None})
        return Server(engine, **kwargs)


    def build_own_init(engine):
        class Wrapped(Server):
            def __init__(self, **kw):
                super().__init__(engine)

        kwargs = {}
        kwargs.update(renderer=None)
        return Wrapped(**kwargs)
    """}


def test_keys_added_by_update_and_union_reach_the_target_base_constructor(tmp_path):
    src = CONSUMER["app/serve.py"]
    found = [f for f in findings_of(tmp_path, Case("keys", BEFORE, AFTER, CONSUMER))
             if f.rule_id in ("DRIFT017", "DRIFT010")]
    got = {(f.rule_id, f.consumer_site.line) for f in found}
    assert got == {("DRIFT017", line_of(src, "kwargs.update(dict(engine=engine, renderer=object()))")),
                   ("DRIFT017", line_of(src, 'kwargs.update({"renderer": None})'))}, \
        [(f.rule_id, f.consumer_site.line, f.title) for f in found]
    assert all(f.severity == Severity.BREAKING for f in found)


def test_python_raises_where_drift_says(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    for fn in ("build(None, {})", "build_literal(None)", "build_own_init(None)"):
        assert raised_by([before, app], "app.serve", fn) is None
    assert raised_by([after, app], "app.serve", "build(None, {})") == \
        "TypeError: Server.__init__() got an unexpected keyword argument 'renderer'"
    assert raised_by([after, app], "app.serve", "build_literal(None)") == \
        "TypeError: Server.__init__() got an unexpected keyword argument 'renderer'"
    assert raised_by([after, app], "app.serve", "build_own_init(None)") is None


REQ_BEFORE = {"gizmo/chat.py": """
    class Chat:
        def __init__(self, engine, *, role="assistant", tools=None):
            self.engine = engine
    """}
REQ_AFTER = {"gizmo/chat.py": """
    class Chat:
        def __init__(self, engine, *, render, role="assistant", tools=None):
            self.engine = engine
    """}
REQ_CONSUMER = {
    "app/opts.py": """
        import gizmo


        def chat_options(cfg):
            opts = {}
            if cfg.get("tools"):
                opts["tools"] = cfg["tools"]
            return opts


        def open_options(cfg):
            opts = {}
            for k, v in cfg.items():
                opts[k] = v
            return opts
        """,
    "app/start.py": """
        from gizmo.chat import Chat

        from app.opts import chat_options, open_options


        def start(engine, cfg, new_api):
            legacy = {}
            if not new_api:
                legacy["role"] = "user"
            opts = chat_options(cfg)
            opts.pop("unused", None)
            return Chat(engine, **legacy, **opts)


        def start_open(engine, cfg):
            return Chat(engine, **open_options(cfg))


        def start_open_local(engine, cfg):
            opts = chat_options(cfg)
            opts.update(cfg)
            return Chat(engine, **opts)
        """,
}


def test_a_required_parameter_is_missing_where_every_key_is_known(tmp_path):
    """`legacy` and the helper's `opts` only ever hold keys written as literals, so the call's
    keywords are all known and `render` is missing; a dict filled from data, or one data is merged
    into, may hold it and is silent. (Only modules that name the target are read: the helper's does.)"""
    src = REQ_CONSUMER["app/start.py"]
    found = [f for f in findings_of(tmp_path, Case("closed", REQ_BEFORE, REQ_AFTER, REQ_CONSUMER)) if f.rule_id == "DRIFT011"]
    assert [(f.consumer_site.path, f.consumer_site.line) for f in found] == \
        [("app/start.py", line_of(src, "return Chat(engine, **legacy, **opts)"))], [(f.consumer_site, f.title) for f in found]
    assert found[0].predicted_failure == "TypeError: Chat.__init__() missing 1 required keyword-only argument: 'render'"
    before = write_tree(tmp_path / "b", REQ_BEFORE)
    after = write_tree(tmp_path / "a", REQ_AFTER)
    app = write_tree(tmp_path / "c", REQ_CONSUMER)
    assert raised_by([before, app], "app.start", "start(None, {'tools': 1}, False)") is None
    assert raised_by([after, app], "app.start", "start(None, {'tools': 1}, False)") == found[0].predicted_failure
    assert raised_by([after, app], "app.start", "start_open(None, {'render': 1})") is None
