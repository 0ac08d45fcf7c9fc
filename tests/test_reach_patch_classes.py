"""Patch classes: `class RunnerPatch(Patch[Runner])`, whose methods a factory of the consumer's own
copies onto the target class, and whose `__init__` calls the saved original (`_orig_init =
Runner.__init__`, then `self._orig_init(...)`).

`self` in such a class is a `Runner` at run time. The factory (`Patch`, in a module that never
imports the target, so drift has no record of it) must not hide that: attributes `Runner.__init__`
set that the target dropped, attributes whose value changed kind (a CPU/GPU buffer became a plain
value), methods renamed, and calls through a saved original with the old arity are all reported;
and a call of the saved `__init__` counts as running the base `__init__` (no DRIFT075)."""

from __future__ import annotations

from drift.pipeline.run import check
from drift.model.targets import load_facts
from tests.rule_cases import assert_findings, consumer_of, line_of, raised_by, write_tree

RUNNER_BEFORE = """
    class CpuGpuBuffer:
        def __init__(self, n):
            self.np = [0] * n
            self.gpu = [0] * n

        def copy_to_gpu(self, n=None):
            return self.gpu

    class Runner:
        def __init__(self, config, device):
            self.pin_memory = False
            self.max_num_reqs = 4
            self.seq_lens = self._make_buffer(4)
            self.positions = self._make_buffer(8)

        def _make_buffer(self, n) -> CpuGpuBuffer:
            return CpuGpuBuffer(n)

        def sync_and_slice_tensors(self, n, tensors, flag):
            return n

        def bookkeeping(self, out, logits, hidden, num, meta):
            return out

    class Engine:
        def __init__(self, runner: Runner):
            self.runner = runner

        def step(self):
            return self.runner.bookkeeping(None, None, None, 0, None)
    """
RUNNER_AFTER = """
    class Runner:
        def __init__(self, config, device):
            self.max_num_reqs = 4
            self.seq_lens = bytearray(4)
            self.positions = bytearray(8)

        def sync_and_gather_tensors(self, n, tensors, flag):
            return n

        def bookkeeping(self, out, logits, hidden, num):
            return out

    class Engine:
        def __init__(self, runner: Runner):
            self.runner = runner

        def step(self):
            return self.runner.bookkeeping(None, None, None, self.runner.max_num_reqs)
    """

# the factory: no import of the target, so drift never records this module
PATCHING = """
    class Patch:
        _target = None

        def __class_getitem__(cls, target):
            return type(cls.__name__, (cls,), {"_target": target})

        @classmethod
        def apply(cls):
            for name, attr in list(vars(cls).items()):
                if not name.startswith("__") or name == "__init__":
                    setattr(cls._target, name, attr)
    """

PATCH = """
    from gizmo.runner import Runner
    from app.patching import Patch

    class RunnerPatch(Patch[Runner]):
        _orig_init = Runner.__init__
        _orig_bookkeeping = Runner.bookkeeping

        def __init__(self, config, device):
            self._orig_init(config, device)
            self.pinned = [0] * self.max_num_reqs if self.pin_memory else []

        def dummy_run(self, n):
            self.seq_lens.np[:n] = [1] * n
            self.seq_lens.copy_to_gpu()
            pos = self.positions.gpu[:n]
            return self.sync_and_slice_tensors(n, None, False), pos, self.pinned

        def bookkeeping(self, out, logits, hidden, num, meta=None):
            return self._orig_bookkeeping(out, logits, hidden, num, meta)
    """


def _report(tmp_path, patch: str):
    roots, facts = {}, {}
    for side, text in (("before", RUNNER_BEFORE), ("after", RUNNER_AFTER)):
        # a tree no whole parse has stored yet, so the target's own reads are searched in its text
        roots[side] = write_tree(tmp_path / side, {"gizmo/__init__.py": f"# {tmp_path} {side}\n",
                                                   "gizmo/runner.py": text})
        loaded = load_facts(str(roots[side]), packages=["gizmo"], demand=True)
        assert loaded.ok, loaded.error
        facts[side] = loaded.facts
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/patching.py": PATCHING, "app/runner_patch.py": patch}))
    report = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"],
                   target_package="gizmo").report
    return report, roots


def _breaking(report):
    return tuple(f for f in report.findings if f.severity.value == "breaking")


def test_self_in_a_patch_class_is_the_target_instance(tmp_path):
    report, roots = _report(tmp_path, PATCH)
    assert_findings(_breaking(report), [
        ("DRIFT060", line_of(PATCH, "if self.pin_memory")),
        ("DRIFT061", line_of(PATCH, "self.seq_lens.np[:n]")),
        ("DRIFT061", line_of(PATCH, "self.seq_lens.copy_to_gpu()")),
        ("DRIFT061", line_of(PATCH, "self.positions.gpu")),
        ("DRIFT060", line_of(PATCH, "self.sync_and_slice_tensors(")),
        ("DRIFT012", line_of(PATCH, "self._orig_bookkeeping(")),
    ])
    by_line = {f.consumer_site.line: f for f in report.findings}
    pin = by_line[line_of(PATCH, "if self.pin_memory")]
    assert pin.symbol == "gizmo.runner.Runner.pin_memory"
    assert "sync_and_gather_tensors" in by_line[line_of(PATCH, "self.sync_and_slice_tensors(")].title
    assert ".np" in by_line[line_of(PATCH, "self.seq_lens.np[:n]")].title
    # what Python itself raises once the patch is applied to the target's Runner
    run = "(lambda m: (RunnerPatch.apply(), m.Runner(None, 'cpu')))(__import__('gizmo.runner', fromlist=['x']))"
    assert raised_by([roots["after"], tmp_path / "consumer"], "app.runner_patch", run) == \
        "AttributeError: 'Runner' object has no attribute 'pin_memory'"
    assert raised_by([roots["before"], tmp_path / "consumer"], "app.runner_patch",
                     run.replace("m.Runner(None, 'cpu')", "m.Runner(None, 'cpu').dummy_run(2)")) is None
    arity = "(lambda m: (RunnerPatch.apply(), m.Runner.__new__(m.Runner).bookkeeping(1, 2, 3, 4)))" \
            "(__import__('gizmo.runner', fromlist=['x']))"
    assert "takes 5 positional arguments but 6 were given" in (raised_by(
        [roots["after"], tmp_path / "consumer"], "app.runner_patch", arity) or "")


def test_the_saved_original_init_counts_as_the_base_init(tmp_path):
    """The target's Engine now reads `runner.max_num_reqs`, which `Runner.__init__` sets: a patch
    `__init__` that calls the saved original (as `self._orig_init(...)` or a module-level
    `_orig(self, ...)`) sets it; one that calls neither does not (DRIFT075)."""
    calls = PATCH.replace("self.pin_memory", "self.pinned_ok")  # only DRIFT075 is in question here
    module_level = calls.replace("class RunnerPatch", "_orig = Runner.__init__\n\n\nclass RunnerPatch") \
        .replace("self._orig_init(config, device)", "_orig(self, config, device)")
    for i, consumer in enumerate((calls, module_level)):
        report, _ = _report(tmp_path / str(i), consumer)
        assert not [f for f in report.findings if f.rule_id == "DRIFT075"], consumer
    skips = calls.replace("self._orig_init(config, device)", "self.max_num_reqs_seen = 0")
    report, _ = _report(tmp_path / "skips", skips)
    assert [(f.rule_id, f.symbol) for f in report.findings if f.rule_id == "DRIFT075"] == \
        [("DRIFT075", "gizmo.runner.Runner.max_num_reqs")]


def test_names_only_the_patch_or_the_baseline_lacked_are_not_reported(tmp_path):
    """An attribute the patch sets itself, one another patch adds (absent from the baseline too)
    and one the target still sets are no findings: the factory is skipped, not the class's own."""
    quiet = """
        from gizmo.runner import Runner
        from app.patching import Patch

        class RunnerPatch(Patch[Runner]):
            def __init__(self, config, device):
                Runner.__init__(self, config, device)
                self.extra = 1

            def use(self):
                return self.extra, self.added_elsewhere, self.max_num_reqs, self.bookkeeping(1, 2, 3, 4)
        """
    report, _ = _report(tmp_path, quiet)
    assert_findings(_breaking(report), [])
