"""Overrides whose contract the target changed without any call failing to bind.

DRIFT078: the base method returned None and now returns a value its callers use; an override that
returns nothing hands them None. DRIFT079: the base reordered its parameters and the target calls
the method by position; an override declared in the old order takes the arguments into the wrong
parameters. Both risky (no error where the call is made), both checked against what Python does.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/sched.py": """
        class Scheduler:
            def finish(self, ids) -> None:
                self.done = ids

            def count(self) -> int:
                return 0

        def drain(s: Scheduler):
            s.finish([1])
            return []
        """,
    "gizmo/platform.py": """
        class Platform:
            @classmethod
            def validate(cls, prompt, params, processed=None):
                return None

        def check(platform, processed, params):
            return platform.validate(prompt="p", params=params, processed=processed)
        """,
}
AFTER = {
    "gizmo/sched.py": """
        class Scheduler:
            def finish(self, ids) -> list[int]:
                self.done = ids
                return list(ids)

            def count(self) -> int:
                return 0

        def drain(s: Scheduler):
            return len(s.finish([1]))
        """,
    "gizmo/platform.py": """
        class Platform:
            @classmethod
            def validate(cls, processed, params):
                return processed

        def check(platform, processed, params):
            return platform.validate(processed, params)
        """,
}
CONSUMER = """
    from gizmo.platform import Platform
    from gizmo.sched import Scheduler


    class MyScheduler(Scheduler):
        def finish(self, ids) -> None:
            self.done = list(ids)

        def count(self) -> int:
            return 1


    class Returns(Scheduler):
        def finish(self, ids):
            return super().finish(ids)


    class MyPlatform(Platform):
        @classmethod
        def validate(cls, prompt, params, processed=None):
            if processed is not None and "bad" in processed:
                raise ValueError("rejected")
            return prompt
    """


def test_overrides_that_keep_an_old_contract_no_call_rejects(tmp_path):
    consumer = {"app/plugin.py": CONSUMER}
    found = findings_of(tmp_path, Case("contract", BEFORE, AFTER, consumer))
    assert_findings(found, [("DRIFT078", line_of(CONSUMER, "def finish(self, ids) -> None")),
                            ("DRIFT079", line_of(CONSUMER, "def validate"))])
    assert all(f.severity.value == "risky" for f in found)
    after = [tmp_path / "after", tmp_path / "consumer"]
    before = [tmp_path / "before", tmp_path / "consumer"]
    # the target's own caller now uses the value the override does not give
    assert raised_by(after, "gizmo.sched", "drain(__import__('app.plugin').plugin.MyScheduler())") == \
        "TypeError: object of type 'NoneType' has no len()"
    assert raised_by(before, "gizmo.sched", "drain(__import__('app.plugin').plugin.MyScheduler())") is None
    # the processed input lands in `prompt`: the override's check is skipped, nothing is raised
    assert raised_by(after, "gizmo.platform", "check(__import__('app.plugin').plugin.MyPlatform, 'bad', {})") is None
    assert raised_by(before, "gizmo.platform",
                     "check(__import__('app.plugin').plugin.MyPlatform, 'bad', {})") == "ValueError: rejected"


def test_nothing_when_the_contract_did_not_change(tmp_path):
    consumer = {"app/plugin.py": CONSUMER}
    assert_findings(findings_of(tmp_path, Case("same", AFTER, AFTER, consumer)), [])


WARM_BEFORE = {"gizmo/worker.py": """
    class Worker:
        def warm_up(self) -> float:
            return 0.0

    def init(workers):
        return max([w.warm_up() for w in workers])
    """}
WARM_AFTER = {"gizmo/worker.py": """
    from typing import NamedTuple

    class Times(NamedTuple):
        model: float
        encoder: float

    class Worker:
        def warm_up(self) -> Times:
            return Times(0.0, 0.0)

    def init(workers):
        times = [w.warm_up() for w in workers]
        return max(t.model for t in times)
    """}
WARM_PLUGIN = """
    from gizmo.worker import Worker


    class MyWorker(Worker):
        def warm_up(self):
            self.ready = True


    class Timed(Worker):
        def warm_up(self):
            return super().warm_up()
    """


def test_an_override_returning_nothing_where_a_plain_value_became_a_targets_object(tmp_path):
    """`-> float` became `-> Times`: one worker's None passed through `max([None])` before; the
    target now reads `.model` off it."""
    found = findings_of(tmp_path, Case("warm", WARM_BEFORE, WARM_AFTER, {"app/plugin.py": WARM_PLUGIN}))
    assert_findings(found, [("DRIFT078", line_of(WARM_PLUGIN, "def warm_up"))])
    assert "now returns `Times` (it returned `float`)" in found[0].title
    before = [tmp_path / "before", tmp_path / "consumer"]
    after = [tmp_path / "after", tmp_path / "consumer"]
    call = "init([__import__('app.plugin').plugin.MyWorker()])"
    assert raised_by(before, "gizmo.worker", call) is None
    assert raised_by(after, "gizmo.worker", call) == "AttributeError: 'NoneType' object has no attribute 'model'"
    # a plain value that stays a plain value (or the same class) is no new contract
    same = {"gizmo/worker.py": WARM_BEFORE["gizmo/worker.py"].replace("-> float", "-> int")}
    assert not findings_of(tmp_path / "same", Case("same", WARM_BEFORE, same, {"app/plugin.py": WARM_PLUGIN}))


# vLLM 0.19: `_update_states` went from `-> None` to `-> Callable | None`, and `execute_model`
# runs the deferred corrections it returns; nnsight's override calls the base and drops them.
OPT_BEFORE = {"gizmo/runner.py": """
    class Runner:
        def update(self, out) -> None:
            self.seen = out

        def step(self, out):
            self.update(out)
            return self.seen
    """}
OPT_AFTER = {"gizmo/runner.py": """
    from typing import Callable


    class Runner:
        def update(self, out) -> Callable | None:
            self.seen = out
            if out == "late":
                return lambda: setattr(self, "seen", "corrected")
            return None

        def step(self, out):
            fix = self.update(out)
            if fix is not None:
                fix()
            return self.seen
    """}
OPT_CONSUMER = """
    from gizmo.runner import Runner


    class Mine(Runner):
        def update(self, out):
            super().update(out)
            self.mine = True


    class Own(Runner):
        def update(self, out):
            self.seen = out
    """


def test_an_override_dropping_the_optional_value_its_super_call_now_returns(tmp_path):
    """Only the override that calls the base and drops its value: returning None is legal where the
    base's value is optional, so the override with its own logic is left alone."""
    found = findings_of(tmp_path, Case("optional", OPT_BEFORE, OPT_AFTER, {"app/__init__.py": "",
                                                                          "app/runner.py": OPT_CONSUMER}))
    mine = [f for f in found if f.rule_id == "DRIFT078"]
    assert_findings(tuple(mine), [("DRIFT078", line_of(OPT_CONSUMER, "def update(self, out):"))])
    f = mine[0]
    assert f.severity.value == "risky" and f.consumer_site.line < line_of(OPT_CONSUMER, "class Own")
    assert f"calls `super().update(...)` at line {line_of(OPT_CONSUMER, 'super().update(out)')}" in f.details
    # what the finding predicts, run: the base's correction is lost through the override
    run = ("None if __import__('app.runner', fromlist=['Mine']).Mine().step('late') == 'late' else 1 / 0")
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.runner", run) is None
    direct = "None if __import__('gizmo.runner', fromlist=['Runner']).Runner().step('late') == 'corrected' else 1 / 0"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "gizmo.runner", direct) is None
