"""DRIFT110: attributes the consumer reads off an object it handed to a target function that
filled it (`init_state(engine, state=state)` then `state.embedding`). The target's function stores
them under other names, or only on some paths, or through another function it hands the object on
to; each prediction is held to what Python raises when the synthetic code runs."""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/__init__.py": "", "gizmo/serving.py": """
    class Models:
        pass


    class Embedding:
        def create_embedding(self, request):
            return {"data": request}


    class Transcription:
        pass


    def init_state(engine, state, args):
        state.engine = engine
        state.models = Models()
        state.embedding = Embedding()
        state.transcription = Transcription() if args.get("audio") else None
        init_scores(state)


    def init_scores(state):
        state.scores = {}
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/serving.py": """
    from gizmo.pooling import init_pooling


    class Models:
        pass


    class Transcription:
        pass


    def init_state(engine, state, args, tasks=("generate",)):
        state.engine = engine
        state.models = Models()
        if "transcription" in tasks:
            state.transcription = Transcription()
        init_pooling(state)
    """, "gizmo/pooling.py": """
    class Embedding:
        def __call__(self, request):
            return {"data": request}


    def init_pooling(state):
        state.serving_embedding = Embedding()
        state.serving_scores = {}
    """}
CONSUMER = {"app/__init__.py": "", "app/server.py": """
    from types import SimpleNamespace

    from gizmo.serving import init_state


    def start(engine):
        state = SimpleNamespace()
        init_state(engine, state=state, args={})
        state.extra = 1
        return (state.models, state.embedding, state.transcription, state.scores, state.extra,
                state.engine)


    def own_fill(engine):
        state = SimpleNamespace()
        state.embedding = None
        init_state(engine, state, {})
        return state.embedding


    class Server:
        def start(self, engine):
            state = SimpleNamespace()
            init_state(engine, state, {})
            self.embedding = state.embedding
            self.models = state.models

        def embed(self, request):
            return self.embedding.create_embedding(request)
    """}


def test_attributes_a_target_function_no_longer_stores_on_the_object_handed_to_it(tmp_path):
    src = CONSUMER["app/server.py"]
    found = [f for f in findings_of(tmp_path, Case("filled", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT110"]
    got = {(f.consumer_site.line, f.consumer_site.snippet, f.severity) for f in found}
    line = line_of(src, "return (state.models")
    assert got == {(line, "state.embedding", Severity.BREAKING),
                   (line, "state.transcription", Severity.RISKY),
                   (line, "state.scores", Severity.BREAKING),
                   (line_of(src, "self.embedding = state.embedding"), "state.embedding", Severity.BREAKING),
                   (line_of(src, "return self.embedding.create_embedding"), ".create_embedding(",
                    Severity.BREAKING)}, got
    call = next(f for f in found if f.consumer_site.snippet == ".create_embedding(")
    assert "`Embedding` is gone" in call.title
    embedding = next(f for f in found if f.consumer_site.snippet == "state.embedding")
    assert "`serving_embedding`" in embedding.details and "`serving_scores`" in embedding.details
    scores = next(f for f in found if f.consumer_site.snippet == "state.scores")
    assert "init_scores" in scores.title  # stored by the function the baseline handed the object to
    roots = [write_tree(tmp_path / "run_after", AFTER), write_tree(tmp_path / "run_app", CONSUMER)]
    assert raised_by(roots, "app.server", "start(object())") == embedding.predicted_failure.replace(
        "object has", "'types.SimpleNamespace' object has")
    roots = [write_tree(tmp_path / "run_before", BEFORE), tmp_path / "run_app"]
    assert raised_by(roots, "app.server", "start(object())") is None


def test_nothing_when_both_sides_fill_the_same_attributes(tmp_path):
    found = [f for f in findings_of(tmp_path, Case("same", BEFORE, BEFORE, CONSUMER)) if f.rule_id == "DRIFT110"]
    assert found == []


def test_an_object_handed_through_kwargs_and_read_with_getattr(tmp_path):
    """Ray's shape: `init_kwargs = dict(state=state, args=args)`, `init_state(engine, **init_kwargs)`,
    then `getattr(state, "embedding", None)`: the object is handed under `state`, and the read with
    a default never raises: the server is silently off (risky), reported at the name's own line."""
    consumer = {"app/__init__.py": "", "app/ray_like.py": """
        from types import SimpleNamespace

        from gizmo.serving import init_state


        def start(engine):
            state = SimpleNamespace()
            init_kwargs = dict(state=state, args={})
            init_state(engine, **init_kwargs)
            embedding = getattr(
                state, "embedding", None
            )
            models = getattr(state, "models", None)
            return embedding, models, state.scores
        """}
    src = consumer["app/ray_like.py"]
    found = [f for f in findings_of(tmp_path, Case("kw", BEFORE, AFTER, consumer)) if f.rule_id == "DRIFT110"]
    got = {(f.consumer_site.line, f.consumer_site.snippet, f.severity) for f in found}
    assert got == {(line_of(src, 'state, "embedding", None'), "state.embedding", Severity.RISKY),
                   (line_of(src, "return embedding, models, state.scores"), "state.scores", Severity.BREAKING)}, got
    soft = next(f for f in found if f.severity is Severity.RISKY)
    assert "silently off" in soft.title and soft.predicted_failure.startswith("no error")
    roots = [write_tree(tmp_path / "run_after", AFTER), write_tree(tmp_path / "run_app", consumer)]
    # the getattr reads come first and raise nothing; the plain read after them does
    assert raised_by(roots, "app.ray_like", "start(object())") == \
        "AttributeError: 'types.SimpleNamespace' object has no attribute 'scores'"


def test_a_shifted_slot_is_no_lost_attribute(tmp_path):
    """prime-rl's `init_app_state(engine_client, vllm_config, app.state, args)`: the target dropped
    `vllm_config`, so the state lands on `args` and the call no longer binds. That is the call's
    finding; `app.state.models`, which the target's function still stores on `state`, is none."""
    before = {"gizmo/__init__.py": "", "gizmo/api.py": """
    class Models:
        pass


    def init_app_state(engine_client, vllm_config, state, args):
        state.models = Models()
    """}
    after = {"gizmo/__init__.py": "", "gizmo/api.py": """
    class Models:
        pass


    def init_app_state(engine_client, state, args):
        state.models = Models()
    """}
    consumer = {"app/__init__.py": "", "app/server.py": """
    from gizmo.api import init_app_state


    async def serve(app, client, config, args):
        await init_app_state(client, config, app.state, args)
        return app.state.models
    """}
    found = findings_of(tmp_path, Case("filled-shift", before, after, consumer))
    assert [f for f in found if f.rule_id == "DRIFT110"] == []
    assert any(f.rule_id in ("DRIFT012", "DRIFT013") for f in found), [f.rule_id for f in found]
