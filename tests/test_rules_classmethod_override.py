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


SETS_UNDER_ITS_OWN_TEST = """
    from gizmo.config import Platform


    class MyPlatform(Platform):
        @classmethod
        def check_and_update_config(cls, vllm_config: "VllmConfig") -> None:
            if (vllm_config.compilation_config.mode == 0
                    and vllm_config.compilation_config.use_cudagraph):
                vllm_config.compilation_config.use_cudagraph = False
    """
SETS_FIRST = SETS_UNDER_ITS_OWN_TEST.replace(
    "            if (vllm_config.compilation_config.mode == 0\n",
    "            vllm_config.compilation_config.use_cudagraph = True\n"
    "            if (vllm_config.compilation_config.mode == 0\n")


def test_a_store_that_runs_only_after_its_own_test_read_does_not_provide_the_name(tmp_path):
    """The consumer sets the dropped field too, but only inside the `if` whose test reads it: the
    read fails before the store can run, so it is still reported, breaking; a store before the read
    makes it risky, with the store as the reason (drift/analysis/consumer_set.py), never dropped."""
    case = Case("set-under-test", {"gizmo/config.py": CONFIG_BEFORE}, {"gizmo/config.py": CONFIG_AFTER},
                {"app/platform.py": SETS_UNDER_ITS_OWN_TEST})
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT060"]
    assert [f.consumer_site.line for f in found] == [line_of(SETS_UNDER_ITS_OWN_TEST, "and vllm_config")]
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    run = "__import__('gizmo.config').config.configure(MyPlatform, __import__('gizmo.config').config.VllmConfig())"
    assert raised_by(roots("before"), "app.platform", run) is None
    assert raised_by(roots("after"), "app.platform", run) == found[0].predicted_failure
    first = Case("set-first", case.before, case.after, {"app/platform.py": SETS_FIRST})
    after_store = [f for f in findings_of(tmp_path / "first", first) if f.rule_id == "DRIFT060"]
    assert [(f.consumer_site.line, f.severity.value) for f in after_store] == [
        (line_of(SETS_FIRST, "and vllm_config"), "risky")]
    assert f"(app/platform.py:{line_of(SETS_FIRST, 'use_cudagraph = True')})" in after_store[0].title
