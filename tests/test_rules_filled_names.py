"""DRIFT147: a name the consumer reads off its own object after vLLM's function filled it.

Ray builds a `State`, hands it to vLLM's `init_app_state(engine_client, state, args)` and reads
`getattr(state, "openai_serving_tokenization", None)`; vLLM 0.25 stores `serving_tokenization`
instead (through a helper it hands `state` to). Synthetic trees of that shape, run for real.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, src

SERVER_BEFORE = """
    class OpenAIServingTokenization:
        pass


    class OpenAIServingChat:
        pass


    def init_app_state(engine_client, state, args):
        state.openai_serving_chat = OpenAIServingChat()
        state.openai_serving_tokenization = OpenAIServingTokenization()
    """
SERVER_AFTER = """
    class OpenAIServingTokenization:
        pass


    class OpenAIServingChat:
        pass


    def init_serving_state(state):
        state.serving_tokenization = OpenAIServingTokenization()


    def init_app_state(engine_client, state, args):
        state.openai_serving_chat = OpenAIServingChat()
        init_serving_state(state)
    """
CONSUMER = """
    from gizmo.server import init_app_state


    class State:
        pass


    def build(engine_client, args):
        state = State()
        init_app_state(engine_client, state, args)
        chat = state.openai_serving_chat
        tokenization = getattr(state, "openai_serving_tokenization", None)
        return chat, tokenization


    def build_strict(engine_client, args):
        state = State()
        init_app_state(engine_client, state, args)
        return state.openai_serving_tokenization


    def build_own(engine_client, args):
        state = State()
        init_app_state(engine_client, state, args)
        state.openai_serving_tokenization = None
        return state.openai_serving_tokenization
    """


def _case():
    return Case("filled", {"gizmo/server.py": SERVER_BEFORE}, {"gizmo/server.py": SERVER_AFTER},
                {"app/__init__.py": "", "app/serve.py": CONSUMER})


def test_a_name_the_target_no_longer_stores_on_the_handed_object(tmp_path):
    found = sorted((f for f in findings_of(tmp_path, _case()) if f.rule_id == "DRIFT147"), key=lambda f: f.consumer_site.line)
    got = [(f.consumer_site.line, f.severity.value) for f in found]
    assert got == [(line_of(src(CONSUMER), 'getattr(state, "openai_serving_tokenization"'), "risky"),
                   (line_of(src(CONSUMER), "return state.openai_serving_tokenization", 1), "breaking")]
    assert all("it stores `serving_tokenization` (a `OpenAIServingTokenization`)" in f.title for f in found)
    assert found[1].fix.description == "read `serving_tokenization` instead of `openai_serving_tokenization`"
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.serve", "build_strict(None, None)") == \
        "AttributeError: 'State' object has no attribute 'openai_serving_tokenization'"
    assert raised_by(roots, "app.serve", "None if build(None, None)[1] is None else 1 / 0") is None  # silently off
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.serve", "build_strict(None, None)") is None
