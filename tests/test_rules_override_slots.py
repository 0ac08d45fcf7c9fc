"""An override's parameter is what the target hands it: the target's declaration of the method
it overrides types the slot on each side (a quoted name the module never imports is a forward
reference; the declaring class's other methods type an unannotated slot, as a weaker inference),
so a read the baseline's class had and the target's class lost is reported where the consumer
reads it (drift/analysis/override_slots.py, `over:` roots in probes/reach.py)."""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

EXT = {"ext/nn.py": """
    class Module:
        '''A base drift has no facts for (as torch.nn.Module): it could provide attributes.'''
    """}
BEFORE = {**EXT, "gizmo/layers.py": """
    from ext.nn import Module


    class Layer(Module):
        def __init__(self):
            self.ep_rank = 0
            self.router = "r"


    class Plain:
        def __init__(self):
            self.ep_rank = 0
            self.config = "c"
    """, "gizmo/quant.py": """
    class MethodBase:
        def apply(self, layer: "Layer", x):  # noqa: F821 - a forward reference never imported
            raise NotImplementedError

        def process(self, layer):
            pass

        def run(self, module: "Plain"):  # noqa: F821
            raise NotImplementedError
    """}
AFTER = {**EXT, "gizmo/layers.py": """
    from ext.nn import Module


    class Layer(Module):
        def __init__(self):
            self.ep_rank = 0
            self.router = "r"


    class Experts(Module):
        def __init__(self):
            self.config = "c"


    class Plain:
        def __init__(self):
            self.config = "c"
    """, "gizmo/quant.py": """
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from gizmo.layers import Experts, Plain


    class MethodBase:
        def apply(self, layer: "Experts", x):
            raise NotImplementedError

        def process(self, layer):
            pass

        def run(self, module: "Plain"):
            raise NotImplementedError
    """}
CONSUMER = {"app/method.py": """
    from gizmo.layers import Layer, Plain
    from gizmo.quant import MethodBase


    class MyMethod(MethodBase):
        def apply(self, layer: Layer, x):
            return layer.router, x

        def process(self, layer):
            return layer.ep_rank

        def run(self, module):
            return module.config, module.ep_rank

        def helper(self, layer):
            return layer.anything

        def extra(self, module: Plain):
            return module.ep_rank


    class Standalone:
        def apply(self, layer, x):
            return layer.router
    """}


def _drift060(findings):
    return {f.consumer_site.line: f for f in findings if f.rule_id == "DRIFT060"}


def test_the_overridden_declaration_types_the_slot_on_each_side(tmp_path):
    src = CONSUMER["app/method.py"]
    found = _drift060(findings_of(tmp_path, Case("override-slots", BEFORE, AFTER, CONSUMER)))
    run_line = line_of(src, "module.ep_rank")
    apply_line = line_of(src, "layer.router, x")
    process_line = line_of(src, "return layer.ep_rank")
    extra_line = line_of(src, "return module.ep_rank")
    assert set(found) == {run_line, apply_line, process_line, extra_line}, found
    # a method the target does not declare: the consumer's own annotation types it, as before
    assert found[extra_line].severity == Severity.BREAKING
    # declared on both sides, and the target's class is fully known: breaking
    assert found[run_line].severity == Severity.BREAKING
    assert found[run_line].predicted_failure == "AttributeError: 'Plain' object has no attribute 'ep_rank'"
    # declared (the baseline's as a forward reference) over the consumer's own annotation, but the
    # target's class has a base drift cannot read: risky, and the finding says why
    assert found[apply_line].severity == Severity.RISKY
    assert "ext.nn.Module" in (found[apply_line].details or "")
    assert found[apply_line].predicted_failure == "AttributeError: 'Experts' object has no attribute 'router'"
    # an unannotated declaration typed from the class's other methods: risky
    assert found[process_line].severity == Severity.RISKY


def test_python_raises_what_drift_predicts(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    packages = ("gizmo", "app", "ext")
    assert raised_by([before, app], "app.method", "MyMethod().apply(__import__('gizmo.layers').layers.Layer(), 0)",
                     packages=packages) is None
    assert raised_by([before, app], "app.method", "MyMethod().run(__import__('gizmo.layers').layers.Plain())",
                     packages=packages) is None
    assert raised_by([after, app], "app.method", "MyMethod().apply(__import__('gizmo.layers').layers.Experts(), 0)",
                     packages=packages) == "AttributeError: 'Experts' object has no attribute 'router'"
    assert raised_by([after, app], "app.method", "MyMethod().run(__import__('gizmo.layers').layers.Plain())",
                     packages=packages) == "AttributeError: 'Plain' object has no attribute 'ep_rank'"
    assert raised_by([after, app], "app.method", "MyMethod().process(__import__('gizmo.layers').layers.Experts())",
                     packages=packages) == "AttributeError: 'Experts' object has no attribute 'ep_rank'"


GUARDED = {"app/method.py": """
    from gizmo.quant import MethodBase


    class MyMethod(MethodBase):
        def run(self, module):
            if getattr(module, "ep_rank", None) is not None:
                return module.ep_rank
            return None

        def process(self, layer):
            if hasattr(layer, "ep_rank"):
                return layer.ep_rank
            return None
    """}


def test_a_read_the_consumer_tested_for_first_is_silent(tmp_path):
    found = _drift060(findings_of(tmp_path, Case("override-slots-guarded", BEFORE, AFTER, GUARDED)))
    assert found == {}, found
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", GUARDED)
    packages = ("gizmo", "app", "ext")
    assert raised_by([after, app], "app.method", "MyMethod().run(__import__('gizmo.layers').layers.Plain())",
                     packages=packages) is None
    assert raised_by([after, app], "app.method", "MyMethod().process(__import__('gizmo.layers').layers.Experts())",
                     packages=packages) is None
