"""A consumer override's parameter typed by what the target's own call sites pass in its slot.

vLLM's layers call their quantization method as `self.quant_method.apply(self, x)`: the override's
`layer` parameter is the layer object whatever the consumer annotates it as. When the target's
layer class (the one whose method makes that call) lacks an attribute the baseline's layer had,
the override's read of it raises AttributeError inside vLLM's forward pass.
"""

from __future__ import annotations

from pathlib import Path

from drift.pipeline.run import check
from tests.rule_cases import LIB, Files, assert_findings, consumer_of, facts_of, line_of, src, write_tree

BASE = src('''
    class MethodBase:
        def apply(self, layer, x):
            raise NotImplementedError
''')

BEFORE = {
    "gizmo/base.py": BASE,
    "gizmo/layer.py": src('''
        from gizmo.base import MethodBase

        class FusedLayer:
            def __init__(self, quant_method: MethodBase):
                self.quant_method = quant_method
                self.ep_rank = 0
                self.router = None

            def forward(self, x):
                return self.quant_method.apply(self, x)
    '''),
}

AFTER = {
    "gizmo/base.py": BASE,
    "gizmo/layer.py": src('''
        from gizmo.base import MethodBase

        class Router:
            def __init__(self):
                self.ep_rank = 0

        class RoutedExperts:
            def __init__(self, quant_method: MethodBase):
                self.quant_method = quant_method
                self.router = Router()

            def forward(self, x):
                return self.quant_method.apply(self, x)
    '''),
}

CONSUMER = src('''
    from gizmo.base import MethodBase

    class MyMethod(MethodBase):
        def apply(self, layer, x):
            rank = layer.ep_rank
            return layer.router, rank, x
''')


def _with_sources(root: Path, files: Files) -> dict:
    """The release's facts, read by the probe, with its tree at hand as a fetched release's is
    (the call sites' text is read from it)."""
    facts = facts_of(write_tree(root, files))
    facts["target"] = {"root": str(root)}
    return facts


def _findings(tmp_path: Path, before: Files, after: Files, consumer: str):
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/method.py": consumer}))
    outcome = check(consumer=cons, target_facts=_with_sources(tmp_path / "after", after),
                    baseline_facts=_with_sources(tmp_path / "before", before), target_package=LIB)
    assert outcome.error is None, outcome.error
    return outcome.report.findings


def test_a_read_the_layer_class_the_target_passes_lost_is_reported(tmp_path):
    findings = _findings(tmp_path, BEFORE, AFTER, CONSUMER)
    assert_findings(findings, [("DRIFT060", line_of(CONSUMER, "layer.ep_rank"))])
    (f,) = findings
    assert "RoutedExperts" in f.title and f.severity.value == "breaking"
    assert f.baseline_evidence and f.baseline_evidence[0] is not None
    assert f.details == "reached as param .ep_rank"


ANNOTATED = src('''
    import torch.nn as nn

    from gizmo.base import MethodBase

    class MyMethod(MethodBase):
        def apply(self, layer: nn.Module, x):
            rank = layer.ep_rank
            return layer.router, rank, x
''')


def test_an_annotation_naming_a_general_type_does_not_hide_what_the_target_passes(tmp_path):
    findings = _findings(tmp_path, BEFORE, AFTER, ANNOTATED)
    assert_findings(findings, [("DRIFT060", line_of(ANNOTATED, "layer.ep_rank"))])


def test_no_finding_when_the_baseline_passed_a_class_that_lacked_the_attribute_too(tmp_path):
    findings = _findings(tmp_path, AFTER, AFTER, CONSUMER)  # an old fact, not a change
    assert_findings(findings, [])


TWO_LAYERS = dict(AFTER)
TWO_LAYERS["gizmo/other.py"] = src('''
    from gizmo.base import MethodBase

    class DenseLayer:
        def __init__(self, quant_method: MethodBase):
            self.quant_method = quant_method
            self.ep_rank = 0
            self.router = None

        def forward(self, x):
            return self.quant_method.apply(self, x)
''')


def test_a_slot_two_target_classes_fill_is_risky_where_only_one_lost_the_attribute(tmp_path):
    # a DenseLayer still has ep_rank, a RoutedExperts does not: the read fails for some layers
    findings = _findings(tmp_path, BEFORE, TWO_LAYERS, CONSUMER)
    assert_findings(findings, [("DRIFT060", line_of(CONSUMER, "layer.ep_rank"))])
    (f,) = findings
    assert f.severity.value == "risky" and "RoutedExperts" in f.title and "DenseLayer" not in f.title


BOTH_LOST = dict(TWO_LAYERS)
BOTH_LOST["gizmo/other.py"] = TWO_LAYERS["gizmo/other.py"].replace("        self.ep_rank = 0\n", "")


def test_a_slot_every_target_class_fills_without_the_attribute_is_breaking(tmp_path):
    assert "ep_rank" not in BOTH_LOST["gizmo/other.py"]
    findings = _findings(tmp_path, BEFORE, BOTH_LOST, CONSUMER)
    assert_findings(findings, [("DRIFT060", line_of(CONSUMER, "layer.ep_rank"))])
    (f,) = findings
    assert f.severity.value == "breaking" and "DenseLayer" in f.title and "RoutedExperts" in f.title


def test_no_union_finding_when_the_baseline_passed_the_same_classes(tmp_path):
    assert_findings(_findings(tmp_path, TWO_LAYERS, TWO_LAYERS, CONSUMER), [])


UNRELATED = dict(AFTER)
UNRELATED["gizmo/layer.py"] = AFTER["gizmo/layer.py"].replace(
    "from gizmo.base import MethodBase", "from gizmo.base import MethodBase\n\nclass Sampler:\n    def apply(self, layer, x):\n        return x\n"
).replace("self.quant_method = quant_method", "self.quant_method = Sampler()")


def test_a_call_on_an_attribute_typed_as_an_unrelated_class_is_no_evidence(tmp_path):
    assert_findings(_findings(tmp_path, BEFORE, UNRELATED, CONSUMER), [])


KEYWORD = dict(AFTER)
KEYWORD["gizmo/layer.py"] = AFTER["gizmo/layer.py"].replace(
    "return self.quant_method.apply(self, x)", "return self.quant_method.apply(\n            layer=self,\n            x=x,\n        )")


def test_the_layer_passed_by_the_declarations_keyword_types_the_slot_too(tmp_path):
    assert "layer=self" in KEYWORD["gizmo/layer.py"]
    findings = _findings(tmp_path, BEFORE, KEYWORD, CONSUMER)
    assert_findings(findings, [("DRIFT060", line_of(CONSUMER, "layer.ep_rank"))])
    assert "RoutedExperts" in findings[0].title and findings[0].severity.value == "breaking"


OWN_LAYER = src('''
    from gizmo.base import MethodBase
    from gizmo.layer import RoutedExperts

    class MyMethod(MethodBase):
        def apply(self, layer, x):
            rank = layer.ep_rank
            return layer.router, rank, x

    class MyExperts(RoutedExperts):
        def __init__(self, quant_method):
            super().__init__(quant_method)
            self.ep_rank = 0
''')


def test_no_finding_when_the_consumers_own_subclass_of_the_layer_sets_the_attribute(tmp_path):
    # vLLM may build MyExperts in RoutedExperts' place (a plugin registers its layer over vLLM's)
    assert_findings(_findings(tmp_path, BEFORE, AFTER, OWN_LAYER), [])


def test_the_consumers_subclass_that_lacks_the_attribute_too_leaves_the_read_reported(tmp_path):
    lacking = OWN_LAYER.replace("        self.ep_rank = 0\n", "")
    assert "self.ep_rank" not in lacking
    findings = _findings(tmp_path, BEFORE, AFTER, lacking)
    assert_findings(findings, [("DRIFT060", line_of(lacking, "layer.ep_rank"))])
