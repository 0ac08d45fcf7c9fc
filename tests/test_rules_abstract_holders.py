"""An attribute typed as an abstract class (`create_request_queue() -> RequestQueue`, an `ABC`) holds
one of its concrete kinds: vLLM 0.9.2 made `Scheduler.waiting` a `RequestQueue`, and the default
kind is `FCFSRequestQueue(deque[Request], RequestQueue)`, which still indexes and `popleft`s
(vllm-ascend 0.9.1rc1: 20 false breaking findings). A concrete class that lost the member still
breaks."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = {"gizmo/sched.py": """
    from collections import deque


    class Scheduler:
        def __init__(self):
            self.waiting: deque = deque()
            self.done: deque = deque()
    """}
AFTER = {"gizmo/queue.py": """
    from abc import ABC, abstractmethod
    from collections import deque


    class RequestQueue(ABC):
        @abstractmethod
        def add_request(self, request):
            pass


    class FCFSRequestQueue(deque, RequestQueue):
        def add_request(self, request):
            self.append(request)


    class Finished:
        def add(self, request):
            pass


    def create_request_queue() -> RequestQueue:
        return FCFSRequestQueue()
    """,
         "gizmo/sched.py": """
    from gizmo.queue import Finished, create_request_queue


    class Scheduler:
        def __init__(self):
            self.waiting = create_request_queue()
            self.done = Finished()
    """}
CONSUMER = """
    from gizmo.sched import Scheduler


    class MyScheduler(Scheduler):
        def step(self):
            first = self.waiting[0]
            self.waiting.popleft()
            return first, self.done[0]
    """


def test_members_a_concrete_kind_of_an_abstract_holder_has_are_not_missing(tmp_path):
    found = findings_of(tmp_path, Case("abstract", BEFORE, AFTER, {"app/__init__.py": "", "app/s.py": CONSUMER}))
    # `done` became a concrete class without indexing: that still fails
    assert_findings(found, [("DRIFT061", line_of(CONSUMER, "self.done[0]"))])
