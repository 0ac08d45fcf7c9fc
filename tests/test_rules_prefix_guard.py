"""A patch installed only after `if not gizmo.__version__.startswith("0.16"): return` binds nothing
on another release: drift evaluates the text prefix test as Python does (drift/consumer/guards.py),
so the patched function's call is not held to a target the patch never reaches, and is where the
prefix matches."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import assert_findings, consumer_of, facts_of, line_of, write_tree

WORKER = """
    class Runner:
        def load_model(self, {param}=False):
            return 0

    class Worker:
        def __init__(self):
            self.model_runner = Runner()

        def load_model(self):
            self.model_runner.load_model()
    """
PATCH = """
    import gizmo


    def patch():
        if not gizmo.__version__.startswith("0.16"):
            return  # the upstream fix landed in 0.17
        from gizmo.worker import Worker

        def _patched_load_model(self):
            self.model_runner.load_model(eep_scale_up=True)

        Worker.load_model = _patched_load_model


    patch()
    """


def _findings(tmp_path, *, baseline, target):
    b = facts_of(write_tree(tmp_path / "b", {"gizmo/worker.py": WORKER.format(param="eep_scale_up")}))
    b["packages"]["gizmo"]["version"] = baseline
    a = facts_of(write_tree(tmp_path / "a", {"gizmo/worker.py": WORKER.format(param="load_dummy_weights")}))
    a["packages"]["gizmo"]["version"] = target
    cons = consumer_of(write_tree(tmp_path / "c", {"app/patch.py": PATCH}))
    report = check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report
    assert report is not None
    return report.findings


def test_a_patch_for_another_release_prefix_is_not_held_to_the_target(tmp_path):
    assert_findings(_findings(tmp_path, baseline="0.16.0", target="0.18.0"), [])


def test_the_same_patch_is_held_where_the_prefix_matches(tmp_path):
    assert_findings(_findings(tmp_path, baseline="0.15.1", target="0.16.1"),
                    [("DRIFT010", line_of(PATCH, "eep_scale_up=True"))])
