"""Arguments followed through `*args` / `**kwargs` passed on whole (DRIFT015/016), branches
narrowed by `assert isinstance` and early exits, stub overrides and attributes the consumer
attaches itself (synthetic before/after pairs; predicted failures held to Python's own)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by, src, write_tree

BEFORE = {
    "gizmo/batch.py": """
        class Batch:
            def __init__(self, size, device, pin_memory=False, vocab=0):
                self.size = size
        """,
    "gizmo/manager.py": """
        class Manager:
            def __init__(self, config, max_len, enable=True, metrics=None):
                self.config = config
        """,
    "gizmo/kv.py": """
        class KVManager:
            def __init__(self, spec, pool, group_id):
                self.spec = spec

        REGISTRY = {}

        def get_manager(spec, max_tokens, **kwargs) -> KVManager:
            manager_class = REGISTRY.get(type(spec), KVManager)
            manager = manager_class(spec, **kwargs)
            return manager
        """,
}
AFTER = {
    "gizmo/batch.py": """
        class Batch:
            def __init__(self, size, device, vocab=0):
                self.size = size
        """,
    "gizmo/manager.py": """
        class Manager:
            def __init__(self, config, max_len, block_size, enable=True, metrics=None):
                self.config = config
        """,
    "gizmo/kv.py": """
        class KVManager:
            def __init__(self, spec, pool, group_id, block_size):
                self.spec = spec

        REGISTRY = {}

        def get_manager(spec, max_tokens, **kwargs) -> KVManager:
            manager_class = REGISTRY.get(type(spec), KVManager)
            manager = manager_class(spec, **kwargs)
            return manager
        """,
}

MINE = """
    from gizmo.batch import Batch
    from gizmo.manager import Manager


    class MyBatch(Batch):
        def __init__(self, *args, **kwargs):
            fast = kwargs.pop("fast")
            super().__init__(*args, **kwargs)
            self.fast = fast


    class MyManager(Manager):
        def __init__(self, config, max_len, sub=1, **kwargs):
            super().__init__(config=config, max_len=max_len, **kwargs)
            self.sub = sub


    class OpaqueManager(Manager):
        def __init__(self, config, **kwargs):
            kwargs.update(extra())
            super().__init__(config, **kwargs)


    def extra():
        return {"max_len": 1}
    """
USE = """
    from app.mine import MyBatch, MyManager, OpaqueManager
    from gizmo.manager import Manager


    def build() -> tuple[object, Manager, Manager]:
        batch = MyBatch(
            size=4,
            device="cpu",
            pin_memory=True,
            fast=True,
        )
        manager = MyManager(config=None, max_len=8, sub=2, enable=False)
        other = OpaqueManager(None)
        return batch, manager, other
    """
FACTORY = """
    from gizmo.kv import get_manager


    def managers(spec, pool):
        return [get_manager(spec=spec, max_tokens=8, pool=pool, group_id=i) for i in range(2)]


    def with_size(spec, pool):
        return get_manager(spec, 8, pool=pool, group_id=0, block_size=16)
    """


def test_keywords_through_a_pass_through_init_and_super_kwargs(tmp_path):
    case = Case("forwarded", BEFORE, AFTER, {"app/mine.py": MINE, "app/use.py": USE})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT015", line_of(USE, "pin_memory=True")),
                            ("DRIFT016", line_of(MINE, "super().__init__(config=config"))])
    removed = only(found, "DRIFT015")
    assert removed.consumer_site.path.endswith("app/use.py")  # where the keyword is written
    assert "MyBatch.__init__" in removed.title and "`Batch`" in removed.title
    required = only(found, "DRIFT016")
    assert required.consumer_site.path.endswith("app/mine.py") and "block_size" in required.title
    # the predictions are what Python raises when the consumer's code runs on the target
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.use", "build()") == removed.predicted_failure
    fixed = src(USE).replace("pin_memory=True,", "")
    write_tree(tmp_path / "fixed", {"app/use.py": fixed, "app/mine.py": MINE})
    assert raised_by([tmp_path / "after", tmp_path / "fixed"], "app.use", "build()") == required.predicted_failure
    # on the baseline the same calls run
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.use", "build()") is None


def test_popped_and_given_keywords_are_not_reported(tmp_path):
    use = """
        from app.mine import MyBatch, MyManager
        from gizmo.manager import Manager


        def build() -> tuple[object, Manager]:
            return MyBatch(4, "cpu", fast=False), MyManager(None, 8, block_size=16)
        """
    case = Case("forwarded-ok", BEFORE, AFTER, {"app/mine.py": MINE, "app/use.py": use})
    assert_findings(findings_of(tmp_path, case), [])


def test_keywords_through_a_target_factory_into_the_class_it_returns(tmp_path):
    case = Case("factory", BEFORE, AFTER, {"app/use.py": FACTORY})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT016", line_of(FACTORY, "return [get_manager("))])
    f = only(found, "DRIFT016")
    assert "KVManager" in f.title and "block_size" in f.title
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.use", "managers(1, 2)") == f.predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.use", "managers(1, 2)") is None


PROPOSERS_BEFORE = {
    "gizmo/spec.py": """
        class Ngram:
            def propose(self, tokens, lens, ids):
                return tokens

        class Suffix:
            def propose(self, batch, sampled):
                return sampled

        class Medusa:
            def propose(self, hidden, meta):
                return hidden
        """,
    "gizmo/caller.py": """
        class Runner:
            def run(self, impl, q):
                return impl.forward_mha(q, q, output=q)

        class Impl:
            def forward_mha(self, q, k, output):
                return q
        """,
    "gizmo/seq.py": """
        class Tensors:
            def __init__(self, tensors, extra=None):
                self.tensors = tensors
                self.extra = extra
        """,
}
PROPOSERS_AFTER = {
    "gizmo/spec.py": """
        class Ngram:
            def propose(self, n, tokens, lens, ids):
                return tokens

        class Suffix:
            def propose(self, n, batch, sampled):
                return sampled

        class Medusa:
            def propose(self, n, hidden, meta):
                return hidden
        """,
    "gizmo/caller.py": """
        class Runner:
            def run(self, impl, q):
                return impl.forward_mha(q, q, output=q, output_scale=None)

        class Impl:
            def forward_mha(self, q, k, output, output_scale=None):
                return q
        """,
    "gizmo/seq.py": """
        class Tensors:
            def __init__(self, tensors):
                self.tensors = tensors
        """,
}
RUNNER = """
    from gizmo.spec import Medusa, Ngram, Suffix


    class MyMedusa(Medusa):
        def propose(self, hidden, meta):
            return hidden


    class MyRunner:
        def __init__(self, method):
            self.drafter: MyMedusa | Ngram | Suffix
            if method == "ngram":
                self.drafter = Ngram()
            elif method == "suffix":
                self.drafter = Suffix()
            else:
                self.drafter = MyMedusa()

        def draft(self, method, batch, sampled):
            if method == "ngram":
                assert isinstance(self.drafter, Ngram)
                return self.drafter.propose(sampled, 1, 2)
            if method == "suffix":
                assert isinstance(self.drafter, Suffix)
                return self.drafter.propose(batch, sampled)
            assert isinstance(self.drafter, MyMedusa)
            return self.drafter.propose(batch, sampled)

        def early(self, drafter):
            if not isinstance(drafter, MyMedusa):
                raise TypeError("medusa only")
            return drafter.propose(1, 2)

        def either(self, drafter):
            assert isinstance(drafter, (MyMedusa, Suffix))
            return drafter.propose(1, 2)
    """


def test_assert_isinstance_and_early_exits_narrow_attributes_and_names(tmp_path):
    case = Case("narrow", PROPOSERS_BEFORE, PROPOSERS_AFTER, {"app/runner.py": RUNNER})
    found = findings_of(tmp_path, case)
    ngram = line_of(RUNNER, "self.drafter.propose(sampled, 1, 2)")
    suffix = line_of(RUNNER, "self.drafter.propose(batch, sampled)", 1)
    either = line_of(RUNNER, "return drafter.propose(1, 2)", 2)
    got = sorted((f.consumer_site.line, f.symbol) for f in found if f.severity.value == "breaking")
    # each call is checked against the class its assert names: the consumer's own Medusa
    # subclass (the last branch, `early`) is never taken for Suffix or Ngram
    assert got == sorted({(ngram, "gizmo.spec.Ngram.propose"), (suffix, "gizmo.spec.Suffix.propose"),
                          (either, "gizmo.spec.Suffix.propose")}), [f"{f.rule_id} {f.consumer_site} {f.title}" for f in found]


def test_a_stub_override_that_only_raises_is_not_a_new_failure(tmp_path):
    stub = """
        from gizmo.caller import Impl


        class Mine(Impl):
            def forward_mha(self, q, k, output):
                raise NotImplementedError("this backend calls forward() directly")


        class Real(Impl):
            def forward_mha(self, q, k, output):
                return q
        """
    case = Case("stub", PROPOSERS_BEFORE, PROPOSERS_AFTER, {"app/impl.py": stub})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT070", line_of(stub, "def forward_mha", 2))])


def test_an_attribute_the_consumer_attaches_itself_is_risky_not_breaking(tmp_path):
    """`out.extra = ...` on a target object: the read finds the consumer's own value where that
    store runs first, which drift cannot order, so the read is reported risky with the store as
    the reason (drift/analysis/consumer_set.py), never dropped; without the store it breaks."""
    worker = """
        from gizmo.seq import Tensors


        def produce(x):
            out = Tensors({"h": x})
            out.extra = {"sent": 1}
            return out


        def consume(out: Tensors, other: Tensors):
            return out.extra, other.tensors
        """
    gone = """
        from gizmo.seq import Tensors


        def consume(out: Tensors):
            return out.extra
        """
    case = Case("attached", PROPOSERS_BEFORE, PROPOSERS_AFTER, {"app/worker.py": worker})
    attached = [f for f in findings_of(tmp_path / "a", case) if f.rule_id == "DRIFT060"]
    assert [(f.consumer_site.line, f.severity.value) for f in attached] == [(line_of(worker, "return out.extra"), "risky")]
    assert f"sets `extra` on the `Tensors` itself (app/worker.py:{line_of(worker, 'out.extra =')})" in attached[0].title
    case = Case("not-attached", PROPOSERS_BEFORE, PROPOSERS_AFTER, {"app/worker.py": gone})
    assert_findings(findings_of(tmp_path / "b", case), [("DRIFT060", line_of(gone, "return out.extra"))])


ENGINE_BEFORE = {"gizmo/engine.py": """
    from dataclasses import dataclass


    @dataclass
    class EngineArgs:
        model: str
        num_steps: int = 1
        seed: int = 0


    class Runner:
        def __init__(self, model, **kwargs):
            if "seed" not in kwargs:
                kwargs["seed"] = 1
            self.args = EngineArgs(model=model, **kwargs)
    """}
ENGINE_AFTER = {"gizmo/engine.py": ENGINE_BEFORE["gizmo/engine.py"].replace("        num_steps: int = 1\n", "")}
ENGINE_USER = """
    from gizmo.engine import Runner


    def start():
        return Runner(
            "m",
            num_steps=4,
            seed=3,
        )
    """


def test_keywords_through_a_target_constructor_into_the_class_its_init_builds(tmp_path):
    """`Runner(..., num_steps=4)`: the target's `Runner.__init__(self, model, **kwargs)` hands its
    keywords to `EngineArgs(model=model, **kwargs)`, which no longer has `num_steps`."""
    found = findings_of(tmp_path, Case("ctor-forward", ENGINE_BEFORE, ENGINE_AFTER, {"app/run.py": ENGINE_USER}))
    assert_findings(found, [("DRIFT015", line_of(ENGINE_USER, "num_steps=4"))])
    f = only(found, "DRIFT015")
    assert "EngineArgs" in f.title and "Runner" in f.title
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.run", "start()") == f.predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.run", "start()") is None


REHOMED_BEFORE = {"gizmo/abstract.py": """
    from dataclasses import dataclass


    @dataclass
    class StoreOutput:
        hashes_to_store: list
        spec: object
        hashes_evicted: list
    """}
REHOMED_AFTER = {"gizmo/base.py": """
    from dataclasses import dataclass


    @dataclass
    class StoreOutput:
        keys_to_store: list
        spec: object
        evicted_keys: list
    """}
REHOMED = """
    from gizmo.abstract import StoreOutput


    def prepare(hashes):
        return StoreOutput(
            hashes_to_store=list(hashes),
            spec=None,
            hashes_evicted=[],
        )
    """


def test_a_call_of_a_class_whose_module_went_is_checked_against_its_one_new_home(tmp_path):
    """The module is gone and the class is defined once elsewhere with renamed fields (too changed
    to call it "moved"): fixing the import leads there, and the call then fails on its keywords."""
    found = findings_of(tmp_path, Case("rehomed", REHOMED_BEFORE, REHOMED_AFTER, {"app/store.py": REHOMED}))
    by_line = sorted((f.rule_id, f.consumer_site.line) for f in found if f.rule_id in ("DRIFT010", "DRIFT011"))
    assert ("DRIFT010", line_of(REHOMED, "hashes_to_store=list")) in by_line
    assert ("DRIFT010", line_of(REHOMED, "hashes_evicted=[]")) in by_line
    first = next(f for f in found if f.rule_id == "DRIFT010" and f.consumer_site.line == line_of(REHOMED, "hashes_to_store="))
    fixed = src(REHOMED).replace("from gizmo.abstract import", "from gizmo.base import")
    write_tree(tmp_path / "fixed", {"app/store.py": fixed})
    assert raised_by([tmp_path / "after", tmp_path / "fixed"], "app.store", "prepare([1])") == first.predicted_failure


def test_a_same_named_class_in_another_package_is_not_taken_for_the_gone_one(tmp_path):
    """Only a definition in the gone module's own package counts as its new home: a class of the
    same name elsewhere may be another object altogether, and its call is not judged."""
    elsewhere = {"gizmo/v2/outputs.py": REHOMED_AFTER["gizmo/base.py"]}
    found = findings_of(tmp_path, Case("elsewhere", REHOMED_BEFORE, elsewhere, {"app/store.py": REHOMED}))
    assert not [f for f in found if f.rule_id in ("DRIFT010", "DRIFT011")]
    assert [f.rule_id for f in found if f.consumer_site.line == line_of(REHOMED, "import StoreOutput")] == ["DRIFT001"]
