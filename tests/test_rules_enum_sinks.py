"""DRIFT134 (synthetic before/after trees): a consumer hands a target object's attribute to its own
function whose parameter is declared a string and used as text; the target turned the attribute
from a `str` into a member of a plain Enum. Shown by running the synthetic code on both releases
(the native op is stood in for by a `str` method, which raises the same way on an Enum member)."""

from __future__ import annotations

from pathlib import Path

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by
from tests.test_rules_enum_compares import KINDS, LAYER_AFTER, LAYER_AFTER_STR_ENUM, LAYER_BEFORE

OPS = """
    import torch
    from gizmo.layer import Layer


    class FusedOp(torch.nn.Module):
        def forward(self, x, mode="silu"):
            return torch.ops.mylib.fused(x, mode=mode)


    def describe(kind: str) -> str:
        return f"kind={kind}"


    def lookup(name="silu"):
        return TABLE[name]


    def relay(value, scale=1):
        return describe(value)


    def keep(mode="silu"):
        return mode


    def shout(word: str) -> str:
        return word.upper()


    TABLE = {"silu": 1, "gelu": 2}
    """
MINE = """
    from gizmo.layer import Layer
    from app.ops import FusedOp, describe, keep, lookup, relay, shout


    def setup(layer: Layer):
        layer.op = FusedOp()


    def run(layer: Layer, x):
        out = layer.op(
            x,
            mode=layer.activation,
        )
        label = describe(layer.activation)
        return out, label, lookup(name=layer.activation), relay(layer.activation), keep(layer.activation)


    def check():
        assert shout(Layer("gelu").activation) == "GELU"


    class Method:
        def prepare(self, layer):
            layer.fused = FusedOp()

        def apply(self, layer: Layer, x):
            return layer.fused(x, mode=layer.activation)
    """


TORCH_STANDIN = """
    class nn:
        class Module:
            pass
    """


def _case(after: str) -> Case:
    return Case("enum", {"gizmo/layer.py": LAYER_BEFORE, "gizmo/kinds.py": KINDS},
                {"gizmo/layer.py": after, "gizmo/kinds.py": KINDS},
                {"app/mine.py": MINE, "app/ops.py": OPS, "torch/__init__.py": TORCH_STANDIN})


def test_an_enum_member_handed_to_a_parameter_used_as_text_is_reported(tmp_path: Path):
    found = findings_of(tmp_path, _case(LAYER_AFTER))
    run_line = line_of(MINE, "label = describe")
    assert_findings(found, [("DRIFT134", line_of(MINE, "mode=layer.activation")), ("DRIFT134", run_line),
                            ("DRIFT134", line_of(MINE, "return out, label")), ("DRIFT134", line_of(MINE, "shout(")),
                            ("DRIFT134", line_of(MINE, "layer.fused(x"))])
    by_line = {}
    for f in found:
        by_line.setdefault(f.consumer_site.line, []).append(f.title)
    op = by_line[line_of(MINE, "mode=layer.activation")][0]
    assert "`Activation` member" in op and "FusedOp.forward(mode=)" in op and "native op" in op
    assert "f-string" in by_line[run_line][0]
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    # the torch stand-in is forgotten too: left in sys.modules it would shadow later tests' own
    packages = ("gizmo", "app", "torch")
    assert raised_by(roots("before"), "app.mine", "check()", packages=packages) is None
    assert raised_by(roots("after"), "app.mine", "check()", packages=packages).startswith("AttributeError")


def test_a_str_mixin_enum_or_an_attribute_that_stays_a_string_is_silent(tmp_path: Path):
    assert_findings(findings_of(tmp_path / "mixin", _case(LAYER_AFTER_STR_ENUM)), [])
    assert_findings(findings_of(tmp_path / "same", _case(LAYER_BEFORE)), [])
