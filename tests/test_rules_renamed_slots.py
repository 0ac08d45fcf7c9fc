"""DRIFT144: a positional argument whose slot the target renamed and retyped.

vLLM 0.8.5 turned `init_app_state(engine_client, model_config, state, args)` into
`init_app_state(engine_client, vllm_config, state, args)`; vllm-detector-adapter kept passing its
`model_config: ModelConfig` by position, and the server failed inside vLLM on
`vllm_config.model_config`. Real rules over synthetic before/after trees of that shape.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, src

CONFIG = """
    class ModelConfig:
        model: str = ""


    class VllmConfig:
        def __init__(self, model_config: ModelConfig):
            self.model_config = model_config
    """
BEFORE = {"gizmo/config.py": CONFIG, "gizmo/server.py": """
    from gizmo.config import ModelConfig


    def init_app_state(engine, model_config: ModelConfig, state):
        state.model = model_config.model
    """}
AFTER = {"gizmo/config.py": CONFIG, "gizmo/server.py": """
    from gizmo.config import VllmConfig


    def init_app_state(engine, vllm_config: VllmConfig, state):
        state.model = vllm_config.model_config.model
    """}

CONSUMER = """
    from gizmo import server
    from gizmo.config import ModelConfig, VllmConfig


    def start(engine, model_config: ModelConfig, state):
        server.init_app_state(engine, model_config, state)


    def start_new(engine, vllm_config: VllmConfig, state):
        server.init_app_state(engine, vllm_config, state)
    """


def _case(consumer: str) -> Case:
    return Case("renamed-slot", BEFORE, AFTER, {"app/__init__.py": "", "app/api.py": consumer})


def test_an_object_of_the_old_class_in_a_renamed_and_retyped_slot_is_breaking(tmp_path):
    findings = [f for f in findings_of(tmp_path, _case(CONSUMER)) if f.rule_id == "DRIFT144"]
    (f,) = findings  # `start_new` passes what the slot now takes: silent
    assert f.severity.value == "breaking"
    assert f.consumer_site.line == line_of(src(CONSUMER), "server.init_app_state(engine, model_config")
    assert "`model_config: ModelConfig` to `vllm_config: VllmConfig`" in f.title
    assert f.symbol == "gizmo.server.init_app_state.vllm_config"


def test_a_slot_passed_by_keyword_or_through_star_args_is_not_this_rules(tmp_path):
    consumer = """
        from gizmo import server
        from gizmo.config import ModelConfig


        def start(engine, model_config: ModelConfig, state, rest):
            server.init_app_state(engine, *rest)
            server.init_app_state(engine, model_config=model_config, state=state)
        """
    assert not [f for f in findings_of(tmp_path, _case(consumer)) if f.rule_id == "DRIFT144"]


def test_a_slot_removed_before_it_is_a_shift_not_a_rename(tmp_path):
    """`init_app_state(engine, model_config, state)` -> `init_app_state(engine, state)`: every later
    argument moves one slot; the arity and shift rules report the call, not this one."""
    after = {"gizmo/config.py": CONFIG, "gizmo/server.py": """
        def init_app_state(engine, state):
            state.model = engine.model
        """}
    case = Case("removed-slot", BEFORE, after, {"app/__init__.py": "", "app/api.py": CONSUMER})
    assert not [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT144"]
