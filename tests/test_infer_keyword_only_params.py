"""A keyword-only parameter is typed like any other (`def __init__(self, *, vllm_config: VllmConfig,
prefix="")`, the signature of every vLLM model class): the probe names it `fn:-1:name`, and the
solved model now answers that name. Before, what such a parameter held was unknown, so nothing read
through `vllm_config` in a plugin's model was checked."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = {"gizmo/config.py": """
    class ParallelConfig:
        def __init__(self):
            self.world = 1
            self.redundant = 0


    class VllmConfig:
        def __init__(self):
            self.parallel_config = ParallelConfig()
    """}
AFTER = {"gizmo/config.py": BEFORE["gizmo/config.py"].replace("            self.redundant = 0\n", "")}
CONSUMER = """
    from gizmo.config import VllmConfig


    class MyModel:
        def __init__(self, *, vllm_config: VllmConfig, prefix: str = ""):
            self.redundant = vllm_config.parallel_config.redundant
            self.world = vllm_config.parallel_config.world


    def build(n, *, config: VllmConfig):
        return config.parallel_config.redundant + n
    """


def test_reads_through_an_annotated_keyword_only_parameter_are_checked(tmp_path):
    found = findings_of(tmp_path, Case("kw", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": CONSUMER}))
    assert_findings(found, [("DRIFT060", line_of(CONSUMER, "vllm_config.parallel_config.redundant")),
                            ("DRIFT060", line_of(CONSUMER, "config.parallel_config.redundant + n"))])
