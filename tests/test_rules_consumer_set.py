"""A gone field the consumer sets itself on the target's object is risky; one it never sets stays breaking.

The target drops two fields of `AttentionConfig`. The consumer's platform hook writes one of them
onto the config's `AttentionConfig` (`if attention_config := config.attention_config:
attention_config.use_fast_prefill = False`), as a platform plugin does at start-up, and reads both
later. The written one is found on the object (a dataclass without slots takes the attribute):
no AttributeError where the hook ran first, so risky with the store as the reason. The other read
fails: still breaking. A store of the same name on an object of another class changes nothing.
"""

from __future__ import annotations

from drift.findings import Finding, Severity
from tests.rule_cases import findings_of, Case, line_of, raised_by

CONFIG_BEFORE = """
    from dataclasses import dataclass, field

    @dataclass
    class AttentionConfig:
        backend: str = "x"
        use_fast_prefill: bool = True
        use_slow_prefill: bool = False

    @dataclass
    class Config:
        attention_config: AttentionConfig = field(default_factory=AttentionConfig)

    _CONFIG = Config()

    def get_current_config() -> Config:
        return _CONFIG
    """
CONFIG_AFTER = """
    from dataclasses import dataclass, field

    @dataclass
    class AttentionConfig:
        backend: str = "x"

    @dataclass
    class Config:
        attention_config: AttentionConfig = field(default_factory=AttentionConfig)

    _CONFIG = Config()

    def get_current_config() -> Config:
        return _CONFIG
    """
PLATFORM = """
    from gizmo.config import Config

    class Platform:
        @classmethod
        def check_and_update_config(cls, config: Config) -> None:
            pass
    """
MY_PLATFORM = """
    from gizmo.config import Config
    from gizmo.platform import Platform

    class MyPlatform(Platform):
        @classmethod
        def check_and_update_config(cls, config: Config) -> None:
            if attention_config := config.attention_config:
                attention_config.use_fast_prefill = False
    """
ON_THE_WRONG_OBJECT = """
    from gizmo.config import Config
    from gizmo.platform import Platform

    class MyPlatform(Platform):
        @classmethod
        def check_and_update_config(cls, config: Config) -> None:
            config.use_fast_prefill = False
    """
ATTN = """
    from gizmo.config import get_current_config

    def use_fast_prefill() -> bool:
        config = get_current_config()
        return config.attention_config.use_fast_prefill

    def use_slow_prefill() -> bool:
        config = get_current_config()
        return config.attention_config.use_slow_prefill
    """
FAST = line_of(ATTN, ".use_fast_prefill")
SLOW = line_of(ATTN, ".use_slow_prefill")


def _case(platform: str) -> Case:
    return Case("consumer-set", {"gizmo/config.py": CONFIG_BEFORE, "gizmo/platform.py": PLATFORM},
                {"gizmo/config.py": CONFIG_AFTER, "gizmo/platform.py": PLATFORM},
                {"app/platform.py": platform, "app/attn.py": ATTN})


def _reads(findings: tuple[Finding, ...]) -> dict[int, Finding]:
    return {f.consumer_site.line: f for f in findings if f.rule_id == "DRIFT060" and f.consumer_site.path == "app/attn.py"}


def test_a_gone_field_the_consumer_sets_on_that_object_is_risky_and_one_it_never_sets_stays_breaking(tmp_path):
    reads = _reads(findings_of(tmp_path, _case(MY_PLATFORM)))
    assert sorted(reads) == [FAST, SLOW]
    assert reads[FAST].severity is Severity.RISKY
    assert ("the consumer sets `use_fast_prefill` on the `AttentionConfig` itself (app/platform.py:"
            f"{line_of(MY_PLATFORM, 'attention_config.use_fast_prefill')})") in reads[FAST].title
    assert reads[SLOW].severity is Severity.BREAKING
    # what really runs on the target: the hook first, then the reads
    roots = [tmp_path / "after", tmp_path / "consumer"]
    hook = "__import__('app.platform').platform.MyPlatform.check_and_update_config(get_current_config())"
    assert raised_by(roots, "app.attn", f"({hook}, use_fast_prefill())") is None
    assert raised_by(roots, "app.attn", f"({hook}, use_slow_prefill())") == \
        "AttributeError: 'AttentionConfig' object has no attribute 'use_slow_prefill'"


def test_the_same_name_set_on_an_object_of_another_class_leaves_the_read_breaking(tmp_path):
    reads = _reads(findings_of(tmp_path, _case(ON_THE_WRONG_OBJECT)))
    assert sorted(reads) == [FAST, SLOW]
    assert reads[FAST].severity is Severity.BREAKING
    assert reads[SLOW].severity is Severity.BREAKING
    roots = [tmp_path / "after", tmp_path / "consumer"]
    hook = "__import__('app.platform').platform.MyPlatform.check_and_update_config(get_current_config())"
    assert raised_by(roots, "app.attn", f"({hook}, use_fast_prefill())") == \
        "AttributeError: 'AttentionConfig' object has no attribute 'use_fast_prefill'"


TYPING_ONLY = """
    from typing import TYPE_CHECKING

    from gizmo.platform import Platform

    if TYPE_CHECKING:
        from gizmo.config import Config
    else:
        Config = None

    class MyPlatform(Platform):
        @classmethod
        def check_and_update_config(cls, config: "Config") -> None:
            if attention_config := config.attention_config:
                attention_config.use_fast_prefill = False
    """


def test_a_parameter_annotated_with_a_name_imported_only_for_type_checking_is_typed(tmp_path):
    """`if TYPE_CHECKING: from gizmo.config import Config` / `else: Config = None`: the stand-in
    keeps the name defined at run time; the annotation `"Config"` still means the import, so the
    store is on the target's `AttentionConfig` and the read it answers is risky."""
    reads = _reads(findings_of(tmp_path, _case(TYPING_ONLY)))
    assert reads[FAST].severity is Severity.RISKY
    assert reads[SLOW].severity is Severity.BREAKING
    roots = [tmp_path / "after", tmp_path / "consumer"]
    hook = "__import__('app.platform').platform.MyPlatform.check_and_update_config(get_current_config())"
    assert raised_by(roots, "app.attn", f"({hook}, use_fast_prefill())") is None


RESET_AFTER_READ = """
    from gizmo.config import get_current_config

    def use_fast_prefill() -> bool:
        config = get_current_config()
        if config.attention_config.use_fast_prefill:
            config.attention_config.use_fast_prefill = False
        return True
    """


def test_a_store_that_follows_the_read_answers_nothing(tmp_path):
    """`if cfg.flag: cfg.flag = False`: the store runs only once the read has succeeded, so on the
    target the read raises first: still breaking."""
    case = Case("reset-after-read", _case(MY_PLATFORM).before, _case(MY_PLATFORM).after,
                {"app/attn.py": RESET_AFTER_READ})
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT060"
             and f.consumer_site.line == line_of(RESET_AFTER_READ, "if config.attention_config")]
    assert len(found) == 1 and found[0].severity is Severity.BREAKING
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.attn", "use_fast_prefill()") == \
        "AttributeError: 'AttentionConfig' object has no attribute 'use_fast_prefill'"


GUARDED_STORE = """
    from gizmo.config import get_current_config

    def reset() -> None:
        config = get_current_config()
        if config.attention_config.use_fast_prefill:
            config.attention_config.use_fast_prefill = False
    """


def test_a_store_guarded_by_its_own_read_answers_no_read_elsewhere(tmp_path):
    """`if cfg.flag: cfg.flag = False` in one module, `cfg.flag` read in another: on the target the
    guard's read raises before the store runs, so the store never provides the attribute to the
    other read either. Both reads stay breaking."""
    case = Case("guarded-store", _case(MY_PLATFORM).before, _case(MY_PLATFORM).after,
                {"app/reset.py": GUARDED_STORE, "app/attn.py": ATTN})
    found = findings_of(tmp_path, case)
    reads = _reads(found)
    assert reads[FAST].severity is Severity.BREAKING
    guard = [f for f in found if f.rule_id == "DRIFT060" and f.consumer_site.path == "app/reset.py"]
    assert [(f.consumer_site.line, f.severity) for f in guard] == \
        [(line_of(GUARDED_STORE, "if config.attention_config"), Severity.BREAKING)]
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.attn", "(__import__('app.reset').reset.reset(), use_fast_prefill())") == \
        "AttributeError: 'AttentionConfig' object has no attribute 'use_fast_prefill'"


SAME_MODULE = """
    from gizmo.config import get_current_config

    def use_fast_prefill() -> bool:
        return get_current_config().attention_config.use_fast_prefill

    def use_slow_prefill() -> bool:
        config = get_current_config().attention_config
        if config.use_slow_prefill:
            config.use_slow_prefill = False
        return True

    def setup() -> None:
        get_current_config().attention_config.use_fast_prefill = False
    """


def test_a_store_in_another_function_below_the_read_answers_it_and_a_follow_up_store_does_not(tmp_path):
    """`setup()` below `use_fast_prefill()` in the file may run first (module order is no run
    order): the read is risky. `if config.use_slow_prefill: config.use_slow_prefill = False` stores
    only once its own read has succeeded: that read stays breaking."""
    case = Case("consumer-set-order", {"gizmo/config.py": CONFIG_BEFORE, "gizmo/platform.py": PLATFORM},
                {"gizmo/config.py": CONFIG_AFTER, "gizmo/platform.py": PLATFORM}, {"app/attn.py": SAME_MODULE})
    reads = _reads(findings_of(tmp_path, case))
    fast, slow = line_of(SAME_MODULE, ".use_fast_prefill"), line_of(SAME_MODULE, "if config.use_slow_prefill")
    assert sorted(reads) == [fast, slow]
    assert reads[fast].severity is Severity.RISKY
    assert f"(app/attn.py:{line_of(SAME_MODULE, 'use_fast_prefill = False')})" in reads[fast].title
    assert reads[slow].severity is Severity.BREAKING


AUGMENTED = """
    from gizmo.config import get_current_config

    def use_slow_prefill() -> bool:
        return get_current_config().attention_config.use_slow_prefill

    def setup() -> None:
        get_current_config().attention_config.use_slow_prefill |= True
    """


def test_an_augmented_store_provides_nothing_it_reads_first(tmp_path):
    """`cfg.use_slow_prefill |= True` reads the field before it stores it: on a target without the
    field it raises itself, so the read elsewhere stays breaking."""
    case = Case("consumer-set-aug", {"gizmo/config.py": CONFIG_BEFORE, "gizmo/platform.py": PLATFORM},
                {"gizmo/config.py": CONFIG_AFTER, "gizmo/platform.py": PLATFORM}, {"app/attn.py": AUGMENTED})
    reads = _reads(findings_of(tmp_path, case))
    assert reads[line_of(AUGMENTED, "return get_current_config")].severity is Severity.BREAKING
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.attn", "setup()") == \
        "AttributeError: 'AttentionConfig' object has no attribute 'use_slow_prefill'"
