"""A class method that overrides a target class method (a platform's `check_and_update_config(cls,
vllm_config: "VllmConfig")`, the annotation a string the module never imports) takes its parameter's
type from the target's declaration, as an instance method's override does: a field the target's
config class dropped is DRIFT060 where the override reads it."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

CONFIG_BEFORE = """
    from dataclasses import dataclass, field


    @dataclass
    class CompilationConfig:
        use_cudagraph: bool = True
        mode: int = 0


    @dataclass
    class VllmConfig:
        compilation_config: CompilationConfig = field(default_factory=CompilationConfig)


    class Platform:
        @classmethod
        def check_and_update_config(cls, vllm_config: VllmConfig) -> None:
            pass


    def configure(platform, config: VllmConfig):
        platform.check_and_update_config(config)
    """
CONFIG_AFTER = CONFIG_BEFORE.replace("        use_cudagraph: bool = True\n", "")
MINE = """
    from gizmo.config import Platform


    class MyPlatform(Platform):
        @classmethod
        def check_and_update_config(cls, vllm_config: "VllmConfig") -> None:
            if vllm_config.compilation_config.use_cudagraph:
                vllm_config.compilation_config.mode = 1
    """


def test_a_class_method_override_reads_a_field_the_target_dropped(tmp_path):
    found = findings_of(tmp_path, Case("classmethod-override", {"gizmo/config.py": CONFIG_BEFORE},
                                       {"gizmo/config.py": CONFIG_AFTER}, {"app/platform.py": MINE}))
    assert_findings(found, [("DRIFT060", line_of(MINE, ".use_cudagraph"))])
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    run = "__import__('gizmo.config').config.configure(MyPlatform, __import__('gizmo.config').config.VllmConfig())"
    assert raised_by(roots("before"), "app.platform", run) is None
    assert raised_by(roots("after"), "app.platform", run) == \
        "AttributeError: 'CompilationConfig' object has no attribute 'use_cudagraph'"
    assert found[0].predicted_failure == "AttributeError: 'CompilationConfig' object has no attribute 'use_cudagraph'"
