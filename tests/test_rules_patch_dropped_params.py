"""DRIFT070 on a function patched over a target method with the baseline's parameters, where the
target's declaration dropped two of them: no target caller passes them any longer, whichever way
it calls the method (here through the layer's `__call__`, which no `.forward(...)` site shows)."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

MODELS = """
    class Attention:
        def forward(self, {params}):
            return hidden

        def __call__(self, *args):
            return self.forward(*args)


    class Layer:
        def __init__(self):
            self.attn = Attention()

        def run(self, {params}):
            return self.attn({params})
    """
BEFORE = {"gizmo/models.py": MODELS.format(params="positions, hidden, kv_cache, meta")}
AFTER = {"gizmo/models.py": MODELS.format(params="positions, hidden")}
CONSUMER = {"app/patch.py": """
    from gizmo.models import Attention


    def custom_forward(self, positions, hidden, kv_cache, meta):
        return hidden


    def tolerant_forward(self, positions, hidden, kv_cache=None, meta=None):
        return hidden


    Attention.forward = custom_forward
    """}


def test_a_patch_that_requires_what_the_target_dropped_breaks_at_its_def(tmp_path):
    src = CONSUMER["app/patch.py"]
    found = [f for f in findings_of(tmp_path, Case("patch-dropped", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT070"]
    assert {(f.consumer_site.line, f.severity.value) for f in found} == {(line_of(src, "def custom_forward"), "breaking")}
    assert "requires `kv_cache`, which `forward` no longer takes" in found[0].title


def test_defaults_keep_the_patch_working(tmp_path):
    consumer = {"app/patch.py": CONSUMER["app/patch.py"].replace("Attention.forward = custom_forward",
                                                               "Attention.forward = tolerant_forward")}
    found = [f for f in findings_of(tmp_path, Case("patch-dropped-ok", BEFORE, AFTER, consumer)) if f.rule_id == "DRIFT070"]
    assert found == []
