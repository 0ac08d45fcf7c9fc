"""DRIFT150: where `VLLM_USE_V1` turned on by default, the V0 engine's factories hand back the V1
engine, whose class lacks members the V0 annotations promise (kani-ext-vllm on vLLM 0.10:
`engine.engine.get_model_config()`; nnsight on 0.9: `llm.llm_engine.scheduler_config`).
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by, write_tree

ENVS = """
    import os

    environment_variables = {
        "VLLM_USE_V1": lambda: bool(int(os.getenv("VLLM_USE_V1", "{default}"))),
    }


    def __getattr__(name):
        return environment_variables[name]()
    """
V0 = """
    from vllm import envs


    class EngineCore:
        def get_model_config(self):
            return "config"


    class AsyncLLMEngine:
        def __init__(self):
            self.engine = EngineCore()

        @classmethod
        def from_engine_args(cls, args) -> "AsyncLLMEngine":
            if envs.VLLM_USE_V1:
                from vllm.v1.engine.async_llm import AsyncLLM
                return AsyncLLM()
            return cls()

        def generate(self, prompt):
            return prompt
    """
V1 = """
    class AsyncLLM:
        async def get_model_config(self):
            return "config"

        def generate(self, prompt):
            return prompt
    """


def _tree(default: str) -> dict[str, str]:
    return {"vllm/__init__.py": "", "vllm/envs.py": ENVS.replace("{default}", default),
            "vllm/engine/async_llm_engine.py": V0, "vllm/v1/engine/async_llm.py": V1}


MINE = """
    from vllm.engine.async_llm_engine import AsyncLLMEngine


    def start(args):
        engine = AsyncLLMEngine.from_engine_args(args)
        config = engine.engine.get_model_config()
        return engine.generate(config)
    """


def test_a_v0_member_read_where_the_factory_now_hands_back_v1(tmp_path):
    case = Case("v1-default", _tree("0"), _tree("1"), {"app/mine.py": MINE},
                [("DRIFT150", line_of(MINE, "engine.engine.get_model_config()"))])
    findings = findings_of(tmp_path, case, lib="vllm")
    assert_findings(findings, case.expected)  # `generate` exists on both engines: silent
    assert "AsyncLLM" in only(findings, "DRIFT150").title
    after = write_tree(tmp_path / "after", _tree("1"))
    app = write_tree(tmp_path / "app", {"app/mine.py": MINE})
    assert raised_by([after, app], "app.mine", "start(None)", packages=("vllm", "app")) \
        == "AttributeError: 'AsyncLLM' object has no attribute 'engine'"


def test_silent_where_the_default_did_not_change(tmp_path):
    for name, before, after in (("both-on", "1", "1"), ("both-off", "0", "0")):
        case = Case(name, _tree(before), _tree(after), {"app/mine.py": MINE}, [])
        assert_findings(findings_of(tmp_path / name, case, lib="vllm"), case.expected)


def test_silent_where_the_consumer_picks_the_engine_or_tests_for_v0(tmp_path):
    chosen = MINE.replace("def start(args):", 'import os\n\n    os.environ["VLLM_USE_V1"] = "0"\n\n\n    def start(args):')
    assert 'os.environ["VLLM_USE_V1"] = "0"' in chosen
    case = Case("v1-chosen", _tree("0"), _tree("1"), {"app/mine.py": chosen}, [])
    assert_findings(findings_of(tmp_path / "chosen", case, lib="vllm"), case.expected)
    tested = MINE.replace("        config = engine.engine.get_model_config()",
                          "        if isinstance(engine, AsyncLLMEngine):\n"
                          "            config = engine.engine.get_model_config()\n"
                          "        else:\n"
                          "            config = None")
    assert "isinstance(engine, AsyncLLMEngine)" in tested
    case = Case("v1-tested", _tree("0"), _tree("1"), {"app/mine.py": tested}, [])
    assert_findings(findings_of(tmp_path / "tested", case, lib="vllm"), case.expected)
