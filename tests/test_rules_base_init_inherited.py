"""DRIFT075 through inherited methods (synthetic before/after pairs): a subclass whose `__init__`
never runs the base `__init__`, where a base method the subclass inherits (not overrides) and
that runs on its objects now reads state only the base `__init__` sets."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import Case, assert_findings, consumer_of, facts_of, findings_of, line_of, raised_by, write_tree

POOL_BEFORE = """
    class Pool:
        def __init__(self, n):
            self.n = n
            self.blocks = list(range(n))

        def cache(self, block):
            self._insert(block)

        def _insert(self, block):
            self.blocks.append(block)

        def reset(self):
            self.blocks = []
    """
POOL_AFTER = """
    class Pool:
        def __init__(self, n):
            self.n = n
            self.blocks = list(range(n))
            self.by_block = {}
            self.unused_state = 0

        def cache(self, block):
            self._insert(block)

        def _insert(self, block):
            self.blocks.append(block)
            self.by_block.setdefault(block, set())

        def reset(self):
            self.blocks = []
            self.unused_state = 1

        def never_called_here(self):
            return self.unused_state
    """
ENGINE = """
    from gizmo.pool import Pool

    def step(pool: Pool, block):
        pool.cache(block)
    """
MINE = """
    from gizmo.pool import Pool


    class MyPool(Pool):
        def __init__(self, n):
            self.n = n
            self.blocks = []

        def use(self, block):
            self.cache(block)
    """


def _case(mine=MINE, before=POOL_BEFORE, after=POOL_AFTER):
    lib = {"gizmo/pool.py": before, "gizmo/engine.py": ENGINE}
    new = {"gizmo/pool.py": after, "gizmo/engine.py": ENGINE}
    return Case("inherited", lib, new, {"app/__init__.py": "", "app/mine.py": mine})


def test_inherited_method_reading_state_only_the_skipped_init_sets(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT075", line_of(MINE, "def __init__"))])
    f = findings[0]
    assert f.symbol == "gizmo.pool.Pool.by_block" and f.severity.value == "breaking"
    assert "inherited `Pool._insert`" in f.title
    assert f.target_evidence[0].line == line_of(POOL_AFTER, "self.by_block.setdefault")
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "MyPool(2).use(5)") == f.predicted_failure
    # `unused_state` is read only by `reset` (which the engine never calls by name) and by a
    # method nothing calls: no finding for it


def test_no_finding_when_the_subclass_overrides_the_reader_sets_the_state_or_runs_the_base_init(tmp_path):
    overrides = MINE + """
        def _insert(self, block):
            self.blocks.append(block)
    """
    sets = MINE.replace("self.blocks = []", "self.blocks = []\n            self.by_block = {}")
    runs = MINE.replace("self.blocks = []", "super().__init__(n)")
    for i, mine in enumerate((overrides, sets, runs)):
        assert_findings(findings_of(tmp_path / str(i), _case(mine)), [])


def test_no_finding_when_the_baseline_inherited_code_already_read_it(tmp_path):
    before = POOL_AFTER.replace("self.unused_state = 0\n", "")
    before = before.replace("self.unused_state = 1\n", "").replace("return self.unused_state", "return None")
    assert "by_block.setdefault" in before
    assert_findings(findings_of(tmp_path, _case(before=before)), [])


def test_reader_reached_only_through_the_target_calling_it_by_name(tmp_path):
    """No consumer call at all: the target's own `pool.cache(block)` reaches `_insert`."""
    mine = MINE.replace("    def use(self, block):\n        self.cache(block)\n", "")
    findings = findings_of(tmp_path, _case(mine))
    assert_findings(findings, [("DRIFT075", line_of(mine, "def __init__"))])
    engine_only = POOL_AFTER.replace("def cache(self, block):", "def store(self, block):")
    assert_findings(findings_of(tmp_path / "nobody", _case(mine, before=POOL_BEFORE.replace(
        "def cache(self, block):", "def store(self, block):"), after=engine_only)), [])


def test_a_bare_annotation_in_a_base_does_not_stand_for_the_skipped_state(tmp_path):
    """`by_block: dict` in a protocol the base extends declares the attribute, it creates no class
    attribute: an instance whose base `__init__` never ran still has no `by_block`."""
    after = POOL_AFTER.replace("    class Pool:", "    class PoolProtocol:\n        by_block: dict\n        n: int\n\n"
                                                 "    class Pool(PoolProtocol):", 1)
    findings = findings_of(tmp_path, _case(after=after))
    assert_findings(findings, [("DRIFT075", line_of(MINE, "def __init__"))])
    assert findings[0].symbol == "gizmo.pool.Pool.by_block"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "MyPool(2).use(5)") == \
        findings[0].predicted_failure


# -- a grandparent's `__init__` called by name skips the parent's; the parent's implementation of its
# base's method is called through that base (nothing names the receiver after the parent) -------------
METHOD_BEFORE = """
    class MethodBase:
        def __init__(self, moe):
            self.moe = moe

        def create(self, layer):
            raise NotImplementedError


    class Fp8Method(MethodBase):
        def __init__(self, config, moe):
            super().__init__(moe)
            self.block = config

        def create(self, layer):
            return [self.block]


    def build(quant_method: MethodBase, layer):
        return quant_method.create(layer)
    """
METHOD_AFTER = METHOD_BEFORE.replace("""            self.block = config
""", """            self.block = config
            self.block_shape = (config, config)
""").replace("return [self.block]", "return [self.block, self.block_shape]")
GRANDPARENT = """
    from gizmo.quant import Fp8Method, MethodBase


    class MyFp8Method(Fp8Method):
        def __init__(self, config, moe):
            MethodBase.__init__(self, moe)
            self.block = config
    """


def test_a_grandparents_init_called_by_name_skips_the_parents(tmp_path):
    case = Case("grandparent-init", {"gizmo/quant.py": METHOD_BEFORE}, {"gizmo/quant.py": METHOD_AFTER},
                {"app/mine.py": GRANDPARENT})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT075", line_of(GRANDPARENT, "def __init__"))])
    assert "`block_shape`" in found[0].title and "Fp8Method.create" in found[0].title
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    run = "__import__('gizmo.quant').quant.build(MyFp8Method(2, None), None)"
    assert raised_by(roots("before"), "app.mine", run) is None
    assert raised_by(roots("after"), "app.mine", run) == found[0].predicted_failure
    # the parent's own `__init__` called by name runs what it sets: silent
    parent = GRANDPARENT.replace("MethodBase.__init__(self, moe)", "Fp8Method.__init__(self, config, moe)")
    case2 = Case("parent-init", case.before, case.after, {"app/mine.py": parent})
    assert_findings(findings_of(tmp_path / "parent", case2), [])


def test_a_reader_the_subclass_hands_on_as_a_bound_method_runs(tmp_path):
    """`{"weight_loader": self.weight_loader}` handed to another object (vllm-ascend's
    AscendFusedMoE, whose `super(FusedMoE, self).__init__()` skips FusedMoE's): vLLM's loader
    calls it later, so the state it now reads is likely needed (risky: the holder decides whether it
    runs). `reset`, never handed on nor called, stays quiet."""
    mine = MINE.replace("def use(self, block):\n            self.cache(block)",
                        "def hooks(self):\n            return {\"loader\": self._insert}")
    assert "hooks" in mine
    after = POOL_AFTER.replace("def cache(self, block):", "def store(self, block):")
    before = POOL_BEFORE.replace("def cache(self, block):", "def store(self, block):")
    findings = findings_of(tmp_path, _case(mine, before=before, after=after))
    assert_findings(findings, [("DRIFT075", line_of(mine, "def __init__"))])
    assert findings[0].symbol == "gizmo.pool.Pool.by_block" and "inherited `Pool._insert`" in findings[0].title
    assert findings[0].severity.value == "risky"  # whoever holds the bound method decides whether it runs
    run = "(lambda p: p.hooks()['loader'](5))(MyPool(2))"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", run) == findings[0].predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", run) is None


MODEL_BEFORE = """
    class DeepseekForCausalLM:
        def __init__(self, config):
            self.config = config
            self.layers = []

        def load_weights(self, weights):
            return [w for w in weights if w in self.layers]
    """
MODEL_AFTER = """
    class DeepseekForCausalLM:
        def __init__(self, config):
            self.config = config
            self.layers = []
            self.num_redundant_experts = 0

        def load_weights(self, weights):
            physical = len(self.layers) + self.num_redundant_experts
            return [w for w in weights if w in self.layers][:physical]
    """
LOADER = """
    def load_model(model_class, config, weights):
        model = model_class(config)
        model.load_weights(weights)
        return model
    """
CUSTOM_MODEL = """
    from gizmo.models import DeepseekForCausalLM


    class CustomDeepseekForCausalLM(DeepseekForCausalLM):
        def __init__(self, config):
            self.config = config
            self.layers = []
    """


def test_a_model_class_whose_weights_the_targets_loader_loads(tmp_path):
    """vllm-ascend 0.9.1rc1's CustomDeepseekV2ForCausalLM skips DeepseekV2ForCausalLM.__init__; vLLM
    0.9.2's loader calls `model.load_weights(...)`, whose inherited body now reads
    `num_redundant_experts`. vLLM names the model it loads `model`, whatever its class."""
    after = facts_of(write_tree(tmp_path / "after", {"gizmo/models.py": MODEL_AFTER, "gizmo/loader.py": LOADER}))
    before = facts_of(write_tree(tmp_path / "before", {"gizmo/models.py": MODEL_BEFORE, "gizmo/loader.py": LOADER}))
    for facts, side in ((after, "after"), (before, "before")):  # the releases' files at hand, as a check has them
        facts["target"] = {"root": str(tmp_path / side)}
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/__init__.py": "", "app/custom.py": CUSTOM_MODEL}))
    findings = check(consumer=cons, target_facts=after, baseline_facts=before, target_package="gizmo").report.findings
    assert_findings(findings, [("DRIFT075", line_of(CUSTOM_MODEL, "def __init__"))])
    assert "num_redundant_experts" in findings[0].title and "load_weights" in findings[0].title
    run = "__import__('gizmo.loader').loader.load_model(__import__('app.custom').custom.CustomDeepseekForCausalLM, {}, [])"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.custom", run) == findings[0].predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.custom", run) is None
