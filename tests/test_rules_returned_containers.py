"""DRIFT061 on what a call returns: a method that returned a list now returns one object without
iteration (vLLM 0.9's `KVCacheManager.allocate_slots` went from `list[KVCacheBlock]` to
`KVCacheBlocks`), and the consumer loops over the result, in a comprehension or a `for` statement
(vllm-ascend 0.8.5rc1's scheduler). A result that was never a container is not this rule's."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/mgr.py": """
    class Block:
        block_id = 0


    class Manager:
        def allocate_slots(self, request, n) -> list[Block]:
            return [Block()]

        def stats(self) -> Block:
            return Block()
    """}
AFTER = {"gizmo/mgr.py": """
    class Block:
        block_id = 0


    class Blocks:
        def get_block_ids(self):
            return [0]


    class Manager:
        def allocate_slots(self, request, n) -> Blocks:
            return Blocks()

        def stats(self) -> Blocks:
            return Blocks()
    """}
CONSUMER = """
    from gizmo.mgr import Manager


    class Sched:
        def __init__(self):
            self.kv_cache_manager = Manager()

        def step(self, req):
            new_blocks = self.kv_cache_manager.allocate_slots(req, 1)
            ids = [b.block_id for b in new_blocks]
            for b in self.kv_cache_manager.allocate_slots(req, 2):
                ids.append(b)
            return ids

        def seen(self):
            for s in self.kv_cache_manager.stats():
                return s
    """


def test_looping_over_a_call_result_that_is_no_longer_a_container(tmp_path):
    found = findings_of(tmp_path, Case("ret", BEFORE, AFTER, {"app/__init__.py": "", "app/s.py": CONSUMER}))
    # `stats()` returned one Block on the baseline already: iterating it failed there too
    assert_findings(found, [("DRIFT061", line_of(CONSUMER, "[b.block_id for b in new_blocks]")),
                            ("DRIFT061", line_of(CONSUMER, "for b in self.kv_cache_manager.allocate_slots"))])
    assert all("`allocate_slots()` now returns one `Blocks`" in f.title for f in found)
    run = "__import__('app.s').s.Sched().step(None)"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.s", run) == found[0].predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.s", run) is None


def test_a_loop_over_a_removed_methods_result_is_reported_once_at_the_call(tmp_path):
    """vllm-rbln: `regions = topo.get_transfer_cache_regions(...)`, then `for r in regions:` -- the
    method is gone; the loop line is no second place of that break."""
    after = {"gizmo/mgr.py": AFTER["gizmo/mgr.py"].replace("def allocate_slots(self, request, n)", "def allocate(self, request, n)")}
    consumer = CONSUMER.replace("ids = [b.block_id for b in new_blocks]\n", "ids = []\n")
    found = findings_of(tmp_path, Case("gone", BEFORE, after, {"app/__init__.py": "", "app/s.py": consumer}))
    assert sorted((f.rule_id, f.consumer_site.line) for f in found) == [
        ("DRIFT060", line_of(consumer, "new_blocks = self.kv_cache_manager.allocate_slots")),
        ("DRIFT060", line_of(consumer, "for b in self.kv_cache_manager.allocate_slots"))]
