"""A target class that became a factory function (synthetic before/after pairs), and `self`
inside module-level functions copied onto a target class, typed through what the class's
`__init__` stores from a local (`q = cfg.quant; self.quant = q`)."""

from __future__ import annotations

from drift.analysis.diff.engine import diff_facts
from drift.kinds import ChangeKind
from tests.rule_cases import Case, assert_findings, facts_of, findings_of, line_of, raised_by, src, write_tree

LAYER_BEFORE = {"gizmo/layers/__init__.py": "from gizmo.layers.moe import Experts\n",
                "gizmo/layers/moe.py": """
    class Experts:
        KIND = "moe"

        def __init__(self, n):
            self.n = n

        @staticmethod
        def mapping(n):
            return [(i, i) for i in range(n)]
    """}
LAYER_AFTER = {"gizmo/layers/__init__.py": "from gizmo.layers.moe import Experts\n",
               "gizmo/layers/moe.py": """
    class Routed:
        def __init__(self, n):
            self.n = n


    def Experts(n):
        return Routed(n)
    """}
USER = """
    from gizmo import layers
    from gizmo.layers import Experts


    class Mine(Experts):
        pass


    def check(layer):
        assert isinstance(layer, Experts)
        return layer


    def either(layer):
        return isinstance(layer, (int, layers.Experts))


    def table():
        return Experts.mapping(4)


    def kind():
        return layers.Experts.KIND


    def build():
        return Experts(2)
    """


def _case(user=USER):
    return Case("factory", LAYER_BEFORE, LAYER_AFTER, {"app/__init__.py": "", "app/use.py": user})


def test_class_that_became_a_function_is_reported_where_a_class_is_needed(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [
        ("DRIFT066", line_of(USER, "class Mine(Experts)")),
        ("DRIFT066", line_of(USER, "assert isinstance")),
        ("DRIFT066", line_of(USER, "(int, layers.Experts)")),
        ("DRIFT066", line_of(USER, "Experts.mapping(4)")),
        ("DRIFT066", line_of(USER, "layers.Experts.KIND")),
    ])
    by_line = {f.consumer_site.line: f for f in findings}
    sub = by_line[line_of(USER, "class Mine(Experts)")]
    assert sub.severity.value == "breaking" and sub.symbol == "gizmo.layers.moe.Experts"
    assert "subclasses it" in sub.title
    assert by_line[line_of(USER, "Experts.mapping(4)")].predicted_failure == \
        "AttributeError: 'function' object has no attribute 'mapping'"
    assert by_line[line_of(USER, "layers.Experts.KIND")].predicted_failure == \
        "AttributeError: 'function' object has no attribute 'KIND'"
    assert "a tuple of types" in (by_line[line_of(USER, "(int, layers.Experts)")].details or "")
    # each prediction is what Python itself raises on the synthetic "after" tree
    roots = [tmp_path / "after", tmp_path / "consumer"]
    probe = src(USER).replace("class Mine(Experts):\n    pass\n", "")
    write_tree(tmp_path / "probe", {"app2/__init__.py": "", "app2/use.py": probe})
    roots.append(tmp_path / "probe")
    assert raised_by(roots, "app.use", "0") == sub.predicted_failure
    assert raised_by(roots, "app2.use", "check(object())") == by_line[line_of(USER, "assert isinstance")].predicted_failure
    assert raised_by(roots, "app2.use", "table()") == by_line[line_of(USER, "Experts.mapping(4)")].predicted_failure
    assert raised_by(roots, "app2.use", "kind()") == by_line[line_of(USER, "layers.Experts.KIND")].predicted_failure
    assert raised_by(roots, "app2.use", "build()") is None  # calling the factory still works


def test_class_still_a_class_or_only_called_is_fine(tmp_path):
    assert_findings(findings_of(tmp_path / "same", Case("same", LAYER_BEFORE, LAYER_BEFORE, _case().consumer)), [])
    only_called = """
        from gizmo.layers import Experts

        def build():
            return Experts(2)
        """
    assert_findings(findings_of(tmp_path / "call", _case(only_called)), [])


def test_subclass_with_two_bases_predicts_the_metaclass_conflict(tmp_path):
    user = """
        from gizmo.layers import Experts

        class Base:
            pass

        class Mine(Base, Experts):
            pass
        """
    findings = findings_of(tmp_path, _case(user))
    assert_findings(findings, [("DRIFT066", line_of(user, "class Mine("))])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.use", "0") == findings[0].predicted_failure


def test_diff_reports_a_class_that_became_a_function(tmp_path):
    old = facts_of(write_tree(tmp_path / "before", LAYER_BEFORE))
    new = facts_of(write_tree(tmp_path / "after", LAYER_AFTER))
    result, error = diff_facts(old, new, package="gizmo")
    assert error is None
    changes = [c for c in result.changes if c.kind is ChangeKind.CLASS_BECAME_FUNCTION]
    assert [(c.module, c.symbol) for c in changes] == [("gizmo.layers.moe", "Experts")]
    assert changes[0].new[0].line == line_of(LAYER_AFTER["gizmo/layers/moe.py"], "def Experts")
    same, _ = diff_facts(old, old, package="gizmo")
    assert not [c for c in same.changes if c.kind is ChangeKind.CLASS_BECAME_FUNCTION]


MODEL_BEFORE = {"gizmo/config.py": """
    class QuantConfig:
        def get_cache_scale(self, name):
            return None


    class Config:
        quant: QuantConfig
    """, "gizmo/models/llama.py": """
    from gizmo.config import Config


    class LlamaModel:
        def __init__(self, *, config: Config):
            quant = config.quant
            self.quant = quant

        def load_weights(self, weights):
            return set()
    """}
MODEL_AFTER = {"gizmo/config.py": MODEL_BEFORE["gizmo/config.py"].replace("get_cache_scale", "get_cache_scale_mapper"),
               "gizmo/models/llama.py": MODEL_BEFORE["gizmo/models/llama.py"]}
LOADER = """
    from gizmo.models import llama


    def load_llama_weights(self, weights):
        for name, w in weights:
            if self.quant is not None and self.quant.get_cache_scale(name):
                continue
        return set()


    llama.LlamaModel.load_weights = load_llama_weights
    """


def test_self_in_a_function_copied_onto_a_target_class_follows_state_stored_from_a_local(tmp_path):
    case = Case("copied", MODEL_BEFORE, MODEL_AFTER, {"app/__init__.py": "", "app/loader.py": LOADER})
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT060", line_of(LOADER, "get_cache_scale(name)"))])
    assert findings[0].predicted_failure == "AttributeError: 'QuantConfig' object has no attribute 'get_cache_scale'"
    same = Case("same", MODEL_BEFORE, MODEL_BEFORE, case.consumer)
    assert_findings(findings_of(tmp_path / "same", same), [])


def test_a_local_bound_twice_is_not_taken_for_the_attribute_type(tmp_path):
    """`q = a; q = b; self.quant = q`: which value is stored is not one assignment's, so no type."""
    before = dict(MODEL_BEFORE)
    before["gizmo/models/llama.py"] = before["gizmo/models/llama.py"].replace(
        "quant = config.quant\n", "quant = config.quant\n        quant = quant or None\n")
    after = dict(MODEL_AFTER, **{"gizmo/models/llama.py": before["gizmo/models/llama.py"]})
    case = Case("twice", before, after, {"app/__init__.py": "", "app/loader.py": LOADER})
    assert_findings(findings_of(tmp_path, case), [])


def test_use_in_a_method_nothing_calls_is_risky(tmp_path):
    """A leftover helper method (no target base defines it, nobody calls it) may never run."""
    user = """
        from gizmo.layers import Experts


        class Config:
            def pick_patch(self, layer):
                return isinstance(layer, Experts)

            def pick(self, layer):
                return isinstance(layer, Experts)


        def use(layer):
            return Config().pick(layer)
        """
    findings = findings_of(tmp_path, _case(user))
    assert_findings(findings, [("DRIFT066", line_of(user, "return isinstance", 1)),
                               ("DRIFT066", line_of(user, "return isinstance", 2))])
    sev = {f.consumer_site.line: f.severity.value for f in findings}
    assert sev == {line_of(user, "return isinstance", 1): "risky", line_of(user, "return isinstance", 2): "breaking"}


HELD = """
    from gizmo import layers


    class Registry:
        entries = {}

        @classmethod
        def register(cls, table):
            def wrap(qcls):
                cls.entries.update(table)
                return qcls
            return wrap

        @classmethod
        def lookup(cls, obj):
            return cls.entries.get(type(obj))


    @Registry.register({layers.Experts: "experts"})
    class QuantExperts:
        pass


    def is_experts(layer):
        return type(layer) is layers.Experts
    """


def test_a_factory_held_as_a_type_a_dict_key_or_a_type_comparison_is_risky(tmp_path):
    case = Case("held", LAYER_BEFORE, LAYER_AFTER, {"app/held.py": HELD})
    found = findings_of(tmp_path, case)
    assert_findings(found, [("DRIFT066", line_of(HELD, "layers.Experts: ")), ("DRIFT066", line_of(HELD, "type(layer) is"))])
    assert {f.severity.value for f in found} == {"risky"}
    # Python itself: on the baseline the registry finds the layer; on the target nothing matches
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    probe = ("(Registry.lookup(layers.Experts(2)) == 'experts' and is_experts(layers.Experts(2))) "
             "or (_ for _ in ()).throw(LookupError('no match'))")
    assert raised_by(roots("before"), "app.held", probe) is None
    assert raised_by(roots("after"), "app.held", probe) == "LookupError: no match"
