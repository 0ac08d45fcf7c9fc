"""DRIFT070 where the consumer calls its override itself, in a shape written for the override and
not for the target's declaration (MoLink's loaders): the mismatch with the target's new call is
risky, not breaking. An override the consumer never calls itself stays breaking."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, src

BEFORE = {"gizmo/loader.py": """
    class BaseModelLoader:
        def load_model(self, vllm_config):
            raise NotImplementedError


    def get_model(loader, vllm_config):
        return loader.load_model(vllm_config=vllm_config)
    """}
AFTER = {"gizmo/loader.py": """
    class BaseModelLoader:
        def load_model(self, vllm_config, model_config):
            raise NotImplementedError


    def get_model(loader, vllm_config):
        return loader.load_model(vllm_config=vllm_config, model_config=vllm_config)
    """}
MINE = """
    from gizmo.loader import BaseModelLoader


    class OwnLoader(BaseModelLoader):
        def load_model(self, vllm_config):
            return vllm_config


    def get_own_model(vllm_config) -> object:
        loader: BaseModelLoader = OwnLoader()
        return loader.load_model(vllm_config=vllm_config)
    """
OTHER = """
    from gizmo.loader import BaseModelLoader


    class HandedLoader(BaseModelLoader):
        def load_model(self, vllm_config):
            return vllm_config
    """


def _findings(tmp_path, consumer):
    case = Case("own-callers", BEFORE, AFTER, {"app/__init__.py": "", **consumer})
    return [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT070"]


def test_an_override_the_consumer_calls_in_its_own_shape_is_risky(tmp_path):
    (f,) = _findings(tmp_path, {"app/mine.py": MINE})
    assert f.consumer_site.line == line_of(src(MINE), "def load_model")
    assert f.severity.value == "risky"
    assert "the consumer's own call at app/mine.py:" in f.title


def test_an_override_only_the_target_calls_stays_breaking(tmp_path):
    (f,) = _findings(tmp_path, {"app/other.py": OTHER})
    assert f.severity.value == "breaking"
