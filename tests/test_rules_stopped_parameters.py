"""DRIFT070's bind_parameters over synthetic before/after packages: the target's layer stopped
passing routing settings one by one to its method (`apply(layer=self, x=, top_k=self.top_k, ...)`
became `apply(layer=self, x=)`); an override written for the old call gets them out of its `def`
and reads them from the layer, and the patched consumer really runs on the target. Safe when every
call the baseline's layer made passed `layer=self` and each setting as `self.<same name>` (facts
+kwc: the reads then give the very values); a setting passed as anything else is still taken out
of the `def`, but the safe edit is written only where the body never reads it (round 14: vLLM
0.12's FusedMoE passed `expert_map=` as a conditional, and tpu-inference's overrides never read
it); unsafe when the layer itself was not passed as `layer=self`. With no evidence that the
baseline passed them from inside the layer's class, the finding stays manual."""

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


def test_a_setting_the_baseline_passed_otherwise_is_bound_only_where_the_body_never_reads_it(tmp_path):
    before = {**BEFORE, "gizmo/moe.py": BEFORE["gizmo/moe.py"].replace("scoring=self.scoring)", 'scoring="softmax")')}
    findings = findings_of(tmp_path, Case("stopped-literal", before, AFTER, CONSUMER))
    f = only(findings, "DRIFT070")
    assert f.fix.codemod == "bind_parameters" and f.fix.tier == SAFE and f.fix.args["unread"] == ["scoring"]
    assert "written only where the body reads none of `scoring`" in f.fix.description
    rel = "app/moe.py"
    # this override returns `scoring`: nothing shows layer.scoring is what the baseline passed, so
    # nothing is written, safe fixes or not
    source = (tmp_path / "consumer" / rel).read_bytes()
    for unsafe in (False, True):
        patch = plan({rel: source}, list(findings), unsafe_fixes=unsafe)
        assert patch.empty and "reads scoring" in patch.skipped[0][1]
    # one that never reads it is patched by default and runs on the target with the layer's values
    quiet = {"app/__init__.py": "", rel: CONSUMER[rel].replace("return (x, top_k, renormalize, scoring)",
                                                               "return (x, top_k, renormalize)")}
    findings = findings_of(tmp_path / "quiet", Case("stopped-quiet", before, AFTER, quiet))
    home = tmp_path / "quiet" / "consumer"
    patch = plan({rel: (home / rel).read_bytes()}, list(findings))
    patched = patch.changes[0].after.decode()
    assert "def apply(self, layer, x):" in patched and "scoring =" not in patched
    (home / rel).write_text(patched)
    roots = [tmp_path / "quiet" / "after", home]
    assert raised_by(roots, "app.moe", "None if run('x') == ('x', 3, True) else 1 / 0") is None


def test_a_layer_not_passed_as_itself_leaves_the_fix_unsafe(tmp_path):
    before = {**BEFORE, "gizmo/moe.py": BEFORE["gizmo/moe.py"].replace("apply(layer=self,", "apply(layer=self.inner,")}
    f = only(findings_of(tmp_path, Case("stopped-inner", before, AFTER, CONSUMER)), "DRIFT070")
    assert f.fix.codemod == "bind_parameters" and f.fix.tier == UNSAFE and "unread" not in f.fix.args
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
