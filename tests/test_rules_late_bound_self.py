"""A value a consumer base stores from a call on `self` (`self.batch = self.build_batch()`), read
on an instance of its subclass: Python runs the subclass's override, so the value is what that
override returns (drift/analysis/paths.py `_late_bound`), not the base's abstract `-> BatchT`.
The call made through it is then checked against the target (DRIFT010/DRIFT011), and each
prediction is held to what the synthetic code raises."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

POOL_BEFORE = """
    class PoolMeta:
        def build_cursor(self, num_tokens, device):
            return (num_tokens, device)
    """
POOL_AFTER = """
    class PoolMeta:
        def build_cursor(self, num_tokens_np, device):
            return (num_tokens_np, device)
    """
RUNNERS = """
    from typing import Generic, TypeVar

    from gizmo.pool import PoolMeta

    BatchT = TypeVar("BatchT")


    class PoolBatch:
        def make_meta(self) -> PoolMeta:
            return PoolMeta()


    class OwnMeta:
        def build_cursor(self, num_tokens, device):
            return (num_tokens, device)


    class OwnBatch:
        def make_meta(self) -> OwnMeta:
            return OwnMeta()


    class BaseRunner(Generic[BatchT]):
        def __init__(self):
            self.batch = self.build_batch()

        def build_batch(self) -> BatchT:
            raise NotImplementedError


    class PoolRunner(BaseRunner[PoolBatch]):
        def build_batch(self) -> PoolBatch:
            return PoolBatch()

        def run(self):
            return self.batch.make_meta().build_cursor(num_tokens=3, device="cpu")


    class OwnRunner(BaseRunner[OwnBatch]):
        def build_batch(self) -> OwnBatch:
            return OwnBatch()

        def run(self):
            return self.batch.make_meta().build_cursor(num_tokens=3, device="cpu")
    """


def test_a_value_a_base_stores_from_self_is_the_subclass_overrides_return(tmp_path):
    line = line_of(RUNNERS, "build_cursor(num_tokens=3", 1)
    case = Case("late-bound-self", before={"gizmo/pool.py": POOL_BEFORE}, after={"gizmo/pool.py": POOL_AFTER},
                consumer={"app/runners.py": RUNNERS}, expected=[("DRIFT010", line), ("DRIFT011", line)])
    assert_findings(findings_of(tmp_path, case), case.expected)
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.runners", "PoolRunner().run()") == \
        "TypeError: PoolMeta.build_cursor() got an unexpected keyword argument 'num_tokens'"
    assert raised_by(roots, "app.runners", "OwnRunner().run()") is None  # its override returns its own batch
