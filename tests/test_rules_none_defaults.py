"""DRIFT143: a field the consumer reads whose default changed from a value to None (vLLM 0.10.2
deprecated `ParallelConfig.num_redundant_experts: int = 0` into `Optional[int] = None`, moving the
setting to `eplb_config`): unless someone sets it, the read now gives None where the baseline gave a
number (vllm-ascend 0.10.1rc1 adds it to the expert count). A field the target's own class fills in
after construction (`__post_init__` stores it), one whose default stayed, or one read only to test
it for None, is not this rule's."""

from __future__ import annotations

from drift.analysis.rules.none_defaults import default_value
from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/config.py": """
    from dataclasses import dataclass


    @dataclass
    class ParallelConfig:
        num_redundant_experts: int = 0
        chunked: bool = False
        world: int = 1


    @dataclass
    class VllmConfig:
        parallel_config: ParallelConfig
    """}
AFTER = {"gizmo/config.py": BEFORE["gizmo/config.py"]
         .replace("num_redundant_experts: int = 0", "num_redundant_experts: int | None = None")
         .replace("chunked: bool = False", "chunked: bool | None = None\n\n        def __post_init__(self):\n"
                  "            if self.chunked is None:\n                self.chunked = True")}
CONSUMER = """
    from gizmo.config import VllmConfig


    def experts(vllm_config: VllmConfig, n):
        parallel = vllm_config.parallel_config
        return n + parallel.num_redundant_experts


    def chunked(vllm_config: VllmConfig):
        return vllm_config.parallel_config.chunked and vllm_config.parallel_config.world
    """


def test_a_field_read_whose_default_became_none(tmp_path):
    found = findings_of(tmp_path, Case("none", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": CONSUMER}))
    assert_findings(found, [("DRIFT143", line_of(CONSUMER, "parallel.num_redundant_experts"))])
    f = found[0]
    assert f.severity.value == "risky" and "`ParallelConfig.num_redundant_experts`" in f.title
    run = "__import__('app.m').m.experts(__import__('gizmo.config').config.VllmConfig(__import__('gizmo.config').config.ParallelConfig()), 8)"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.m", run) == \
        "TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.m", run) is None


def test_a_read_that_tests_for_none_is_not_this_rules(tmp_path):
    tested = CONSUMER.replace("return n + parallel.num_redundant_experts",
                              "return n + (parallel.num_redundant_experts or 0)")
    assert "or 0" in tested
    found = findings_of(tmp_path, Case("tested", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": tested}))
    assert [f for f in found if f.rule_id == "DRIFT143"] == []


def test_a_field_whose_default_was_none_written_through_field_is_not_this_rules(tmp_path):
    """vLLM 0.16's `VllmConfig.model_config: ModelConfig = Field(default=None)`, later `= None`: None
    both times, only written differently."""
    before = {"gizmo/config.py": BEFORE["gizmo/config.py"]
              .replace("num_redundant_experts: int = 0", "num_redundant_experts: int = field(default=None)")
              .replace("from dataclasses import dataclass", "from dataclasses import dataclass, field")}
    found = findings_of(tmp_path, Case("field", before, AFTER, {"app/__init__.py": "", "app/m.py": CONSUMER}))
    assert [f for f in found if f.rule_id == "DRIFT143"] == []
    assert default_value("Field(default_factory=list)") == "<factory>"
    assert default_value("field(default=0, repr=False)") == "0" and default_value("Field(8, ge=1)") == "8"
