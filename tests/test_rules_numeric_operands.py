"""DRIFT151: an inherited attribute the consumer does arithmetic on became a tuple (one block size
per KV-cache group): `size % self.gpu_block_size` and `size // self.gpu_block_size` raise
TypeError on the target; formatting it into a string, repeating it with `*` and arithmetic on an
attribute that stayed a number are silent."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

BEFORE = {"gizmo/spec.py": """
    class CacheConfig:
        def __init__(self):
            self.block_size: int = 16


    class Spec:
        def __init__(self, cfg: CacheConfig):
            self.gpu_block_size = cfg.block_size
            self.workers = 4
    """}
AFTER = {"gizmo/spec.py": """
    class CacheConfig:
        def __init__(self):
            self.block_size: int = 16


    class Spec:
        def __init__(self, cfg: CacheConfig):
            self.gpu_block_size: tuple[int, ...] = (cfg.block_size,)
            self.workers = 4
    """}
CONSUMER = {"app/__init__.py": "", "app/spec.py": """
    from gizmo.spec import Spec


    class MySpec(Spec):
        def __init__(self, cfg, size=256):
            super().__init__(cfg)
            assert size % self.gpu_block_size == 0
            self.per_file = size // self.gpu_block_size
            self.label = "blocks of %s" % self.gpu_block_size
            self.twice = self.gpu_block_size * 2
            self.rest = size - self.workers
    """}


def test_arithmetic_on_what_became_a_tuple_breaks_where_it_is_written(tmp_path):
    src = CONSUMER["app/spec.py"]
    found = [f for f in findings_of(tmp_path, Case("numeric", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT151"]
    assert sorted((f.consumer_site.line, f.severity.value) for f in found) == [
        (line_of(src, "assert size % self.gpu_block_size"), "breaking"),
        (line_of(src, "self.per_file = size // self.gpu_block_size"), "breaking")]
    assert found[0].title.startswith("`.gpu_block_size` is now a `tuple[int, ...]` on the target")
    got = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.spec",
                    "MySpec(__import__('gizmo.spec', fromlist=['x']).CacheConfig())")
    assert got is not None and got.startswith("TypeError: unsupported operand type(s) for %")
