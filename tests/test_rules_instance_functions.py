"""DRIFT070 on a function set on one target object (`allocator.wake_up = wake_up`): an instance
attribute is not bound, so the function takes what the target's `obj.m(...)` passes, without
`self`, and must still take it when the target starts passing more.

OpenPipe ART 0.3.6 replaced the sleep-mode allocator's methods this way
(`allocator = CuMemAllocator.get_instance()` then `allocator.wake_up = wake_up`, a closure taking
nothing); vLLM 0.8.5's worker calls `allocator.wake_up(tags=tags)`, and every training step with
sleep mode on raised TypeError.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, src

ALLOCATOR_BEFORE = """
    class Allocator:
        instance = None

        @staticmethod
        def get_instance() -> "Allocator":
            if Allocator.instance is None:
                Allocator.instance = Allocator()
            return Allocator.instance

        def sleep(self, offload_tags=None):
            pass

        def wake_up(self):
            pass
    """
ALLOCATOR_AFTER = ALLOCATOR_BEFORE.replace("def wake_up(self):", "def wake_up(self, tags=None):")
WORKER_BEFORE = """
    from gizmo.allocator import Allocator


    class Worker:
        def sleep(self, level=1):
            Allocator.get_instance().sleep(offload_tags=("weights",))

        def resume(self):
            allocator = Allocator.get_instance()
            allocator.wake_up()
    """
WORKER_AFTER = """
    from gizmo.allocator import Allocator


    class Worker:
        def sleep(self, level=1):
            Allocator.get_instance().sleep(offload_tags=("weights",))

        def resume(self, tags=None):
            allocator = Allocator.get_instance()
            allocator.wake_up(tags=tags)
    """
BEFORE = {"gizmo/allocator.py": ALLOCATOR_BEFORE, "gizmo/worker.py": WORKER_BEFORE}
AFTER = {"gizmo/allocator.py": ALLOCATOR_AFTER, "gizmo/worker.py": WORKER_AFTER}

CONSUMER = """
    from gizmo.allocator import Allocator


    def patch_allocator():
        allocator = Allocator.get_instance()

        def sleep(offload_tags=None):
            pass

        def wake_up():
            pass

        allocator.sleep = sleep
        allocator.wake_up = wake_up
    """


def _case(consumer: str) -> Case:
    return Case("instance-functions", BEFORE, AFTER, {"app/__init__.py": "", "app/patches.py": consumer})


def test_a_function_set_on_a_target_object_must_take_what_the_target_now_passes(tmp_path):
    findings = [f for f in findings_of(tmp_path, _case(CONSUMER)) if f.rule_id == "DRIFT070"]
    (f,) = findings
    assert f.severity.value == "breaking"
    assert f.consumer_site.line == line_of(src(CONSUMER), "def wake_up")
    assert "Allocator.wake_up" in f.title
    # the fix adds the new parameter to the function as written: no `self` is invented
    assert f.fix.codemod == "add_parameters" and [p[0] for p in f.fix.args["params"]] == ["tags"]


def test_a_function_that_already_takes_it_is_silent(tmp_path):
    consumer = CONSUMER.replace("def wake_up():", "def wake_up(tags=None):")
    assert not [f for f in findings_of(tmp_path, _case(consumer)) if f.rule_id == "DRIFT070"]
