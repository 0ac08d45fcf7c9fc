"""An InitVar'd field's read gets the `rename_attribute_owner` fix only where the target's own code
made that rewrite between the releases (drift/analysis/rules/owner_moves.py), tiered by how many
of its sites show it: synthetic before/after target packages, a real consumer tree, the real check."""

from __future__ import annotations

from drift.fixes.kinds import apply_fixes
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, src

CONFIG_BEFORE = """
    from dataclasses import dataclass, field

    @dataclass
    class ModelConfig:
        max_model_len: int = 8192

    @dataclass
    class SchedulerConfig:
        max_model_len: int = 8192
        max_num_seqs: int = 128

    @dataclass
    class VllmConfig:
        model_config: ModelConfig = field(default_factory=ModelConfig)
        scheduler_config: SchedulerConfig = field(default_factory=SchedulerConfig)
    """
CONFIG_AFTER = CONFIG_BEFORE.replace("        max_model_len: int = 8192\n        max_num_seqs",
                                     "        max_model_len: InitVar[int] = 8192\n        max_num_seqs").replace(
    "import dataclass, field", "import dataclass, field, InitVar")


def _users(owner: str, both: bool) -> str:
    """The target's own code: a scheduler that keeps the length, and (when `both`) a cache built with it."""
    text = f"""
        class KVCacheManager:
            def __init__(self, max_model_len=0):
                self.max_model_len = max_model_len

        class Scheduler:
            def __init__(self, vllm_config):
                self.max_model_len = vllm_config.{owner}.max_model_len
        """
    if both:
        text += f"""
        def make_cache(vllm_config):
            return KVCacheManager(max_model_len=vllm_config.{owner}.max_model_len)
        """
    return text


CONSUMER = """
    from gizmo.config import VllmConfig

    def budget(config: VllmConfig, n: int) -> int:
        return config.scheduler_config.max_model_len - n
    """


def _case(after_owner: str, *, both: bool) -> Case:
    return Case("owner-move",
                {"gizmo/config.py": CONFIG_BEFORE, "gizmo/sched.py": _users("scheduler_config", both)},
                {"gizmo/config.py": CONFIG_AFTER, "gizmo/sched.py": _users(after_owner, both)},
                {"app/budget.py": CONSUMER})


def test_one_rewritten_site_gives_an_unsafe_fix(tmp_path):
    findings = findings_of(tmp_path, _case("model_config", both=False))
    assert_findings(findings, [("DRIFT063", line_of(CONSUMER, "return config"))])
    fix = only(findings, "DRIFT063").fix
    assert fix.codemod == "rename_attribute_owner" and fix.tier == "unsafe"
    assert fix.args == {"attr": "max_model_len", "old": "scheduler_config", "new": "model_config"}
    assert "scheduler_config.max_model_len → model_config.max_model_len" in fix.description
    assert "1 site" in fix.description


def test_two_rewritten_sites_give_a_safe_fix_that_applies(tmp_path):
    findings = findings_of(tmp_path, _case("model_config", both=True))
    finding = only(findings, "DRIFT063")
    assert finding.fix.codemod == "rename_attribute_owner" and finding.fix.tier == "safe"
    result = apply_fixes(src(CONSUMER), findings, path=finding.consumer_site.path)
    assert result.applied == [finding.key]
    assert "return config.model_config.max_model_len - n" in result.new_source
    assert "scheduler_config" not in result.new_source


def test_no_rewrite_in_the_target_code_stays_manual(tmp_path):
    findings = findings_of(tmp_path, _case("scheduler_config", both=True))
    fix = only(findings, "DRIFT063").fix
    assert fix.codemod is None and fix.tier == "manual"


BUILDS_FROM_MODEL = """
    from gizmo.config import ModelConfig, SchedulerConfig, VllmConfig

    def create_engine_config(max_len):
        model_config = ModelConfig(max_model_len=max_len)
        scheduler_config = SchedulerConfig(max_model_len=model_config.max_model_len, max_num_seqs=8)
        return VllmConfig(model_config=model_config, scheduler_config=scheduler_config)
    """


def test_one_site_is_safe_where_the_baseline_built_the_old_owner_from_the_new(tmp_path):
    """The baseline's own `SchedulerConfig(max_model_len=model_config.max_model_len)`: both reads
    gave one value there, so following the target's single rewrite changes nothing the consumer read."""
    case = _case("model_config", both=False)
    case.before["gizmo/args.py"] = BUILDS_FROM_MODEL
    case.after["gizmo/args.py"] = BUILDS_FROM_MODEL
    fix = only(findings_of(tmp_path, case), "DRIFT063").fix
    assert (fix.codemod, fix.tier) == ("rename_attribute_owner", "safe")
    assert "builds it as `scheduler_config.max_model_len = model_config.max_model_len`" in fix.description
    other = _case("model_config", both=False)
    built_otherwise = BUILDS_FROM_MODEL.replace("max_model_len=model_config.max_model_len", "max_model_len=max_len")
    other.before["gizmo/args.py"] = other.after["gizmo/args.py"] = built_otherwise
    assert only(findings_of(tmp_path / "o", other), "DRIFT063").fix.tier == "unsafe"  # no such evidence: one site
