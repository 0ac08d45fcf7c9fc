"""Classes handed to the target: a fallback name its interface check no longer accepts (DRIFT073)
and methods it now calls on an object it builds from the consumer's class (DRIFT074), on
synthetic before/after trees; the predictions are held to what the synthetic code really does."""

from __future__ import annotations

import textwrap

from drift.findings import SAFE
from drift.fixes import plan
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by, write_tree

# -- DRIFT073 -------------------------------------------------------------------------------------
REGISTRY_BEFORE = """
    MODELS = {}

    def _has_embed(model):
        embed = getattr(model, "embed_input_ids", None)
        if not callable(embed):
            old = getattr(model, "get_input_embeddings", None)
            if callable(old):
                model.embed_input_ids = old
                return True
            return False
        return True

    def _has_forward(model):
        return callable(getattr(model, "forward", None))

    def is_model(model):
        return _has_embed(model) and _has_forward(model)

    class Registry:
        def register_model(self, arch, model_cls):
            MODELS[arch] = model_cls

        def check(self, arch):
            cls = MODELS[arch]
            if isinstance(cls, str):
                import importlib
                mod, _, name = cls.partition(":")
                cls = getattr(importlib.import_module(mod), name)
            if not is_model(cls):
                raise ValueError("This model does not support generation")
            return cls

    ModelRegistry = Registry()
    """
REGISTRY_AFTER = """
    MODELS = {}

    def _has_embed(model):
        embed = getattr(model, "embed_input_ids", None)
        if not callable(embed):
            return False
        return True

    def _has_forward(model):
        return callable(getattr(model, "forward", None))

    def is_model(model):
        return _has_embed(model) and _has_forward(model)

    class Registry:
        def register_model(self, arch, model_cls):
            MODELS[arch] = model_cls

        def check(self, arch):
            cls = MODELS[arch]
            if isinstance(cls, str):
                import importlib
                mod, _, name = cls.partition(":")
                cls = getattr(importlib.import_module(mod), name)
            if not is_model(cls):
                raise ValueError("This model does not support generation")
            return cls

    ModelRegistry = Registry()
    """

TYPE_BUILT = """
    class JaxModel:
        def __call__(self, x):
            return x

    def register(arch, model):
        def fwd(self, input_ids, positions):
            raise NotImplementedError

        def emb(self, input_ids):
            raise NotImplementedError

        Wrapper = type(
            "Wrapper" + model.__name__,
            (model,),
            {
                "forward": fwd,
                "get_input_embeddings": emb,
                "load_weights": lambda self, *a: None,
            })
        from gizmo.registry import ModelRegistry
        ModelRegistry.register_model(arch, Wrapper)

    register("Jax", JaxModel)
    """

# the namespace built step by step in the function, and a class written out, registered by string
BUILT_NS_AND_STRING = """
    from gizmo.registry import ModelRegistry

    def make(arch):
        def emb(self, input_ids):
            return input_ids
        ns = {}
        ns["forward"] = lambda self, input_ids, positions: input_ids
        ns["get_input_embeddings"] = emb
        cls = type("Built", (object,), ns)
        ModelRegistry.register_model(arch, cls)

    class Written:
        def forward(self, input_ids, positions):
            return input_ids

        def get_input_embeddings(self, input_ids):
            return input_ids

    ModelRegistry.register_model("Written", "app.models:Written")
    make("Built")
    """

ALREADY_NEW = """
    from gizmo.registry import ModelRegistry

    class Renamed:
        def forward(self, input_ids, positions):
            return input_ids

        def embed_input_ids(self, input_ids):
            return input_ids

        def get_input_embeddings(self, input_ids):  # kept for older releases
            return self.embed_input_ids(input_ids)

    class NotHanded:  # never given to the target: its names are its own business
        def get_input_embeddings(self, input_ids):
            return input_ids

    ModelRegistry.register_model("Renamed", Renamed)
    """

# the baseline asks for both names independently (no fallback): dropping one is not this rule's
INDEPENDENT_BEFORE = """
    def supports(model):
        return hasattr(model, "embed_input_ids") and hasattr(model, "get_input_embeddings")

    class Registry:
        def register_model(self, arch, model_cls):
            pass

    ModelRegistry = Registry()
    """
INDEPENDENT_AFTER = """
    def supports(model):
        return hasattr(model, "embed_input_ids")

    class Registry:
        def register_model(self, arch, model_cls):
            pass

    ModelRegistry = Registry()
    """


def test_type_built_class_loses_its_fallback_name(tmp_path):
    case = Case("type-built", {"gizmo/registry.py": REGISTRY_BEFORE}, {"gizmo/registry.py": REGISTRY_AFTER},
                {"app/loader.py": TYPE_BUILT})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT073", line_of(TYPE_BUILT, '"get_input_embeddings": emb'))])
    f = only(found, "DRIFT073")
    assert f.severity.value == "breaking"
    assert f.symbol == "gizmo.registry._has_embed"
    assert "embed_input_ids" in f.title and "get_input_embeddings" in f.title
    assert f.consumer_site.symbol == "app.loader.register.Wrapper.get_input_embeddings"
    assert f.target_evidence[0].line == line_of(REGISTRY_AFTER, 'getattr(model, "embed_input_ids"')
    assert f.baseline_evidence[0].line == line_of(REGISTRY_BEFORE, 'getattr(model, "get_input_embeddings"')
    # what the synthetic code really does: the baseline's check passes the class, the target's refuses it
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("before"), "app.loader", "__import__('gizmo.registry').registry.ModelRegistry.check('Jax')") is None
    assert raised_by(roots("after"), "app.loader", "__import__('gizmo.registry').registry.ModelRegistry.check('Jax')") \
        == "ValueError: This model does not support generation"


def test_namespace_built_in_the_function_and_a_class_registered_by_string(tmp_path):
    case = Case("ns-and-string", {"gizmo/registry.py": REGISTRY_BEFORE}, {"gizmo/registry.py": REGISTRY_AFTER},
                {"app/models.py": BUILT_NS_AND_STRING})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT073", line_of(BUILT_NS_AND_STRING, 'ns["get_input_embeddings"] = emb')),
                            ("DRIFT073", line_of(BUILT_NS_AND_STRING, "def get_input_embeddings"))])
    roots = [tmp_path / "after", tmp_path / "consumer"]
    for arch in ("Built", "Written"):
        assert raised_by(roots, "app.models", f"ModelRegistry.check({arch!r})") \
            == "ValueError: This model does not support generation"


def test_the_safe_alias_fixes_each_form_and_runs_on_both_releases(tmp_path):
    """alias_member binds the new name to the old member in the namespace literal, the namespace
    filled step by step and the class body: the patched consumer passes the target's check and
    still the baseline's, re-checks clean, and a second plan changes nothing."""
    for name, text in (("loader", TYPE_BUILT), ("models", BUILT_NS_AND_STRING)):
        case = Case(f"alias-{name}", {"gizmo/registry.py": REGISTRY_BEFORE}, {"gizmo/registry.py": REGISTRY_AFTER},
                    {f"app/{name}.py": text})
        found = findings_of(tmp_path / name, case)
        assert found and all(f.rule_id == "DRIFT073" and f.fix.tier == SAFE and f.fix.codemod == "alias_member"
                             for f in found)
        assert all("define `embed_input_ids`" in f.fix.description for f in found)
        rel = f"app/{name}.py"
        source = (tmp_path / name / "consumer" / rel).read_bytes()
        patch = plan({rel: source}, list(found))
        assert [c.path for c in patch.changes] == [rel] and not patch.skipped
        patched = patch.changes[0].after.decode()
        assert "get_input_embeddings" in patched  # the old name stays for the baseline
        (tmp_path / name / "consumer" / rel).write_text(patched)
        archs = ("Jax",) if name == "loader" else ("Built", "Written")
        for side in ("before", "after"):
            roots = [tmp_path / name / side, tmp_path / name / "consumer"]
            for arch in archs:
                assert raised_by(roots, f"app.{name}", f"__import__('gizmo.registry').registry.ModelRegistry.check({arch!r})") \
                    is None, (side, arch, patched)
        again = Case(f"alias-{name}-again", case.before, case.after, {rel: textwrap.dedent(patched)})
        assert findings_of(tmp_path / f"{name}-again", again) == ()
        assert plan({rel: patched.encode()}, list(found)).empty


def test_a_class_with_the_new_name_or_never_handed_is_not_reported(tmp_path):
    case = Case("fine", {"gizmo/registry.py": REGISTRY_BEFORE}, {"gizmo/registry.py": REGISTRY_AFTER},
                {"app/models.py": ALREADY_NEW})
    assert_findings(findings_of(tmp_path, case), [])


def test_names_checked_independently_are_not_a_fallback(tmp_path):
    case = Case("independent", {"gizmo/registry.py": INDEPENDENT_BEFORE}, {"gizmo/registry.py": INDEPENDENT_AFTER},
                {"app/loader.py": TYPE_BUILT})
    assert_findings(findings_of(tmp_path, case), [])


# -- DRIFT074 -------------------------------------------------------------------------------------
CONNECTOR_BEFORE = """
    class Base:
        def __init__(self, config):
            self.config = config

    class PluginConnector(Base):
        def __init__(self, config, use_native=False):
            super().__init__(config)
            if use_native:
                from gizmo.native import adapter
                cls = adapter.Impl
            else:
                # lazy import of the plugin's own class
                from app.adapter import Impl as LatestImpl
                cls = LatestImpl
            self._engine = cls(config, self)

        def start_load(self, ctx):
            self._engine.start_load(ctx)

        def finished(self, ids):
            return self._engine.get_finished(ids)
    """
CONNECTOR_AFTER = """
    class Base:
        def __init__(self, config):
            self.config = config

    class PluginConnector(Base):
        def __init__(self, config, use_native=False):
            super().__init__(config)
            if use_native:
                from gizmo.native import adapter
                cls = adapter.Impl
            else:
                # lazy import of the plugin's own class
                from app.adapter import Impl as LatestImpl
                cls = LatestImpl
            self._engine = cls(config, self)

        def start_load(self, ctx):
            self._engine.start_load(ctx)

        def finished(self, ids):
            return self._engine.get_finished(ids)

        def register_caches(self, caches):
            if hasattr(self._engine, "register_caches"):  # optional: guarded
                self._engine.register_caches(caches)

        def load_errors(self):
            method = getattr(self._engine, "get_load_errors", None)
            return method() if callable(method) else set()

        def events(self):
            return self._engine.get_events()  # new, unguarded

        def other(self, helper):
            helper.get_stats()  # not on the object built from the plugin's class
    """
NATIVE = """
    class Impl:
        def __init__(self, config, parent):
            pass
    """
ADAPTER = """
    from gizmo.connector import Base

    class Impl:
        def __init__(self, config, parent):
            self.parent = parent

        def start_load(self, ctx):
            return ctx

        def get_finished(self, ids):
            return ids

    class Other:
        def start_load(self, ctx):
            return ctx
    """


def _connector_case(after: str = CONNECTOR_AFTER, adapter: str = ADAPTER) -> Case:
    return Case("connector", {"gizmo/connector.py": CONNECTOR_BEFORE, "gizmo/native/adapter.py": NATIVE},
                {"gizmo/connector.py": after, "gizmo/native/adapter.py": NATIVE},
                {"app/adapter.py": adapter})


def test_target_now_calls_a_method_the_plugins_class_lacks(tmp_path):
    found = findings_of(tmp_path, _connector_case())
    assert_findings(found, [("DRIFT074", line_of(ADAPTER, "class Impl"))])
    f = only(found, "DRIFT074")
    assert f.severity.value == "breaking"
    assert f.symbol == "gizmo.connector.PluginConnector.get_events"
    assert f.target_evidence[0].line == line_of(CONNECTOR_AFTER, "self._engine.get_events()")
    roots = [tmp_path / "after", tmp_path / "consumer"]
    expr = "__import__('gizmo.connector').connector.PluginConnector({}).events()"
    assert raised_by(roots, "app.adapter", expr) == f.predicted_failure
    assert raised_by(roots, "app.adapter", "__import__('gizmo.connector').connector.PluginConnector({})"
                                           ".register_caches([])") is None  # the guarded call does not fail


def test_a_plugin_class_that_has_the_method_is_fine(tmp_path):
    adapter = ADAPTER.replace("""        def get_finished(self, ids):
            return ids
""", """        def get_finished(self, ids):
            return ids

        def get_events(self):
            return []
""", 1)
    assert_findings(findings_of(tmp_path, _connector_case(adapter=adapter)), [])


MODULE_LEVEL = """
    from app.adapter import Impl

    class Base:
        def __init__(self, config):
            self.config = config

    class PluginConnector(Base):
        def __init__(self, config, use_native=False):
            super().__init__(config)
            self._engine = Impl(config, self)

        def start_load(self, ctx):
            self._engine.start_load(ctx)

        def finished(self, ids):
            return self._engine.get_finished(ids)

        def flush(self):
            self._engine.flush_all()

    def probe_once(config):
        engine = Impl(config, None)
        return engine.get_version()  # a plain function's local: not an object a target class holds

    class Prober:
        def probe(self, config):
            import importlib
            mod = importlib.import_module("app.adapter")
            engine = getattr(mod, "Impl")(config, None)
            return engine.get_version()
    """


def test_a_module_level_import_and_a_local_instance_count_too(tmp_path):
    found = findings_of(tmp_path, _connector_case(after=MODULE_LEVEL))
    assert_findings(found, [("DRIFT074", "flush_all"), ("DRIFT074", "get_version")])
    versions = [f for f in found if "get_version" in f.title]
    assert versions[0].target_evidence[0].line == line_of(MODULE_LEVEL, "return engine.get_version()", 2)


def test_a_class_the_baseline_never_built_is_risky(tmp_path):
    before = CONNECTOR_BEFORE.replace("from app.adapter import Impl as LatestImpl", "from gizmo.native.adapter import Impl as LatestImpl")
    case = Case("new", {"gizmo/connector.py": before, "gizmo/native/adapter.py": NATIVE},
                {"gizmo/connector.py": CONNECTOR_AFTER, "gizmo/native/adapter.py": NATIVE}, {"app/adapter.py": ADAPTER})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT074", "get_events")])
    assert only(found, "DRIFT074").severity.value == "risky"


def test_probe_records_type_built_classes_and_handed_classes(tmp_path):
    """The probe's own record: the class, its methods at their namespace keys, and the call that
    hands it to the target."""
    from drift.consumer.usage import collect_usage

    write_tree(tmp_path, {"app/loader.py": TYPE_BUILT, "gizmo/registry.py": REGISTRY_AFTER})
    mod = next(m for m in collect_usage(tmp_path, ["app"], ["gizmo"]) if m["module"] == "app.loader")
    cls = mod["classes"]["register.Wrapper"]
    assert cls["built_with"] == "type"
    assert sorted(cls["methods"]) == ["forward", "get_input_embeddings", "load_weights"]
    assert cls["methods"]["forward"]["function"] == "fwd"
    assert cls["methods"]["forward"]["line"] == line_of(TYPE_BUILT, '"forward": fwd')
    assert [p[1] for p in cls["methods"]["forward"]["params"]] == ["POSITIONAL_OR_KEYWORD"] * 3
    handed = [c for c in mod["calls"] if c.get("class_args")]
    assert [c["class_args"] for c in handed] == [["app.loader.register.Wrapper"]]


def test_probe_facts_fallbacks_and_builds():
    """The target-side facts: which probe is a fallback (inside the branch where the first name is
    missing, after an early return, or the right side of an `or`), and what a method builds."""
    from drift.probes.ast_facts import module_facts
    from tests.rule_cases import src

    text = src("""
        def nested(model):
            f = getattr(model, "new", None)
            if not callable(f):
                if hasattr(model, "old"):
                    return True
            return callable(f)

        def early(model):
            if hasattr(model, "new"):
                return True
            return hasattr(model, "old")

        def either(model):
            return getattr(model, "new", None) or getattr(model, "old", None)

        def both(model):
            return hasattr(model, "new") and hasattr(model, "old")

        class Holder:
            def __init__(self, cfg):
                from app.adapter import Impl as X
                cls = X
                self.engine = cls(cfg)

            def use(self):
                if hasattr(self.engine, "maybe"):
                    self.engine.maybe()
                return self.engine.run()
        """)
    facts = module_facts(text.encode(), module="gizmo.m", path="gizmo/m.py")
    probes = {n: fn["behaviour"]["probes"]["model"] for n, fn in facts["functions"].items()}
    assert {n: p["old"][1] for n, p in probes.items()} == {"nested": "new", "early": "new", "either": "new",
                                                           "both": None}
    assert all(p["new"][1] is None for p in probes.values())
    methods = facts["classes"]["Holder"]["methods"]
    assert methods["__init__"]["behaviour"]["builds"] == {"self.engine": ["app.adapter.Impl"]}
    assert methods["use"]["behaviour"]["held_calls"] == {"self.engine": {"maybe": line_of(text, "self.engine.maybe()"),
                                                                         "run": line_of(text, "self.engine.run()")}}
    assert methods["use"]["behaviour"]["probes"] == {"self.engine": {"maybe": [line_of(text, "hasattr(self.engine"), None]}}
