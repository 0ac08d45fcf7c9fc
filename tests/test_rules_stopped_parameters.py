"""DRIFT070's bind_parameters over synthetic before/after packages: the target's layer stopped
passing routing settings one by one to its method (`apply(layer=self, x=, top_k=self.top_k, ...)`
became `apply(layer=self, x=)`); an override written for the old call gets them out of its `def`
and reads them from the layer, and the patched consumer really runs on the target. Safe when every
call the baseline's layer made passed `layer=self` and each setting as `self.<same name>` (facts
+kwc: the reads then give the very values), unsafe when one was passed as anything else. With no
evidence that the baseline passed them from inside the layer's class, the finding stays manual."""

from __future__ import annotations

from drift.findings import SAFE, UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/moe.py": """
    class MethodBase:
        def apply(self, layer: "Layer", x, top_k, renormalize, scoring="softmax"):
            raise NotImplementedError


    class Layer:
        def __init__(self, method, top_k=2, renormalize=True):
            self.method, self.top_k, self.renormalize, self.scoring = method, top_k, renormalize, "softmax"

        def forward(self, x):
            return self.method.apply(layer=self, x=x, top_k=self.top_k, renormalize=self.renormalize,
                                     scoring=self.scoring)
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/moe.py": """
    class MethodBase:
        def apply(self, layer: "Layer", x):
            raise NotImplementedError


    class Layer:
        def __init__(self, method, top_k=2, renormalize=True):
            self.method, self.top_k, self.renormalize, self.scoring = method, top_k, renormalize, "softmax"

        def forward(self, x):
            return self.method.apply(layer=self, x=x)
    """}
CONSUMER = {"app/__init__.py": "", "app/moe.py": """
    from gizmo.moe import Layer, MethodBase


    class Mine(MethodBase):
        def apply(self, layer, x, top_k, renormalize, scoring="softmax"):
            return (x, top_k, renormalize, scoring)


    def run(x):
        return Layer(Mine(), top_k=3).forward(x)
    """}


def test_the_dropped_parameters_are_read_from_the_layer_the_target_passes(tmp_path):
    findings = findings_of(tmp_path, Case("stopped", BEFORE, AFTER, CONSUMER))
    f = only(findings, "DRIFT070")
    assert f.fix.codemod == "bind_parameters" and f.fix.tier == SAFE
    assert "each read gives the value the baseline passed" in f.fix.description
    assert f.fix.args["params"] == [["top_k", "layer.top_k"], ["renormalize", "layer.renormalize"],
                                    ["scoring", "layer.scoring"]]
    assert "`top_k = layer.top_k`" in f.fix.description
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("before"), "app.moe", "run('x')") is None
    assert raised_by(roots("after"), "app.moe", "run('x')").startswith("TypeError")

    rel = "app/moe.py"
    source = (tmp_path / "consumer" / rel).read_bytes()
    patch = plan({rel: source}, list(findings))  # safe: written by default
    patched = patch.changes[0].after.decode()
    assert "def apply(self, layer, x):" in patched and "top_k = layer.top_k" in patched
    (tmp_path / "consumer" / rel).write_text(patched)
    assert raised_by(roots("after"), "app.moe", "run('x')") is None
    # the override now gets the layer's own values (the layer was built with top_k=3)
    assert raised_by(roots("after"), "app.moe", "None if run('x') == ('x', 3, True, 'softmax') else 1 / 0") is None
    again = findings_of(tmp_path / "again", Case("stopped-again", BEFORE, AFTER, {"app/__init__.py": "", rel: patched}))
    assert [g for g in again if g.rule_id == "DRIFT070"] == []
    assert plan({rel: patched.encode()}, list(findings), unsafe_fixes=True).empty


def test_a_setting_the_baseline_passed_as_anything_but_the_layers_own_is_unsafe(tmp_path):
    before = {**BEFORE, "gizmo/moe.py": BEFORE["gizmo/moe.py"].replace("scoring=self.scoring)", 'scoring="softmax")')}
    f = only(findings_of(tmp_path, Case("stopped-literal", before, AFTER, CONSUMER)), "DRIFT070")
    assert f.fix.codemod == "bind_parameters" and f.fix.tier == UNSAFE
    assert "check each attribute holds what was passed" in f.fix.description


def test_without_the_baseline_passing_them_from_the_layer_it_stays_manual(tmp_path):
    before = {**BEFORE, "gizmo/moe.py": BEFORE["gizmo/moe.py"].replace(
        "return self.method.apply(layer=self, x=x, top_k=self.top_k, renormalize=self.renormalize,\n"
        "                                     scoring=self.scoring)",
        "return route(self.method, self, x)\n\n\n    def route(method, layer, x):\n"
        "        return method.apply(layer=layer, x=x, top_k=2, renormalize=True)")}
    findings = findings_of(tmp_path, Case("stopped-manual", before, AFTER, CONSUMER))
    f = only(findings, "DRIFT070")
    assert f.fix.codemod is None and f.fix.tier == "manual"


def test_a_range_consumer_gets_the_old_def_kept_in_a_version_branch(tmp_path):
    """The baseline's own caller passes the removed parameters: the edited def is always
    version-gated, the old one kept for the releases that still pass them."""
    from drift.fixes.version_helper import choose_gate

    findings = findings_of(tmp_path, Case("stopped-range", BEFORE, AFTER, CONSUMER))
    rel = "app/moe.py"
    files = {rel: (tmp_path / "consumer" / rel).read_bytes()}
    gate = choose_gate(files, top="app", since="0.13.0", before="0.12.0")
    gated = plan(files, list(findings), unsafe_fixes=True, gate=gate, gate_lines={})
    text = {c.path: c.after.decode() for c in gated.changes}
    mine = text[rel]
    assert "app/vllm_version.py" in text and mine.count("if vllm_version_at_least") == 1
    assert "def apply(self, layer, x):" in mine and "def apply(self, layer, x, top_k, renormalize, scoring=\"softmax\"):" in mine
    compile(mine, rel, "exec")
