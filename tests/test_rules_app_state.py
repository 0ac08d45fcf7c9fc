"""DRIFT148: a route reads a serving object off the server app's state by a name the target's
`init_app_state` no longer stores (surogate's GRPO server on vLLM 0.25: `request.app.state.
openai_serving_tokenization`, which 0.25 stores as `state.serving_tokenization`).
"""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

SERVING = """
    class OpenAIServingModels:
        pass


    class OpenAIServingTokenization:
        pass
    """
API_SERVER = """
    from vllm.entrypoints.openai.serving import OpenAIServingModels, OpenAIServingTokenization


    def init_pooling_state(engine, state, args):
        state.{pooling} = OpenAIServingModels()


    async def init_app_state(engine, state, args):
        state.engine_client = engine
        state.openai_serving_models = OpenAIServingModels()
        state.{tokenization} = OpenAIServingTokenization()
        init_pooling_state(engine, state, args)
    """
BEFORE = {"vllm/entrypoints/openai/serving.py": SERVING, "vllm/entrypoints/openai/api_server.py":
          API_SERVER.format(pooling="openai_serving_pooling", tokenization="openai_serving_tokenization")}
AFTER = {"vllm/entrypoints/openai/serving.py": SERVING, "vllm/entrypoints/openai/api_server.py":
         API_SERVER.format(pooling="serving_pooling", tokenization="serving_tokenization")}
ROUTES = """
    from vllm.entrypoints.openai import api_server


    def client(request):
        return request.app.state.engine_client


    def tokenizer(request):
        return request.app.state.openai_serving_tokenization


    def pooling(request):
        return getattr(request.app.state, "openai_serving_pooling", None)


    def mine(request):
        request.app.state.my_cache = {}
        return request.app.state.my_cache
    """


def test_names_the_target_no_longer_stores_on_the_app_state(tmp_path):
    case = Case("app-state", BEFORE, AFTER, {"app/routes.py": ROUTES},
                [("DRIFT148", line_of(ROUTES, "request.app.state.openai_serving_tokenization")),
                 ("DRIFT148", line_of(ROUTES, '"openai_serving_pooling"'))])
    findings = findings_of(tmp_path, case, lib="vllm")
    assert_findings(findings, case.expected)
    gone = next(f for f in findings if "tokenization" in f.title)
    assert gone.severity is Severity.BREAKING and "`serving_tokenization`" in gone.title  # same kind, one name
    fallback = next(f for f in findings if "pooling" in f.title)
    assert fallback.severity is Severity.RISKY  # a getattr default: the route silently takes it
    # what Python does with the state the target's init_app_state fills
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", {"app/routes.py": ROUTES})
    probe = ("(lambda s: (__import__('asyncio').run(api_server.init_app_state(1, s, None)), "
             "tokenizer(type('R', (), {'app': type('A', (), {'state': s})})))[1])(type('State', (), {})())")
    assert raised_by([after, app], "app.routes", probe, packages=("vllm", "app")) \
        == "AttributeError: 'State' object has no attribute 'openai_serving_tokenization'"


def test_a_consumer_not_on_vllms_server_is_silent(tmp_path):
    routes = ROUTES.replace("from vllm.entrypoints.openai import api_server",
                            "from vllm.entrypoints.openai.serving import OpenAIServingModels")
    case = Case("app-state-other-app", BEFORE, AFTER, {"app/routes.py": routes}, [])
    assert_findings(findings_of(tmp_path, case, lib="vllm"), case.expected)


def test_unchanged_target_is_silent(tmp_path):
    case = Case("app-state-unchanged", BEFORE, BEFORE, {"app/routes.py": ROUTES}, [])
    assert_findings(findings_of(tmp_path, case, lib="vllm"), case.expected)
