"""Plugins that patch the target dynamically (synthetic before/after pairs): version-range
decorators of their own, bases and targets named by strings and `getattr`, reads with a fallback,
and subclasses whose `__init__` skips the base's."""

from __future__ import annotations

from drift.pipeline.run import check
from drift.model.targets import load_facts
from tests.rule_cases import Case, assert_findings, consumer_of, findings_of, line_of, only, raised_by, write_tree

POOL_BEFORE = """
    class Pool:
        def __init__(self, n, caching):
            self.n = n
            self.caching = caching
            self.hash_size = 16

        def cache_blocks(self, request, blocks, num_full):
            return blocks[:num_full]

    class Coordinator:
        def __init__(self, caching):
            self.caching = caching
            self.pool = Pool(4, caching)

    class Manager:
        def __init__(self, pool: Pool):
            self.pool = pool

        def save(self, request, blocks):
            self.pool.cache_blocks(request, blocks, 2)
    """
POOL_AFTER = """
    class Pool:
        def __init__(self, n, caching, hash_size):
            self.n = n
            self.caching = caching
            self.hash_size = hash_size

        def cache_blocks(self, request, blocks, num_full, block_mask=None):
            return blocks[:num_full]

    class Coordinator:
        def __init__(self, caching):
            self.pool = Pool(4, caching, 16)

    class Manager:
        def __init__(self, pool: Pool):
            self.pool = pool

        def save(self, request, blocks, mask):
            size = self.pool.hash_size
            self.pool.cache_blocks(request, blocks, 2, block_mask=mask)
            return size
    """

# the patch-registry style: the target module is named by a string, classes fetched with getattr
REGISTRY = """
    import importlib
    import types

    V1_RANGE = ">=1.0,<2.0"
    OLD_RANGE = ">=0.1,<0.5"

    def version_range(spec):
        def deco(fn):
            fn.spec = spec
            return fn
        return deco

    class PoolPatch:
        target_module = "gizmo.pool"

        def apply(self, mod: types.ModuleType) -> bool:
            return self.inject(mod)

        @version_range(V1_RANGE)
        def inject(self, mod: types.ModuleType) -> bool:
            Pool = getattr(mod, "Pool")

            class ElasticPool(Pool):
                def __init__(self, n, caching):
                    self.n = n
                    self.caching = caching

                def cache_blocks(self, request, blocks, num_full):
                    return []

            setattr(mod, "ElasticPool", ElasticPool)
            return True

        @version_range(OLD_RANGE)
        def old_inject(self, mod: types.ModuleType) -> bool:
            Pool = getattr(mod, "Pool")

            def _patched(self, request, blocks, num_full):
                return []

            Pool.cache_blocks = _patched
            return True

    def setup(coordinator):
        enabled = getattr(coordinator, "caching", False)
        known = hasattr(coordinator, "pool")
        return enabled, known

    def install():
        setattr(importlib.import_module("gizmo.pool").Coordinator, "setup", setup)
    """


def _case(consumer, expected):
    return Case("dynamic", {"gizmo/pool.py": POOL_BEFORE}, {"gizmo/pool.py": POOL_AFTER},
                {"app/patches.py": consumer}, expected)


def _versioned(tmp_path, consumer: str, before: str, after: str, *, demand: bool = False):
    """Check with the trees given versions (the gates compare against them); `demand` reads the
    target as `drift check` does, sources at hand."""
    roots = {}
    facts = {}
    for side, text, version in (("before", POOL_BEFORE, before), ("after", POOL_AFTER, after)):
        # a tree no whole parse has stored yet (its own text), so demand really reads sources
        unique = f"# {tmp_path} {side}\n" if demand else ""
        roots[side] = write_tree(tmp_path / side, {"gizmo/__init__.py": unique, "gizmo/pool.py": text})
        loaded = load_facts(str(roots[side]), packages=["gizmo"], demand=demand)
        assert loaded.ok, loaded.error
        facts[side] = loaded.facts
        facts[side]["packages"]["gizmo"]["version"] = version
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/patches.py": consumer}))
    return check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"],
                 target_package="gizmo").report, roots


def test_gated_patch_outside_the_target_range_is_not_checked(tmp_path):
    """`old_inject` is gated to <0.5 by the consumer's own decorator (through a constant): its
    patch of cache_blocks never runs on 1.2, so its old signature is no finding; `inject` is
    gated to the target's range and its override is checked."""
    report, _ = _versioned(tmp_path, REGISTRY, "1.0", "1.2")
    ids = [(f.rule_id, f.consumer_site.line) for f in report.findings if f.severity.value == "breaking"]
    assert ("DRIFT070", line_of(REGISTRY, "def cache_blocks")) in ids
    assert not any(line == line_of(REGISTRY, "def _patched") for _, line in ids), ids
    assert any("skipped: on branches" in n for n in report.notes)


def test_gate_that_admits_the_target_keeps_the_records(tmp_path):
    """The same consumer on a target the old gate admits: the old patch is checked too."""
    report, _ = _versioned(tmp_path, REGISTRY.replace('OLD_RANGE = ">=0.1,<0.5"', 'OLD_RANGE = ">=0.1"'),
                           "1.0", "1.2")
    lines = {f.consumer_site.line for f in report.findings if f.rule_id == "DRIFT070"}
    assert line_of(REGISTRY, "def _patched") in lines


def test_subclass_of_a_class_fetched_by_getattr_from_a_string_named_module(tmp_path):
    """`Pool = getattr(mod, "Pool")` where `mod` is the module the patch class names in
    `target_module`: the nested subclass's override meets the target's new keyword."""
    found = findings_of(tmp_path, _case(REGISTRY.replace("@version_range(OLD_RANGE)", ""), []))
    over = [f for f in found if f.rule_id == "DRIFT070" and f.consumer_site.line == line_of(REGISTRY, "def cache_blocks")]
    assert over and over[0].severity.value == "breaking"
    assert "block_mask" in over[0].title
    # what Python does on the target with the consumer's override, called as the target calls it
    assert "unexpected keyword argument 'block_mask'" in (raised_by(
        [tmp_path / "after", tmp_path / "consumer"], "app.patches",
        "(lambda m: (PoolPatch().inject(m), m.ElasticPool(1, True).cache_blocks(None, [], 0, block_mask=None)))"
        "(__import__('gizmo.pool', fromlist=['x']))") or "")


def test_plain_string_that_is_not_a_module_types_nothing(tmp_path):
    """A string that names no module inside the target (`"gizmo"` alone is a label) does not
    type the parameter, so nothing is claimed about the nested class."""
    consumer = REGISTRY.replace('target_module = "gizmo.pool"', 'target_module = "gizmo"')
    found = findings_of(tmp_path, _case(consumer, []))
    assert not [f for f in found if f.consumer_site.line == line_of(REGISTRY, "def cache_blocks")]


def test_soft_reads_of_an_attribute_the_target_no_longer_sets(tmp_path):
    """`getattr(coordinator, "caching", False)` on a Coordinator (the function is copied onto it
    from a module fetched with importlib): the baseline set `caching`, the target does not, so
    the default silently applies: risky. `hasattr(coordinator, "pool")` still holds: nothing."""
    found = findings_of(tmp_path, _case(REGISTRY, []))
    f = only(found, "DRIFT065")  # the other findings are the overrides, tested above
    assert f.consumer_site.line == line_of(REGISTRY, 'getattr(coordinator, "caching", False)')
    assert f.severity.value == "risky"
    assert "always returns the default" in f.title and f.symbol == "gizmo.pool.Coordinator.caching"
    # Python agrees: no exception, the default comes back
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.patches",
                     "setup(__import__('gizmo.pool', fromlist=['x']).Coordinator(True))") is None


def test_hasattr_guard_makes_a_later_read_safe(tmp_path):
    """`if not hasattr(c, "caching"): return` then `getattr(c, "caching")`: the read is guarded,
    only the hasattr (now always False) is reported; an unguarded read elsewhere still breaks."""
    consumer = """
        from gizmo.pool import Coordinator

        def patch(c: Coordinator):
            if not hasattr(c, "caching"):
                return False
            return getattr(c, "caching")

        def read(c: Coordinator):
            return c.caching
        """
    found = findings_of(tmp_path, _case(consumer, []))
    by_rule = sorted((f.rule_id, f.consumer_site.line) for f in found)
    assert by_rule == sorted([("DRIFT065", line_of(consumer, "hasattr(c,")),
                              ("DRIFT060", line_of(consumer, "return c.caching"))]), by_rule


def test_subclass_that_skips_the_base_init_meets_a_new_read(tmp_path):
    """ElasticPool never calls Pool.__init__, so it has no `hash_size`; the target's Manager now
    reads `self.pool.hash_size` (the baseline read it only inside Pool): AttributeError."""
    consumer = REGISTRY.replace("@version_range(OLD_RANGE)", "")
    report, roots = _versioned(tmp_path, consumer, "1.0", "1.2", demand=True)
    f = only(report.findings, "DRIFT075")
    assert f.consumer_site.line == line_of(REGISTRY, "def __init__(self, n, caching)")
    assert f.severity.value == "breaking" and f.symbol == "gizmo.pool.Pool.hash_size"
    assert "'ElasticPool' object has no attribute 'hash_size'" in f.predicted_failure
    assert "'ElasticPool' object has no attribute 'hash_size'" in (raised_by(
        [roots["after"], tmp_path / "consumer"], "app.patches",
        "(lambda m: (PoolPatch().inject(m), m.Manager(m.ElasticPool(1, True)).save(None, [], None)))"
        "(__import__('gizmo.pool', fromlist=['x']))") or "")


def test_subclass_that_calls_the_base_init_or_sets_the_attribute_is_fine(tmp_path):
    for fix in ("self.n = n\n                    super().__init__(n, caching, 16)",
                "self.n = n\n                    self.hash_size = 16"):
        consumer = REGISTRY.replace("@version_range(OLD_RANGE)", "").replace("self.n = n", fix, 1)
        report, _ = _versioned(tmp_path / str(len(fix)), consumer, "1.0", "1.2", demand=True)
        assert not [f for f in report.findings if f.rule_id == "DRIFT075"], fix


def test_no_base_init_finding_when_the_baseline_already_read_it_outside(tmp_path):
    """The read is not new (the baseline's Manager read it too): the consumer already lived with it."""
    global POOL_BEFORE
    saved = POOL_BEFORE
    POOL_BEFORE = saved.replace("self.pool.cache_blocks(request, blocks, 2)",
                                "self.pool.cache_blocks(request, blocks, 2)\n            return self.pool.hash_size")
    try:
        report, _ = _versioned(tmp_path, REGISTRY.replace("@version_range(OLD_RANGE)", ""), "1.0", "1.2",
                               demand=True)
    finally:
        POOL_BEFORE = saved
    assert not [f for f in report.findings if f.rule_id == "DRIFT075"]
