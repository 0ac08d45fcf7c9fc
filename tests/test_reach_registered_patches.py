"""A function a decorator registers over a dotted target name (`@register_patch(target=
"vllm.x.Cls.method")`, a patch framework's registry) is a patch of that method, as `Cls.method = fn`
would be: DRIFT070 holds it to how the target now calls the method. A `self.method(...)` or
`super().method(...)` call in a class outside the patched class's family is no such call."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

BEFORE = {"gizmo/moe.py": """
    class MoE:
        def forward(self, x):
            return x

    class Layer:
        def __init__(self):
            self.mlp = MoE()

        def forward(self, x):
            return self.mlp.forward(x)
    """}
AFTER = {"gizmo/moe.py": """
    class MoE:
        def forward(self, x, already=False):
            return x

    class Layer:
        def __init__(self):
            self.mlp = MoE()

        def forward(self, x):
            return self.mlp.forward(x, already=True)
    """}
# another class's own `forward`, called on itself with the new keyword: never the patched method
UNRELATED = {"gizmo/moe.py": """
    class MoE:
        def forward(self, x, already=False):
            return x

    class Other:
        def forward(self, x, already=False):
            return x

        def run(self):
            return self.forward(1, already=True)
    """}
PATCHING = """
    import importlib


    def register_patch(target, reason=""):
        def apply(fn):
            owner, name = target.rsplit(".", 1)
            module, cls = owner.rsplit(".", 1)
            setattr(getattr(importlib.import_module(module), cls), name, fn)
            return fn
        return apply
    """
PLUGIN = """
    from gizmo.moe import MoE

    from app.patching import register_patch


    @register_patch(target="gizmo.moe.MoE.forward", reason="a device-friendly forward")
    def patched_forward(self: MoE, x):
        return x
    """


def test_a_registered_patch_is_held_to_the_targets_calls(tmp_path):
    consumer = {"app/patching.py": PATCHING, "app/plugin.py": PLUGIN}
    found = [f for f in findings_of(tmp_path, Case("registered", BEFORE, AFTER, consumer)) if f.rule_id == "DRIFT070"]
    assert [(f.consumer_site.path, f.consumer_site.line) for f in found] == [
        ("app/plugin.py", line_of(PLUGIN, "def patched_forward"))]
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.plugin", "__import__('gizmo.moe').moe.Layer().forward(1)") == found[0].predicted_failure


def test_a_call_on_another_classs_self_is_not_the_patched_methods(tmp_path):
    consumer = {"app/patching.py": PATCHING, "app/plugin.py": PLUGIN}
    found = findings_of(tmp_path, Case("unrelated", BEFORE, UNRELATED, consumer))
    assert not [f for f in found if f.rule_id == "DRIFT070"], [f.title for f in found]


INHERITED = {"gizmo/moe.py": """
    class Base:
        def step(self, x):
            return self.forward(x, already=True)

        def forward(self, x, already=False):
            return x

    class MoE(Base):
        def forward(self, x, already=False):
            return x
    """}
INHERITED_BEFORE = {"gizmo/moe.py": INHERITED["gizmo/moe.py"].replace("already=True", "").replace(
    ", already=False", "")}


def test_a_base_classs_self_call_reaches_the_patch_on_its_subclass(tmp_path):
    """`self.forward(...)` in a method `MoE` inherits from `Base` runs the patched `MoE.forward`."""
    consumer = {"app/patching.py": PATCHING, "app/plugin.py": PLUGIN}
    found = [f for f in findings_of(tmp_path, Case("inherited", INHERITED_BEFORE, INHERITED, consumer))
             if f.rule_id == "DRIFT070"]
    assert [f.consumer_site.line for f in found] == [line_of(PLUGIN, "def patched_forward")]
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.plugin", "__import__('gizmo.moe').moe.MoE().step(1)") == found[0].predicted_failure
