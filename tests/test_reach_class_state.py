"""Class state as a type source: a consumer class that keeps a target object on itself as a class
attribute (annotated in the class body, or stored by a classmethod from a typed parameter) has
that object's attributes checked wherever `cls.x` or `self.x` reads them later.

Platform plugins do this: vLLM calls `check_and_update_config(cls, vllm_config)` once, the
platform keeps `cls._config = vllm_config`, and its other class and instance methods read
`cls._config.scheduler_config...` long after."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = {"gizmo/config.py": """
    from dataclasses import dataclass, field

    @dataclass
    class SchedulerConfig:
        max_model_len: int = 8192
        max_num_seqs: int = 128

    @dataclass
    class VllmConfig:
        scheduler_config: SchedulerConfig = field(default_factory=SchedulerConfig)
    """}
AFTER = {"gizmo/config.py": """
    from dataclasses import dataclass, field, InitVar

    @dataclass
    class SchedulerConfig:
        max_model_len: InitVar[int] = 8192
        max_num_seqs: int = 128

    @dataclass
    class VllmConfig:
        scheduler_config: SchedulerConfig = field(default_factory=SchedulerConfig)
    """}


def _found(tmp_path, consumer):
    return findings_of(tmp_path, Case("class-state", BEFORE, AFTER, {"app/platform.py": consumer}))


def test_a_class_attribute_annotated_in_the_class_body(tmp_path):
    consumer = """
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from gizmo.config import VllmConfig
        else:
            VllmConfig = None

        class Platform:
            _config: VllmConfig = None

            @classmethod
            def validate(cls, n):
                return n > cls._config.scheduler_config.max_model_len

            def budget(self, n):
                return self._config.scheduler_config.max_model_len - n

            def seqs(self):
                return self._config.scheduler_config.max_num_seqs
        """
    assert_findings(_found(tmp_path, consumer), [
        ("DRIFT063", line_of(consumer, "n > cls._config")),
        ("DRIFT063", line_of(consumer, "return self._config.scheduler_config.max_model_len")),
    ])


def test_a_class_attribute_a_classmethod_stores_from_a_typed_parameter(tmp_path):
    consumer = """
        from gizmo.config import VllmConfig

        class Platform:
            _config = None

            @classmethod
            def check_and_update_config(cls, vllm_config: VllmConfig):
                cls._config = vllm_config

            @classmethod
            def validate(cls, n):
                return n > cls._config.scheduler_config.max_model_len

        class Sub(Platform):
            def budget(self, n):
                return self._config.scheduler_config.max_model_len - n

        def remember(cfg: VllmConfig):
            Platform._last = cfg

        def last_len():
            return Platform._last.scheduler_config.max_model_len
        """
    assert_findings(_found(tmp_path, consumer), [
        ("DRIFT063", line_of(consumer, "n > cls._config")),
        ("DRIFT063", line_of(consumer, "return self._config.scheduler_config.max_model_len")),
        ("DRIFT063", line_of(consumer, "return Platform._last")),
    ])


def test_class_state_of_no_target_type_is_not_guessed(tmp_path):
    consumer = """
        from gizmo.config import VllmConfig

        class Settings:
            scheduler_config = None

        class Platform:
            _config: Settings = None
            _other = None

            @classmethod
            def setup(cls, raw, vllm_config: VllmConfig):
                cls._other = raw
                cls._config = Settings()

            @classmethod
            def validate(cls, n):
                return n > cls._other.scheduler_config.max_model_len + cls._config.scheduler_config.max_model_len
        """
    assert_findings(_found(tmp_path, consumer), [])
