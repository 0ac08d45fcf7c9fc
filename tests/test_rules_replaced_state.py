"""A consumer function patched over a target method whose target version now sets state the
replacement never sets (DRIFT096), on synthetic before/after trees; the synthetic code is run to
show the replacement leaves the attribute at its placeholder on the target."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

CONFIG_BEFORE = """
    from dataclasses import dataclass


    @dataclass
    class MoeConfig:
        size: int
        size_per_part: int
        lora: bool = True

        def __post_init__(self):
            assert self.size > 0
    """
CONFIG_AFTER = """
    from dataclasses import dataclass


    @dataclass
    class MoeConfig:
        size: int
        parts: int = 1
        size_per_part: int = -1
        lora: bool = True

        def __post_init__(self):
            assert self.size > 0
            self.size_per_part = self.size // self.parts
    """
PATCH = """
    from gizmo.config import MoeConfig


    def no_lora_post_init(self):
        assert self.size > 0
        self.lora = False


    def install():
        MoeConfig.__post_init__ = no_lora_post_init
    """
WRAPPER = """
    from gizmo.config import MoeConfig

    _original = MoeConfig.__post_init__


    def no_lora_post_init(self):
        _original(self)
        self.lora = False


    def install():
        MoeConfig.__post_init__ = no_lora_post_init
    """


def _case(patch: str) -> Case:
    return Case("replaced", {"gizmo/config.py": CONFIG_BEFORE}, {"gizmo/config.py": CONFIG_AFTER},
                {"app/patch.py": patch})


def test_a_replacement_that_skips_state_the_target_method_now_sets(tmp_path):
    found = findings_of(tmp_path, _case(PATCH))
    assert_findings(found, [("DRIFT096", line_of(PATCH, "def no_lora_post_init"))])
    f = only(found, "DRIFT096")
    assert "`self.size_per_part`" in f.title and f.severity.value == "risky"
    assert f.target_evidence[0].line == line_of(CONFIG_AFTER, "self.size_per_part = ")
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    built = ("(install(), __import__('gizmo.config', fromlist=['MoeConfig']).MoeConfig({args}))[1].size_per_part == 4 "
             "or (_ for _ in ()).throw(ValueError('size_per_part left unset'))")
    assert raised_by(roots("before"), "app.patch", built.format(args="size=4, size_per_part=4")) is None
    assert raised_by(roots("after"), "app.patch", built.format(args="size=4")) == "ValueError: size_per_part left unset"


def test_a_replacement_that_runs_the_original_is_silent(tmp_path):
    assert_findings(findings_of(tmp_path, _case(WRAPPER)), [])


def test_state_a_target_helper_the_replacement_calls_sets_counts_as_set(tmp_path):
    # the target's __post_init__ sets size_per_part itself; its helper `split` sets it too, and the
    # replacement calls that helper: the state is set (without the call this is the finding above)
    after = CONFIG_AFTER + """
        def split(self):
            self.size_per_part = self.size // self.parts
    """
    helper = PATCH.replace("        self.lora = False", "        self.split()\n        self.lora = False")
    case = Case("helper", {"gizmo/config.py": CONFIG_BEFORE}, {"gizmo/config.py": after}, {"app/patch.py": helper})
    assert_findings(findings_of(tmp_path / "helper", case), [])
    bare = Case("bare", {"gizmo/config.py": CONFIG_BEFORE}, {"gizmo/config.py": after}, {"app/patch.py": PATCH})
    assert_findings(findings_of(tmp_path / "bare", bare), [("DRIFT096", line_of(PATCH, "def no_lora_post_init"))])
