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


SERVING_BEFORE = {"gizmo/serving.py": """
    from typing import List


    class OpenAIServing:
        def __init__(self, engine, model_config, served_model_names: List[str], lora_modules=None):
            self.served_model_names = served_model_names
    """}
SERVING_AFTER = {"gizmo/serving.py": """
    from dataclasses import dataclass
    from typing import List


    @dataclass
    class BaseModelPath:
        name: str
        model_path: str


    class OpenAIServing:
        def __init__(self, engine, model_config, base_model_paths: List[BaseModelPath], lora_modules=None):
            self.names = [p.name for p in base_model_paths]
    """}


def test_a_value_named_for_the_old_slot_is_held_to_the_new_slot_s_type(tmp_path):
    """vLLM 0.6.2: `OpenAIServing(engine, model_config, served_model_names, ...)` became
    `(..., base_model_paths: List[BaseModelPath], ...)`. The consumer passes a local named as the
    old parameter, a list of names drift cannot type: the name says what it was written for, and
    the slot now takes objects of a class the old one never named (ipex-llm, Ray)."""
    consumer = """
        from gizmo.serving import OpenAIServing


        def build(engine, model_config, args):
            served_model_names = args.names or [args.model]
            return OpenAIServing(engine, model_config, served_model_names)


        def build_new(engine, model_config, base_model_paths):
            return OpenAIServing(engine, model_config, base_model_paths)


        def build_other(engine, model_config, names):
            return OpenAIServing(engine, model_config, names)
        """
    case = Case("named-slot", SERVING_BEFORE, SERVING_AFTER, {"app/__init__.py": "", "app/api.py": consumer})
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT144"]
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [
        (line_of(src(consumer), "return OpenAIServing(engine, model_config, served_model_names)"), "breaking")]
    assert "written for `served_model_names: List[str]`" in found[0].title
    assert "renamed that parameter to `base_model_paths: List[BaseModelPath]`" in found[0].title
    assert found[0].symbol == "gizmo.serving.OpenAIServing.base_model_paths"


def test_a_renamed_slot_whose_annotation_names_the_same_classes_is_a_rename_only(tmp_path):
    after = {"gizmo/serving.py": SERVING_BEFORE["gizmo/serving.py"].replace(
        "served_model_names: List[str]", "model_names: List[str]").replace(
        "= served_model_names", "= model_names")}
    consumer = """
        from gizmo.serving import OpenAIServing


        def build(engine, model_config, served_model_names):
            return OpenAIServing(engine, model_config, served_model_names)
        """
    case = Case("renamed-only", SERVING_BEFORE, after, {"app/__init__.py": "", "app/api.py": consumer})
    assert not [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT144"]
