"""DRIFT001's fix for a class the target renamed in place, learned from the target's own imports
(`own_successor_class`): the modules that imported the old class in the baseline import one new
class in the target. Real rules over synthetic trees, the real planner on the consumer's file; the
rename's before/after/idempotence is `rename_import`'s (tests/test_fix_renames_real.py).
"""

from __future__ import annotations

from drift.findings import SAFE, UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only

JOB = """
    from dataclasses import dataclass

    @dataclass
    class {name}:
        job_id: int
        keys: list
        {extra}
    """
WORKER = """
    from gizmo.jobs.base import {name}

    def run(job: {name}) -> int:
        return job.job_id
    """
CONSUMER = """
    from gizmo.jobs.base import JobMeta

    def submit(job: JobMeta) -> int:
        return JobMeta(job.job_id, []).job_id
    """


def _case(*, new_worker: str = "TransferJob", extra: str = "") -> Case:
    before = {"gizmo/__init__.py": "", "gizmo/jobs/__init__.py": "",
              "gizmo/jobs/base.py": JOB.format(name="JobMeta", extra=""),
              "gizmo/jobs/worker.py": WORKER.format(name="JobMeta")}
    after = {"gizmo/__init__.py": "", "gizmo/jobs/__init__.py": "",
             "gizmo/jobs/base.py": JOB.format(name="TransferJob", extra=extra),
             "gizmo/jobs/worker.py": WORKER.format(name=new_worker) if new_worker else "def run(job):\n    return 0\n"}
    return Case("renamed-class", before, after, {"app/__init__.py": "", "app/main.py": CONSUMER})


def _plan(tmp_path, findings):  # type: ignore[no-untyped-def]
    return plan({"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}, findings)


def test_a_class_renamed_in_place_is_renamed_in_the_import_and_every_use(tmp_path):
    findings = findings_of(tmp_path, _case())
    f = only(findings, "DRIFT001")
    assert (f.fix.codemod, f.fix.tier) == ("rename_import", SAFE)
    assert f.fix.args == {"old": "JobMeta", "new": "TransferJob"}
    assert "gizmo.jobs.worker made the same switch" in f.fix.description
    after = _plan(tmp_path, [f]).changes[0].after.decode()
    assert after.startswith("from gizmo.jobs.base import TransferJob\n")
    assert "def submit(job: TransferJob) -> int:" in after and "TransferJob(job.job_id, [])" in after
    assert "JobMeta" not in after
    assert plan({"app/main.py": after.encode()}, [f]).empty  # a second run changes nothing


def test_a_renamed_class_whose_api_changed_is_an_unsafe_rename(tmp_path):
    f = only(findings_of(tmp_path, _case(extra="is_promotion: bool = False")), "DRIFT001")
    assert (f.fix.codemod, f.fix.tier) == ("rename_import", UNSAFE)
    assert "its API changed" in f.fix.description


def test_no_rename_without_the_targets_own_switch(tmp_path):
    f = only(findings_of(tmp_path, _case(new_worker="")), "DRIFT001")
    assert f.fix.codemod is None and f.fix.description.startswith("stop using")


def test_each_use_carries_the_imports_rename_and_all_are_fixed_by_one_edit(tmp_path):
    """memkv-vllm's `JobMetadata` annotations (DRIFT005 at each use): the import's `rename_import`
    rewrites them all, so each use carries that same edit, run once at the import's line. Every
    finding is fixed by the one edit, in either order, and a second plan changes nothing."""
    findings = findings_of(tmp_path, _case())
    uses = [f for f in findings if f.rule_id == "DRIFT005"]
    assert uses and all((u.fix.codemod, u.fix.tier) == ("rename_import", SAFE) for u in uses)
    assert all(u.fix.args == {"old": "JobMeta", "new": "TransferJob", "at_line": 1} for u in uses)
    assert all("the import's edit at line 1 rewrites this use with it" in u.fix.description for u in uses)
    for order in (list(findings), list(reversed(findings))):
        p = _plan(tmp_path, order)
        assert set(p.changes[0].finding_keys) == {f.key for f in findings if f.fix and f.fix.codemod}
        after = p.changes[0].after.decode()
        assert after.count("TransferJob") == 3 and "JobMeta" not in after
        assert plan({"app/main.py": after.encode()}, order).empty


def test_a_clear_majority_of_switching_modules_names_the_successor():
    """vLLM 0.27 replaced `FusedMoE` across eighty modules: the quantization modules took
    `RoutedExperts`, a LoRA module took a mixin instead, one took both. Two thirds agree and no
    other class has half their votes: the successor is said. A split vote says nothing."""
    from drift.analysis.rules.own_imports import _successor_by_vote

    moe = {f"q{i}": {"pkg.routed.RoutedExperts"} for i in range(6)}
    moe["lora"] = {"pkg.lora.LoRAExpertsMixin"}
    moe["both"] = {"pkg.routed.RoutedExperts", "pkg.routed.WeightScale"}
    assert _successor_by_vote(moe) == ("pkg.routed.RoutedExperts", sorted(["both"] + [f"q{i}" for i in range(6)]))
    split = {"a": {"pkg.A"}, "b": {"pkg.A"}, "c": {"pkg.B"}, "d": {"pkg.B"}}
    assert _successor_by_vote(split) is None
    assert _successor_by_vote({"a": {"pkg.A", "pkg.B"}}) is None  # one module, two new classes
    assert _successor_by_vote({"a": {"pkg.A"}, "b": {"pkg.A", "pkg.C"}}) == ("pkg.A", ["a", "b"])


def test_a_class_every_switching_module_took_wins_over_companions():
    """vLLM 0.29's five tiering managers all took `TransferJob` for `JobMetadata`; three of them
    also took `Medium`, a companion class new in the same release: the one class all took is the
    successor."""
    from drift.analysis.rules.own_imports import _successor_by_vote

    took = {"example": {"TransferJob", "Medium"}, "fs": {"TransferJob", "Medium", "Locality"},
            "manager": {"TransferJob", "ParentManager"}, "obj": {"TransferJob", "Medium", "Locality"},
            "p2p": {"TransferJob", "ParentManager"}}
    assert _successor_by_vote(took) == ("TransferJob", sorted(took))
