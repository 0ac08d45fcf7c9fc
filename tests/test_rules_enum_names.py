"""DRIFT089 (synthetic before/after pairs): an override returns a name (`get_name() -> "TT"`) that
the target's code now looks up as a member of an enum (`BackendEnum[backend.get_name()]`) where the
baseline's did not; the name is no member, so building the layer raises KeyError. Shown by running
the synthetic code on both releases."""

from __future__ import annotations

from pathlib import Path

from drift.pipeline.run import check
from tests.rule_cases import LIB, Case, assert_findings, consumer_of, facts_of, line_of, raised_by, write_tree

BACKEND = """
    class Backend:
        @staticmethod
        def get_name() -> str:
            raise NotImplementedError
    """
FLASH = """
    from gizmo.backend import Backend


    class FlashBackend(Backend):
        @staticmethod
        def get_name() -> str:
            return "FLASH"
    """
CONFIG = """
    class QuantConfig:
        def get_name(self) -> str:
            raise NotImplementedError
    """
REGISTRY = """
    from enum import Enum


    class BackendEnum(Enum):
        FLASH = "gizmo.flash.FlashBackend"
        CUSTOM = None
    """
LAYER_BEFORE = """
    class Layer:
        def __init__(self, backend):
            self.backend = backend
            self.label = backend.get_name()
    """
LAYER_AFTER = """
    from gizmo.registry import BackendEnum


    class Layer:
        def __init__(self, backend):
            self.backend = backend
            self.kind = BackendEnum[self.backend.get_name()]
    """
MINE = """
    from gizmo.backend import Backend


    class TTBackend(Backend):
        @staticmethod
        def get_name() -> str:
            return "TT"
    """


def _case(mine=MINE, before=LAYER_BEFORE, after=LAYER_AFTER):
    common = {"gizmo/backend.py": BACKEND, "gizmo/flash.py": FLASH, "gizmo/config.py": CONFIG,
              "gizmo/registry.py": REGISTRY}
    lib = {**common, "gizmo/layer.py": before}
    new = {**common, "gizmo/layer.py": after}
    return Case("enum-name", lib, new, {"app/__init__.py": "", "app/mine.py": mine})


def findings_of(tmp_path: Path, case: Case):
    """The check over the case's trees, with the releases' files on this machine (as for a release
    drift fetched): the rule reads the target's text for the enum lookups."""
    target = facts_of(write_tree(tmp_path / "after", case.after))
    target["target"] = {"root": str(tmp_path / "after")}
    baseline = facts_of(write_tree(tmp_path / "before", case.before))
    baseline["target"] = {"root": str(tmp_path / "before")}
    outcome = check(consumer=consumer_of(write_tree(tmp_path / "consumer", case.consumer)), target_facts=target,
                    baseline_facts=baseline, target_package=LIB)
    assert outcome.error is None and outcome.report is not None and not outcome.report.incomplete
    return outcome.report.findings


def test_returned_name_the_target_now_looks_up_in_an_enum_without_it(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT089", line_of(MINE, 'return "TT"'))])
    f = findings[0]
    assert f.severity.value == "risky" and f.symbol == "gizmo.registry.BackendEnum"
    assert "'TT'" in f.title and "gizmo/layer.py" in f.title
    use = "__import__('gizmo.layer').layer.Layer(TTBackend)"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", use) is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", use) == f.predicted_failure


def test_a_member_name_is_silent(tmp_path):
    mine = MINE.replace('return "TT"', 'return "CUSTOM"')
    assert_findings(findings_of(tmp_path, _case(mine=mine)), [])
    use = "__import__('gizmo.layer').layer.Layer(TTBackend)"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", use) is None


def test_a_lookup_the_baseline_already_made_is_silent(tmp_path):
    assert_findings(findings_of(tmp_path, _case(before=LAYER_AFTER)), [])


def test_a_method_of_the_same_name_in_another_family_is_silent(tmp_path):
    # a quantization config's `get_name` also returns a plain string, but the enum the layer looks
    # names up in registers backends, not configs
    mine = MINE + src_config_override()
    case = _case(mine=mine)
    assert_findings(findings_of(tmp_path, case), [("DRIFT089", line_of(MINE, 'return "TT"'))])


def src_config_override() -> str:
    return """

    from gizmo.config import QuantConfig


    class MyConfig(QuantConfig):
        def get_name(self) -> str:
            return "my-quant"
    """


def test_a_lookup_renamed_with_its_enum_is_not_new(tmp_path):
    # the baseline looked the name up in an enum of another name, in the same module
    before = LAYER_AFTER.replace("BackendEnum[", "OldEnum[").replace(
        "from gizmo.registry import BackendEnum", "from gizmo.old import OldEnum")
    case = _case(before=before)
    case.before["gizmo/old.py"] = REGISTRY.replace("class BackendEnum", "class OldEnum")
    assert_findings(findings_of(tmp_path, case), [])
