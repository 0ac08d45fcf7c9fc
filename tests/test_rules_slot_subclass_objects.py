"""DRIFT082 and an object of a subclass of the slot's class (a plugin's quantization config,
`class MyConfig(QuantizationConfig)`, built by its own classmethod `from_config` and returned
where vLLM's `QuantizationConfig.from_config` is declared `-> QuantizationConfig`).

The object has everything the slot's class has. A target holder that uses something beyond that
(a new model calling `self.quant_config.get_cache_scale(...)`, which `QuantizationConfig` itself no
longer defines) does so for other objects: it is not the slot's contract, and nothing is
reported. (A duck-typed stand-in lacking what the slot's class uses still is: tests/test_rules_slots.py.)
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of

BASE = """
    class QuantizationConfig:
        @classmethod
        def from_config(cls, config) -> "QuantizationConfig":
            return cls()

        def get_name(self):
            return "base"


    class Model:
        def __init__(self, quant_config: QuantizationConfig):
            self.quant_config = quant_config

        def load(self):
            return self.quant_config.get_name()
    """
BEFORE = {"gizmo/quant.py": BASE}
AFTER = {"gizmo/quant.py": BASE + """


    def get_quant_config(config) -> QuantizationConfig:
        return QuantizationConfig.from_config(config)


    class NewModel:
        def __init__(self, config):
            self.quant_config = get_quant_config(config)

        def load(self, name):
            return self.quant_config.get_cache_scale(name)
    """}
MINE = """
    from gizmo.quant import QuantizationConfig


    class MyConfig(QuantizationConfig):
        def __init__(self, bits=4):
            self.bits = bits

        @classmethod
        def from_config(cls, config):
            return cls(config.get("bits", 4))
    """


def test_a_subclass_object_is_not_held_to_what_a_holder_uses_beyond_the_slot_class(tmp_path):
    case = Case("subclass-object", BEFORE, AFTER, {"app/mine.py": MINE}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
