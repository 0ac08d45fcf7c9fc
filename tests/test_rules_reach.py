"""Typed reach: attributes on objects typed from the consumer's own code, overrides, abstract
methods, patches, saved originals and keywords through dicts (synthetic before/after pairs)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by, src, write_tree

RUNNER_BEFORE = """
    class Buffer:
        def __init__(self, n):
            self.np = [0] * n
            self.gpu = [0] * n

    class Batch:
        def __init__(self):
            self.req_ids = []

    class Runner:
        def __init__(self, cfg):
            self.cfg = cfg
            self.input_batch = Batch()
            self.input_ids = Buffer(4)
            self.kv_caches = []

        def execute_model(self, out, tensors=None):
            return out

        def load_model(self):
            self.model = object()

        def _dummy_run(self, num_tokens, skip=False):
            return num_tokens

        def old_hook(self):
            return 1

    def get_context() -> Runner:
        return Runner(None)

    class Engine:
        def step(self, runner, out):
            runner.load_model()
            return runner.execute_model(out)
    """
RUNNER_AFTER = """
    import abc
    import torch

    class Batch:
        def __init__(self):
            self.request_ids = []

    class Runner(abc.ABC):
        def __init__(self, cfg):
            self.cfg = cfg
            self.input_batch = Batch()
            self.input_ids = torch.zeros(4)
            self.kv_caches = []

        def execute_model(self, out, tensors=None, *, grammar):
            return out

        def load_model(self, load_config):
            self.model = object()

        def _dummy_run(self, num_tokens):
            return num_tokens

        @abc.abstractmethod
        def sample_tokens(self, grammar):
            ...

    def make_tensor(n):
        return [0] * n

    def get_context() -> Runner:
        return Runner(None)

    class Engine:
        def step(self, runner, out, cfg):
            runner.load_model(cfg)
            return runner.execute_model(out, grammar=None)
    """

SUBCLASS = """
    from gizmo.runner import Runner

    class Mine(Runner):
        def execute_model(self, out, tensors=None):
            ids = self.input_batch.req_ids
            first = self.input_ids.np[0]
            return ids, first

        def old_hook(self):
            return 2
    """


def _case(consumer, expected, *, after=RUNNER_AFTER, before=RUNNER_BEFORE):
    return Case("reach", {"gizmo/runner.py": before}, {"gizmo/runner.py": after},
                {"app/main.py": consumer}, expected)


def test_self_attributes_overrides_and_abstract_methods(tmp_path):
    case = _case(SUBCLASS, [
        ("DRIFT060", line_of(SUBCLASS, "self.input_batch.req_ids")),
        ("DRIFT061", line_of(SUBCLASS, "self.input_ids.np")),
        ("DRIFT070", line_of(SUBCLASS, "def execute_model")),
        ("DRIFT071", line_of(SUBCLASS, "class Mine")),
        ("DRIFT072", line_of(SUBCLASS, "def old_hook")),
    ])
    found = findings_of(tmp_path, case)
    assert_findings(found, case.expected)
    missing = only(found, "DRIFT060")
    assert missing.title.startswith("`Batch.req_ids` no longer exists; `request_ids` is new")
    text = src(SUBCLASS).splitlines()[line_of(SUBCLASS, "req_ids") - 1]
    assert missing.consumer_site.col == text.index("req_ids") + 1  # the attribute, not the statement
    assert only(found, "DRIFT070").severity.value == "breaking"  # grammar is required: callers pass it
    assert "sample_tokens" in only(found, "DRIFT071").predicted_failure


def test_predicted_attribute_errors_are_pythons_own(tmp_path):
    consumer = """
        from gizmo.runner import Runner

        def ids(runner: Runner):
            return runner.input_batch.req_ids
        """
    case = _case(consumer, [("DRIFT060", line_of(consumer, "req_ids"))])
    found = findings_of(tmp_path, case)
    assert_findings(found, case.expected)
    runnable = RUNNER_AFTER.replace("(abc.ABC)", "").replace("import torch", "").replace("torch.zeros(4)", "[0] * 4")
    after = write_tree(tmp_path / "real", {"gizmo/runner.py": runnable})
    app = write_tree(tmp_path / "realapp", {"app/main.py": consumer})
    real = raised_by([after, app], "app.main", "ids(Runner(None))")
    assert only(found, "DRIFT060").predicted_failure == real


def test_returned_objects_and_isinstance_narrowing(tmp_path):
    consumer = """
        from gizmo.runner import Runner, get_context

        def a():
            return get_context().input_batch.req_ids

        def b(obj):
            if isinstance(obj, Runner):
                return obj.input_batch.req_ids
            return obj.input_batch.req_ids
        """
    case = _case(consumer, [("DRIFT060", line_of(consumer, "get_context().input_batch")),
                            ("DRIFT060", line_of(consumer, "return obj.input_batch.req_ids"))])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_patches_saved_originals_and_dict_keywords(tmp_path):
    consumer = """
        from gizmo.runner import Runner

        _orig = Runner.execute_model

        def patched_load(self):
            return None

        def patched_run(self, out, tensors=None):
            kw = {"num_tokens": 1}
            kw["skip"] = True
            self._dummy_run(**kw)
            return _orig(self, out, tensors)

        Runner.load_model = patched_load
        Runner.execute_model = patched_run
        setattr(Runner, "old_hook", patched_load)
        """
    case = _case(consumer, [
        ("DRIFT010", line_of(consumer, 'kw["skip"]')),       # the key, where the keyword is written
        ("DRIFT011", line_of(consumer, "return _orig(")),    # the saved original, called unbound
        ("DRIFT070", line_of(consumer, "def patched_load")),  # load_config now passed by the target
        ("DRIFT070", line_of(consumer, "def patched_run")),   # grammar
        ("DRIFT080", line_of(consumer, "setattr(Runner")),
    ])
    found = findings_of(tmp_path, case)
    assert_findings(found, case.expected)
    kw = only(found, "DRIFT010")
    assert kw.predicted_failure == "TypeError: Runner._dummy_run() got an unexpected keyword argument 'skip'"


def test_helper_that_patches_types_the_patched_function(tmp_path):
    consumer_files = {
        "app/util.py": """
            def hijack(cls, name, fn):
                setattr(cls, name, fn)
            """,
        "app/main.py": """
            from gizmo.runner import Runner
            from app.util import hijack

            def load(self):
                return self.input_batch.req_ids

            hijack(Runner, "load_model", load)
            """,
    }
    case = Case("helper", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_AFTER}, consumer_files)
    found = findings_of(tmp_path, case)
    main = consumer_files["app/main.py"]
    assert_findings(found, [("DRIFT060", line_of(main, "req_ids")), ("DRIFT070", line_of(main, "def load"))])


def test_unknown_bases_and_dynamic_classes_are_not_guessed(tmp_path):
    before = RUNNER_BEFORE + """
    class Dyn:
        def __getattr__(self, name):
            return 1
    """
    after = RUNNER_AFTER + """
    import torch

    class Dyn:
        def __getattr__(self, name):
            return 1

    class Ext(torch.nn.Module):
        pass
    """
    consumer = """
        from gizmo.runner import Dyn, Ext

        def f(d: Dyn, e: Ext):
            return d.anything, e.weight
        """
    case = _case(consumer, [], before=before, after=after)
    assert_findings(findings_of(tmp_path, case), [])


def test_unchanged_target_is_clean(tmp_path):
    case = _case(SUBCLASS, [], after=RUNNER_BEFORE)
    assert_findings(findings_of(tmp_path, case), [])


def _checked_with_and_without_guards(tmp_path, consumer):
    """The consumer checked against gizmo 1.0 -> 2.0 (the runner pair above), then again with
    every import's version guards removed: what the guards alone keep silent."""
    from tests.rule_cases import facts_of, consumer_of
    from drift.pipeline.run import check

    before = {"gizmo/__init__.py": "__version__ = '1.0'\n", "gizmo/runner.py": RUNNER_BEFORE}
    after = {"gizmo/__init__.py": "__version__ = '2.0'\n", "gizmo/runner.py": RUNNER_AFTER}
    a = facts_of(write_tree(tmp_path / "after", after))
    a["packages"]["gizmo"]["version"] = "2.0"
    b = facts_of(write_tree(tmp_path / "before", before))
    b["packages"]["gizmo"]["version"] = "1.0"
    cons = consumer_of(write_tree(tmp_path / "consumer", consumer))
    report = check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report
    cons.usage[:] = [dict(m, imports=[dict(i, guards=[]) for i in m["imports"]]) for m in cons.usage]
    unguarded = check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report
    return report, unguarded


def test_branches_for_another_version_are_not_checked(tmp_path):
    """`if helper("1.0"):` where the helper compares the running version: the old branch's
    imports and calls are skipped on a 2.0 target; the branch for the target is still checked."""
    consumer = {
        "app/util.py": """
            import gizmo
            from packaging.version import Version

            def gizmo_version_is(v):
                return Version(gizmo.__version__) == Version(v)
            """,
        "app/main.py": """
            import gizmo
            from app.util import gizmo_version_is
            if gizmo_version_is("1.0"):
                from gizmo.runner import Buffer
            else:
                from gizmo.runner import Batch

            def f(r):
                if gizmo.__version__ >= "2.0":
                    return r
                from gizmo.runner import Buffer as B
                return B
            """,
    }
    report, unguarded = _checked_with_and_without_guards(tmp_path, consumer)
    main = consumer["app/main.py"]
    assert_findings(report.findings, [])
    assert_findings(unguarded.findings, [("DRIFT001", line_of(main, "from gizmo.runner import Buffer")),
                                         ("DRIFT001", line_of(main, "import Buffer as B"))])
    assert any("uses skipped" in n for n in report.notes)


def test_version_helpers_that_are_methods_guard_their_branches(tmp_path):
    """A version helper written as a staticmethod or a method (`self._version_ge("2.0")`,
    `self.is_old("2.0")`) is a version test as a module function is: the branch for the old
    release is skipped on the new target, and nothing in it is reported."""
    consumer = {
        "app/engine.py": """
            import gizmo
            from packaging import version

            class Engine:
                @staticmethod
                def _version_ge(base):
                    current = gizmo.__version__
                    if current is None or "dev" in current:
                        return True
                    return version.parse(current) >= version.parse(base)

                def is_old(self, v):
                    return version.parse(gizmo.__version__) < version.parse(v)

                def run(self):
                    if self._version_ge("2.0"):
                        return 1
                    from gizmo.runner import Buffer
                    return Buffer

                def run_old(self):
                    if self.is_old("2.0"):
                        from gizmo.runner import Buffer as B
                        return B
                    return None
            """,
    }
    report, unguarded = _checked_with_and_without_guards(tmp_path, consumer)
    engine = consumer["app/engine.py"]
    assert_findings(report.findings, [])
    assert_findings(unguarded.findings, [("DRIFT001", line_of(engine, "from gizmo.runner import Buffer")),
                                         ("DRIFT001", line_of(engine, "import Buffer as B"))])


def test_self_attribute_of_a_moved_base_with_a_mixin(tmp_path):
    """The base class moved (its import is reported) and lost an attribute its __init__ set:
    uses of `self.<attr>` are still checked, against the base where it lives now."""
    before = {"gizmo/serving.py": """
        class Serving:
            def __init__(self):
                self.parser = None

            def _tokenize(self, text):
                return text
        """}
    after = {"gizmo/engine/serving.py": """
        class Serving:
            def __init__(self):
                self.parser_cls = None

            def render(self, text):
                return text
        """, "gizmo/serving.py": "X = 1\n"}
    consumer = """
        from gizmo.serving import Serving

        class Mixin:
            def helper(self):
                return 1

        class Mine(Serving, Mixin):
            def go(self, text):
                self.helper()
                return self.parser, self._tokenize(text)
        """
    case = Case("moved-base", before, after, {"app/main.py": consumer})
    found = findings_of(tmp_path, case)
    line = line_of(consumer, "return self.parser")
    assert_findings(found, [("DRIFT002", line_of(consumer, "import Serving")), ("DRIFT060", "`Serving.parser`"),
                            ("DRIFT060", "`Serving._tokenize`")])
    assert {f.consumer_site.line for f in found if f.rule_id == "DRIFT060"} == {line}
    assert "'Mine' object has no attribute 'parser'" in [f.predicted_failure for f in found if "parser" in f.title][0]


def test_classes_the_target_builds_and_calls(tmp_path):
    """A scheduler subclass vLLM constructs itself (its `__init__` no longer accepts what the base
    is now given), a worker missing a new NotImplementedError method, a dataclass whose base
    gained an InitVar its `__post_init__` does not take."""
    before = {"gizmo/core.py": """
        from dataclasses import dataclass, InitVar

        class Scheduler:
            def __init__(self, config, log_stats=False):
                self.config = config

        class WorkerBase:
            def execute_model(self, out):
                raise NotImplementedError

        @dataclass
        class ModelConfig:
            model: str
            seed: InitVar[int] = 0

            def __post_init__(self, seed):
                pass
        """}
    after = {"gizmo/core.py": """
        from dataclasses import dataclass, InitVar

        class Scheduler:
            def __init__(self, config, block_size, log_stats=False):
                self.config = config

        class WorkerBase:
            def execute_model(self, out):
                raise NotImplementedError

            def sample_tokens(self, grammar):
                '''Called right after execute_model.'''
                raise NotImplementedError

        @dataclass
        class ModelConfig:
            model: str
            seed: InitVar[int] = 0
            revision: InitVar[str] = "main"

            def __post_init__(self, seed, revision):
                pass
        """}
    consumer = """
        from dataclasses import dataclass
        from gizmo.core import ModelConfig, Scheduler, WorkerBase

        class MyScheduler(Scheduler):
            def __init__(self, config, log_stats=False):
                super().__init__(config, log_stats=log_stats)

        class MyWorker(WorkerBase):
            def execute_model(self, out):
                return out

        @dataclass
        class MyConfig(ModelConfig):
            def __post_init__(self, seed):
                super().__post_init__(seed)
        """
    found = findings_of(tmp_path, Case("by-name", before, after, {"app/main.py": consumer}))
    assert_findings(found, [("DRIFT070", line_of(consumer, "def __init__")),
                            ("DRIFT011", line_of(consumer, "super().__init__")),
                            ("DRIFT071", line_of(consumer, "class MyWorker")),
                            ("DRIFT070", line_of(consumer, "def __post_init__")),
                            ("DRIFT011", line_of(consumer, "super().__post_init__"))])
    post = [f for f in found if "__post_init__" in f.title and f.rule_id == "DRIFT070"][0]
    assert post.predicted_failure == "TypeError: MyConfig.__post_init__() takes 2 positional arguments but 3 were given"


def test_a_method_the_base_newly_declares_is_checked_against_that_declaration(tmp_path):
    """The consumer's class already had `bitmask(requests, spec_tokens)`; the interface now
    declares `bitmask(scheduler_output)` and the engine calls it so."""
    before = {"gizmo/iface.py": """
        class SchedulerInterface:
            def schedule(self):
                raise NotImplementedError
        """}
    after = {"gizmo/iface.py": """
        class SchedulerInterface:
            def __init__(self, vllm_config, kv_cache_config, block_size, log_stats=False):
                pass

            def schedule(self):
                raise NotImplementedError

            def bitmask(self, scheduler_output):
                raise NotImplementedError

        def step(scheduler, output):
            return scheduler.bitmask(output)
        """}
    consumer = """
        from gizmo.iface import SchedulerInterface

        class Mine(SchedulerInterface):
            def __init__(self, vllm_config, kv_cache_config, log_stats=False):
                self.cfg = vllm_config

            def schedule(self):
                return []

            def bitmask(self, requests, spec_tokens):
                return None
        """
    found = findings_of(tmp_path, Case("declared", before, after, {"app/main.py": consumer}))
    assert_findings(found, [("DRIFT070", line_of(consumer, "def __init__")),
                            ("DRIFT070", line_of(consumer, "def bitmask"))])
    bitmask = [f for f in found if "bitmask" in f.title][0]
    assert bitmask.predicted_failure == "TypeError: Mine.bitmask() missing 1 required positional argument: 'spec_tokens'"
    app = write_tree(tmp_path / "realapp", {"app/main.py": consumer})
    lib = write_tree(tmp_path / "reallib", after)
    assert raised_by([lib, app], "app.main", "__import__('gizmo.iface').iface.step(Mine.__new__(Mine), object())") \
        == bitmask.predicted_failure
    init = [f for f in found if "__init__" in f.title][0]
    assert init.predicted_failure == "TypeError: Mine.__init__() got an unexpected keyword argument 'block_size'"


def test_parameters_typed_from_the_consumers_own_call_sites(tmp_path):
    """A helper object gets the runner from its constructor's call site (`Proposer(runner=self)`)
    and a helper function gets it positionally: both reach `input_batch.req_ids` through it."""
    consumer = {
        "app/proposer.py": """
            from gizmo.runner import Batch

            class Proposer:
                def __init__(self, cfg, runner=None):
                    self.runner = runner

                def propose(self):
                    return self.runner.input_batch.req_ids
            """,
        "app/main.py": """
            from gizmo.runner import Runner
            from app.proposer import Proposer

            def ids_of(r):
                return r.input_batch.req_ids

            class Mine(Runner):
                def go(self):
                    self.proposer = Proposer(None, runner=self)
                    return ids_of(self)
            """,
    }
    case = Case("sites", {"gizmo/runner.py": RUNNER_BEFORE}, {"gizmo/runner.py": RUNNER_AFTER}, consumer)
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT060"]
    assert sorted((f.consumer_site.path, f.consumer_site.line) for f in found) == [
        ("app/main.py", line_of(consumer["app/main.py"], "return r.input_batch")),
        ("app/proposer.py", line_of(consumer["app/proposer.py"], "req_ids")),
    ]


def test_lines_inside_a_test_that_already_raises_are_reported_risky_naming_the_test(tmp_path):
    """The body of `if <test>:` whose test already fails runs once the test is fixed, and fails
    then too: each of its uses is a finding of its own, risky, naming the test that masks it."""
    consumer = """
        from gizmo.runner import Runner

        def f(r: Runner):
            if r.input_batch.req_ids:
                return r.input_batch.req_ids
            return r.input_batch.req_ids

        def g(r: Runner, ok):
            return r.input_batch.req_ids if ok else None
        """
    test = line_of(consumer, "if r.input_batch")
    inside = line_of(consumer, "        return r.input_batch")
    case = _case(consumer, [("DRIFT060", test), ("DRIFT060", inside),
                            ("DRIFT060", line_of(consumer, "    return r.input_batch", 2)),
                            ("DRIFT060", line_of(consumer, "if ok else"))])
    found = findings_of(tmp_path, case)
    assert_findings(found, case.expected)
    by_line = {f.consumer_site.line: f for f in found}
    assert by_line[inside].severity.value == "risky"
    assert f"once the test at line {test} stops raising" in by_line[inside].predicted_failure
    assert all(f.severity.value == "breaking" for line, f in by_line.items() if line != inside)


def test_a_branch_of_a_conditional_expression_whose_test_fails_is_risky(tmp_path):
    consumer = """
        from gizmo.runner import Runner

        def f(r: Runner):
            return r.input_batch.req_ids[0] if r.input_batch.req_ids else r.cfg
        """
    case = _case(consumer, [("DRIFT060", line_of(consumer, "return r.input_batch"))])
    found = findings_of(tmp_path, case)
    assert_findings(found, case.expected)


def test_a_consumer_copy_of_a_removed_attribute_is_reported_once_where_it_is_read(tmp_path):
    consumer = """
        from gizmo.runner import Batch

        class Holder:
            def __init__(self, batch: Batch):
                self.ids = batch.req_ids

            def first(self):
                return self.ids[0] if self.ids else None
        """
    case = _case(consumer, [("DRIFT060", line_of(consumer, "batch.req_ids"))])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_attributes_set_conditionally_are_typed_by_their_value(tmp_path):
    before = RUNNER_BEFORE.replace("self.input_batch = Batch()", "self.input_batch = (Batch() if cfg else None)")
    after = RUNNER_AFTER.replace("self.input_batch = Batch()", "self.input_batch = cfg and Batch() or None")
    consumer = """
        from gizmo.runner import Runner

        def ids(runner: Runner):
            return runner.input_batch.req_ids
        """
    case = _case(consumer, [("DRIFT060", line_of(consumer, "req_ids"))], before=before, after=after)
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_an_override_whose_only_target_caller_the_consumer_also_replaces(tmp_path):
    before = {"gizmo/serving.py": """
        class Serving:
            def create(self, req):
                return self.stream(req, 1)

            def stream(self, req, n):
                return n
        """}
    after = {"gizmo/serving.py": """
        class Serving:
            def create(self, req):
                return self.stream(req, 1, None)

            def stream(self, req, n, parser=None):
                return n
        """}
    replaced = """
        from gizmo.serving import Serving

        class Mine(Serving):
            def create(self, req):
                return self.stream(req, 2)

            def stream(self, req, n):
                return n
        """
    assert_findings(findings_of(tmp_path / "a", Case("r", before, after, {"app/main.py": replaced})), [])
    kept = replaced.replace("def create", "def other")
    found = findings_of(tmp_path / "b", Case("k", before, after, {"app/main.py": kept}))
    assert_findings(found, [("DRIFT070", line_of(kept, "def stream"))])


def test_engine_arguments_applied_from_a_dict_with_setattr(tmp_path):
    before = {"gizmo/args.py": """
        class EngineArgs:
            def __init__(self):
                self.model = None
                self.disable_log_requests = False
        """}
    after = {"gizmo/args.py": """
        class EngineArgs:
            def __init__(self):
                self.model = None
                self.enable_log_requests = False
        """}
    consumer = """
        from gizmo.args import EngineArgs

        def build():
            args = EngineArgs()
            overrides = {"model": "m", "disable_log_requests": True}
            for key, value in overrides.items():
                setattr(args, key, value)
            args.disable_log_requests = False
            return args
        """
    found = findings_of(tmp_path, Case("setattr", before, after, {"app/main.py": consumer}))
    assert_findings(found, [("DRIFT062", line_of(consumer, '"disable_log_requests": True')),
                            ("DRIFT062", line_of(consumer, "args.disable_log_requests = False"))])
    assert all(f.severity.value == "risky" for f in found)


def test_objects_handed_back_by_the_consumers_own_factories_and_properties(tmp_path):
    consumer = """
        from gizmo.runner import Runner, get_context

        def make_runner(cfg):
            return Runner(cfg)

        class Holder:
            def __init__(self):
                self._ctx = get_context()

            @property
            def ctx(self):
                return self._ctx

            def ids(self):
                return self.ctx.input_batch.req_ids

        def ids(cfg):
            return make_runner(cfg).input_batch.req_ids
        """
    case = _case(consumer, [("DRIFT060", line_of(consumer, "self.ctx.input_batch")),
                            ("DRIFT060", line_of(consumer, "make_runner(cfg).input_batch"))])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_target_calls_through_functools_partial_count_as_call_sites(tmp_path):
    before = {"gizmo/runner.py": """
        class Runner:
            def _dummy_run(self, num_tokens, skip=False):
                return num_tokens

            def capture(self, sizes):
                for n in sizes:
                    self._dummy_run(n, skip=True)
        """}
    after = {"gizmo/runner.py": """
        import functools

        class Runner:
            def _dummy_run(self, num_tokens, skip=False, num_active_loras=0):
                return num_tokens

            def capture(self, sizes):
                run = functools.partial(self._dummy_run, skip=True)
                for n in sizes:
                    run(n, num_active_loras=1)
        """}
    consumer = """
        from gizmo.runner import Runner

        class Mine(Runner):
            def _dummy_run(self, num_tokens, skip=False):
                return num_tokens
        """
    found = findings_of(tmp_path, Case("partial", before, after, {"app/main.py": consumer}))
    assert_findings(found, [("DRIFT070", line_of(consumer, "def _dummy_run"))])
    assert "num_active_loras" in found[0].predicted_failure


def test_a_name_bound_to_one_of_two_target_classes_is_checked_on_both(tmp_path):
    before = {"gizmo/attn.py": """
        class MLA:
            def __init__(self, dim, rope_theta=1.0):
                pass

        class Plain:
            def __init__(self, dim, rope_theta=1.0):
                pass
        """}
    after = {"gizmo/attn.py": """
        class MLA:
            def __init__(self, dim, rope_theta=1.0):
                pass

        class Plain:
            def __init__(self, dim):
                pass
        """}
    consumer = """
        from gizmo.attn import MLA, Plain

        def build(use_mla):
            if use_mla:
                cls = MLA
            else:
                cls = Plain
            layer = cls(4, rope_theta=2.0)
            other = MLA if use_mla else Plain
            return layer, other(4, rope_theta=3.0)
        """
    found = findings_of(tmp_path, Case("union", before, after, {"app/main.py": consumer}))
    assert_findings(found, [("DRIFT010", line_of(consumer, "layer = cls(")),
                            ("DRIFT010", line_of(consumer, "other(4"))])
    assert all("Plain" in f.title for f in found)


def test_a_field_that_became_an_initvar_reads_as_the_default(tmp_path):
    before = {"gizmo/config.py": """
        from dataclasses import dataclass

        @dataclass
        class SchedulerConfig:
            max_model_len: int = 8192
        """}
    after = {"gizmo/config.py": """
        from dataclasses import dataclass, InitVar

        @dataclass
        class SchedulerConfig:
            max_model_len: InitVar[int] = 8192
        """}
    consumer = """
        from gizmo.config import SchedulerConfig

        def limit(cfg: SchedulerConfig):
            return cfg.max_model_len
        """
    found = findings_of(tmp_path, Case("initvar", before, after, {"app/main.py": consumer}))
    assert_findings(found, [("DRIFT063", line_of(consumer, "cfg.max_model_len"))])


WRAPPED_BEFORE = {"gizmo/engine.py": """
    class Engine:
        def __init__(self):
            self.engine = object()

        def engine_step(self, v):
            return v
    """, "gizmo/v1.py": """
    class NewEngine:
        def step(self):
            return 1
    """}
WRAPPED_AFTER = {"gizmo/engine.py": """
    from gizmo.v1 import NewEngine
    Engine = NewEngine
    """, "gizmo/v1.py": WRAPPED_BEFORE["gizmo/v1.py"]}
WRAPPER = """
    from gizmo.engine import Engine

    def make_pausable(engine: Engine):
        original = engine.engine_step

        def paused(v):
            return original(v)

        engine.engine_step = paused

        def busy():
            return engine.engine is not None

        return busy
    """


def test_a_method_saved_before_the_consumer_wraps_it_and_a_closure_over_a_parameter(tmp_path):
    """`original = engine.engine_step` then `engine.engine_step = paused` in one function: the
    read runs before the store, so the store does not provide it; and `busy`, nested in the
    function, reads the typed parameter it closes over. On the target the name is an alias of a
    class with neither attribute: both lines raise AttributeError."""
    found = findings_of(tmp_path, Case("wrapped", WRAPPED_BEFORE, WRAPPED_AFTER, {"app/run.py": WRAPPER}))
    assert_findings(found, [("DRIFT060", line_of(WRAPPER, "original = engine.engine_step")),
                            ("DRIFT060", line_of(WRAPPER, "return engine.engine is not None"))])
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.run", "make_pausable(Engine())") == found[0].predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.run", "make_pausable(Engine())()") is None


FEATURE_TESTED = """
    from gizmo.engine import Engine

    def make_pausable(engine: Engine):
        if engine is None or not callable(getattr(engine, "engine_step", None)):
            return None

        def paused(v):
            return engine.engine_step(v)

        return paused, engine.engine_step(0)
    """


def test_a_closure_keeps_the_feature_test_of_the_function_around_it(tmp_path):
    """The function returns early unless the object has the method (`x is None or not
    callable(getattr(x, "m", None))`, a feature test as `hasattr` is); what follows, and a closure
    it defines there, only runs where the test passed, so their calls are not reported. The test
    itself now always takes the early exit on the target: that is risky (DRIFT065)."""
    found = findings_of(tmp_path, Case("tested", WRAPPED_BEFORE, WRAPPED_AFTER, {"app/run.py": FEATURE_TESTED}))
    assert_findings(found, [("DRIFT065", line_of(FEATURE_TESTED, "callable(getattr(engine"))])
    assert found[0].severity.value == "risky"
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.run", "make_pausable(Engine())") is None


FACTORY_BEFORE = {"gizmo/engine.py": """
    class Engine:
        @classmethod
        def from_args(cls, args) -> "Engine":
            return cls()

        def generate(self, prompt, params, request_id, lora_request=None):
            return prompt
    """}
FACTORY_AFTER = {"gizmo/engine.py": FACTORY_BEFORE["gizmo/engine.py"].replace(
    "request_id, lora_request=None", "request_id, *, lora_request=None")}
FACTORY_CONSUMER = """
    from gizmo.engine import Engine

    class Model:
        def load(self, args):
            self._engine = Engine.from_args(args)

        def gen(self, p, lora):
            return self._engine.generate(p, None, "id", lora)

    def once(args, p, lora):
        engine = Engine.from_args(args)
        return engine.generate(p, None, "id", lora)
    """


def test_calls_on_what_a_target_factory_returned(tmp_path):
    """`Engine.from_args(...)` declared `-> "Engine"`: the object it returns, kept in a local or on
    `self` and used in another method, is judged as an Engine on each side (the target made
    `lora_request` keyword-only, so the fourth positional argument now raises TypeError)."""
    found = findings_of(tmp_path, Case("factory", FACTORY_BEFORE, FACTORY_AFTER, {"app/run.py": FACTORY_CONSUMER}))
    assert_findings(found, [("DRIFT012", line_of(FACTORY_CONSUMER, 'self._engine.generate(p')),
                            ("DRIFT012", line_of(FACTORY_CONSUMER, 'return engine.generate(p'))])
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.run", "once(None, 'p', 'l')") == found[1].predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.run", "once(None, 'p', 'l')") is None


COUNTED_BEFORE = {"gizmo/request.py": """
    class Request:
        def __init__(self):
            self.num_cached = -1
            self.prompt = []
    """}
COUNTED_AFTER = {"gizmo/request.py": """
    class Request:
        def __init__(self):
            self.prompt = []
    """}
COUNTED = """
    from gizmo.request import Request

    def schedule(request: Request, steps):
        while steps:
            if request.num_cached < 0:
                request.num_cached = steps
            steps -= 1

    def report(request: Request):
        return request.num_cached

    def tag(request: Request):
        request.origin = "app"

    def origin(request: Request):
        return request.origin
    """


def test_a_store_under_a_test_that_reads_the_same_attribute_does_not_provide_it(tmp_path):
    """`if req.n < 0: req.n = v` updates the target's attribute: it runs only once the read has
    succeeded, so on a target whose objects no longer have `n` the test itself raises, and so does
    every other read of `n` in the package; an attribute the consumer attaches unconditionally
    (`request.origin`) stays its own."""
    found = findings_of(tmp_path, Case("counted", COUNTED_BEFORE, COUNTED_AFTER, {"app/sched.py": COUNTED}))
    assert_findings(found, [("DRIFT060", line_of(COUNTED, "if request.num_cached < 0")),
                            ("DRIFT060", line_of(COUNTED, "return request.num_cached"))])
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.sched", "report(Request())")
    assert raised is not None and found[1].predicted_failure.startswith(raised)


HELD_BEFORE = {"gizmo/sched.py": """
    from collections import deque


    class Request:
        def __init__(self):
            self.num_cached = -1
            self.prompt = []


    class Scheduler:
        def __init__(self):
            self.requests: dict[str, Request] = {}
            self.finished: deque[Request] = deque()
    """}
HELD_AFTER = {"gizmo/sched.py": HELD_BEFORE["gizmo/sched.py"].replace("            self.num_cached = -1\n", "")}
HELD = """
    from gizmo.sched import Scheduler


    class MyScheduler(Scheduler):
        def cached(self, rid):
            request = self.requests.get(rid)
            return request.num_cached, request.prompt

        def total(self):
            return sum(r.num_cached for r in self.requests.values())

        def report(self):
            for rid, r in self.requests.items():
                print(rid, r.num_cached)

        def last(self):
            return self.finished.popleft().num_cached
    """


def test_what_a_builtin_container_method_returns_is_the_annotated_element(tmp_path):
    """`self.requests: dict[str, Request]` in the target: `.get(k)`, `.values()`, `.items()` and a
    deque's `.popleft()` hand back Requests, whose removed attribute each read then misses."""
    found = findings_of(tmp_path, Case("held", HELD_BEFORE, HELD_AFTER, {"app/sched.py": HELD}))
    assert_findings(found, [("DRIFT060", line_of(HELD, "return request.num_cached")),
                            ("DRIFT060", line_of(HELD, "sum(r.num_cached")),
                            ("DRIFT060", line_of(HELD, "print(rid, r.num_cached)")),
                            ("DRIFT060", line_of(HELD, "popleft().num_cached"))])
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.sched",
                       "(lambda s: (s.requests.update(a=__import__('gizmo.sched').sched.Request()), s.cached('a')))"
                       "(MyScheduler())")
    assert raised is not None and found[0].predicted_failure.startswith(raised)


REDECLARED = """
    from gizmo.sched import Scheduler


    def keep_open(requests, done):
        return [r for r in requests if r not in done]


    class MyScheduler(Scheduler):
        def prune(self, done):
            self.finished = keep_open(self.finished, done)

        def oldest(self):
            return self.finished[0].num_cached
    """


def test_a_base_attribute_the_subclass_stores_untyped_keeps_the_base_declared_type(tmp_path):
    """`self.finished = keep_open(...)` replaces the target base's `deque[Request]` with a value
    drift cannot type: the base's own code goes on reading it as Requests, so the subclass's
    reads are Requests too."""
    found = findings_of(tmp_path, Case("redeclared", HELD_BEFORE, HELD_AFTER, {"app/sched.py": REDECLARED}))
    assert_findings(found, [("DRIFT060", line_of(REDECLARED, "self.finished[0].num_cached"))])


SINGLETON_BEFORE = {"gizmo/registry.py": """
    class Registry:
        def receiver_cache(self, config):
            return config

        def register(self, fn):
            return fn


    REGISTRY = Registry()
    LOOKUP = dict(a=1)
    """}
SINGLETON_AFTER = {"gizmo/registry.py": """
    class Registry:
        def register(self, fn):
            return fn


    REGISTRY = Registry()
    LOOKUP = dict(a=1)
    """}
SINGLETON = """
    from gizmo.registry import LOOKUP, REGISTRY


    def cache_for(config):
        return REGISTRY.receiver_cache(config), LOOKUP.get("a")


    @REGISTRY.register
    def plugin():
        return 1
    """


def test_a_module_level_instance_is_an_object_of_the_class_it_is_built_from(tmp_path):
    """`REGISTRY = Registry()` in the target: the consumer's call of a method `Registry` lost, made
    through the shared instance, fails; a method it kept, and a builtin's instance, stay silent."""
    found = findings_of(tmp_path, Case("singleton", SINGLETON_BEFORE, SINGLETON_AFTER, {"app/cache.py": SINGLETON}))
    assert_findings(found, [("DRIFT060", line_of(SINGLETON, "REGISTRY.receiver_cache(config)"))])
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.cache", "cache_for(1)")
    assert raised is not None and found[0].predicted_failure.startswith(raised)


MAYBE_BEFORE = {"gizmo/config.py": """
    class ModelConfig:
        def __init__(self):
            self.return_experts = False


    class Config:
        def __init__(self):
            self.model_config = ModelConfig()


    def current_config() -> Config:
        return Config()
    """}
MAYBE_AFTER = {"gizmo/config.py": MAYBE_BEFORE["gizmo/config.py"].replace(
    "self.return_experts = False", "self.other = False")}
MAYBE = """
    from gizmo.config import current_config


    def experts_enabled():
        try:
            config = current_config()
        except AssertionError:
            config = None
        return config.model_config.return_experts if config else False


    def experts_or_default(ready):
        if ready:
            config = current_config()
        else:
            config = None
        return bool(config and config.model_config.return_experts)
    """


def test_a_name_set_to_none_on_the_other_path_keeps_its_typed_value(tmp_path):
    """`try: c = make() except E: c = None` (or the same over if/else): after the merge `c` is
    what `make()` returns or None, and the read guarded by `if c` reaches the target's object."""
    found = findings_of(tmp_path, Case("maybe", MAYBE_BEFORE, MAYBE_AFTER, {"app/flags.py": MAYBE}))
    assert_findings(found, [("DRIFT060", line_of(MAYBE, "return config.model_config.return_experts if")),
                            ("DRIFT060", line_of(MAYBE, "config and config.model_config"))])
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.flags", "experts_enabled()")
    assert raised is not None and found[0].predicted_failure.startswith(raised)


def test_a_closure_calling_a_local_copy_of_a_gone_method_is_no_read_of_its_own(tmp_path):
    """`original = engine.engine_step` then `def paused(v): return original(v)`: `.engine_step` is
    read, and raises, at the assignment; the closure only calls the value, as a later use of the
    local in the function itself does: one finding, at the assignment."""
    consumer = """
        from gizmo.engine import Engine

        def wrap(engine: Engine):
            original = engine.engine_step

            def paused(v):
                return original(v)

            return paused, original(0)
        """
    found = findings_of(tmp_path, Case("closure-copy", WRAPPED_BEFORE, WRAPPED_AFTER, {"app/run.py": consumer}))
    assert_findings(found, [("DRIFT060", line_of(consumer, "original = engine.engine_step"))])
