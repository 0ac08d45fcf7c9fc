"""DRIFT145: `None` passed to a validated class (a pydantic dataclass or model) for a field whose
annotation stopped admitting None.

vLLM 0.14's `VllmConfig` is a pydantic dataclass whose `observability_config` became
`ObservabilityConfig = Field(default_factory=ObservabilityConfig)` (it was
`Optional[ObservabilityConfig] = None`): `VllmConfig(observability_config=None)` now raises
pydantic's ValidationError at construction (parallax). Held to what pydantic itself raises.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, src

BEFORE = {"gizmo/config.py": """
    from typing import Optional

    from pydantic.dataclasses import dataclass


    @dataclass
    class ObservabilityConfig:
        collect_detailed_traces: Optional[str] = None


    @dataclass
    class VllmConfig:
        model: str = "m"
        observability_config: Optional[ObservabilityConfig] = None
        seed: Optional[int] = None
    """}
AFTER = {"gizmo/config.py": """
    from typing import Optional

    from pydantic import Field
    from pydantic.dataclasses import dataclass


    @dataclass
    class ObservabilityConfig:
        collect_detailed_traces: Optional[str] = None


    @dataclass
    class VllmConfig:
        model: str = "m"
        observability_config: ObservabilityConfig = Field(default_factory=ObservabilityConfig)
        seed: Optional[int] = None
    """}
CONSUMER = """
    from gizmo.config import ObservabilityConfig, VllmConfig


    def build():
        return VllmConfig(model="x", observability_config=None, seed=None)


    def build_default():
        return VllmConfig(model="x")


    def build_maybe(trace):
        return VllmConfig(observability_config=ObservabilityConfig() if trace else None)
    """


def _case(after=AFTER):
    return Case("validated", BEFORE, after, {"app/__init__.py": "", "app/mine.py": CONSUMER})


def test_none_for_a_field_that_no_longer_admits_it_is_breaking(tmp_path):
    found = [f for f in findings_of(tmp_path, _case()) if f.rule_id == "DRIFT145"]
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [
        (line_of(src(CONSUMER), "observability_config=None"), "breaking"),
        (line_of(src(CONSUMER), "if trace else None"), "risky")]  # fails on its None arm only
    f = found[0]
    assert f.symbol == "gizmo.config.VllmConfig.observability_config"
    assert "`Optional[ObservabilityConfig]`" in f.title and "`ObservabilityConfig`" in f.title
    got = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build()")
    assert got is not None and "ValidationError" in got
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", "build()") is None
    assert "ValidationError" in raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build_maybe(False)")
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build_maybe(True)") is None


def test_a_plain_dataclass_checks_nothing(tmp_path):
    """The standard library's dataclass does not validate: the None is stored, nothing raises there."""
    plain = {"gizmo/config.py": AFTER["gizmo/config.py"].replace(
        "from pydantic.dataclasses import dataclass", "from dataclasses import dataclass, field").replace(
        "Field(default_factory=ObservabilityConfig)", "field(default_factory=ObservabilityConfig)").replace(
        "    from pydantic import Field\n", "")}
    before = {"gizmo/config.py": BEFORE["gizmo/config.py"].replace(
        "from pydantic.dataclasses import dataclass", "from dataclasses import dataclass")}
    case = Case("plain", before, plain, {"app/__init__.py": "", "app/mine.py": CONSUMER})
    assert [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT145"] == []
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build()") is None


def test_the_drop_is_offered_only_with_unsafe_fixes_and_then_builds(tmp_path):
    """Leaving the keyword out lets the target build its default, which may not be what the
    consumer's None meant there: unsafe, and the patched call then constructs on the target."""
    from drift.fixes import plan

    found = [f for f in findings_of(tmp_path, _case()) if f.rule_id == "DRIFT145"]
    rel = "app/mine.py"
    source = (tmp_path / "consumer" / rel).read_bytes()
    assert plan({rel: source}, found).empty
    patch = plan({rel: source}, found, unsafe_fixes=True)
    patched = patch.changes[0].after.decode()
    assert "observability_config=None" not in patched and "if trace else None" in patched  # the risky arm stays
    (tmp_path / "consumer" / rel).write_text(patched)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build()") is None
