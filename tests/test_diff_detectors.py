"""drift diff's detectors on synthetic before/after packages parsed by the real probe: removed
instance and class attributes (through the MRO), positional shifts, and the precision rules for
RETURNS_NONE, STATE_RAISE_ADDED and ARG_ASSERT_ADDED (shapes seen on vLLM 0.11 -> 0.16)."""

from __future__ import annotations

import pytest

from drift.analysis.diff import ChangeKind
from drift.model.index import PackageIndex
from tests.test_diff_engine import diff, facts_of, one

K = ChangeKind


def of(changes, kind):
    return [c for c in changes if c.kind is kind]


# -- instance attributes ------------------------------------------------------------------------
RUNNER_OLD = """
from pkg.buffers import CpuGpuBuffer

class Base:
    def __init__(self):
        self.device = "cuda"
        self.kv_caches = []

class Runner(Base):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.input_ids = CpuGpuBuffer(4)
        self.positions = CpuGpuBuffer(4)
        self.spec = None

    def load(self):
        self.model = make_model()
        self.gone_later = 1

class Child(Runner):
    pass
"""

RUNNER_NEW = """
import torch
from pkg.buffers import CpuGpuBuffer as Buf

class Base:
    def __init__(self):
        self.device = "cuda"

class Runner(Base):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.input_ids = torch.zeros(4)
        self.positions = Buf(4)

    @property
    def spec(self):
        return self.config.spec

    def load(self):
        self.model = make_model()

class Child(Runner):
    pass
"""


def test_instance_attributes_removed_and_retyped_through_the_mro():
    changes = diff({"pkg.buffers": "class CpuGpuBuffer: ...", "pkg.r": RUNNER_OLD},
                   {"pkg.buffers": "class CpuGpuBuffer: ...", "pkg.r": RUNNER_NEW})
    removed = {c.dotted: c for c in of(changes, K.ATTRIBUTE_REMOVED)}
    # reported once where it was set: Base lost kv_caches, Runner lost gone_later (set in load)
    assert set(removed) == {"pkg.r.Base.kv_caches", "pkg.r.Runner.gone_later"}
    assert "inherited by 2 subclasses" in removed["pkg.r.Base.kv_caches"].detail
    assert "set in load" in removed["pkg.r.Runner.gone_later"].detail
    assert removed["pkg.r.Runner.gone_later"].old[0].line == 19
    assert removed["pkg.r.Runner.gone_later"].breaking
    # spec is now a property: still there. positions: same class under an import alias.
    retyped = one(changes, K.ATTRIBUTE_TYPE_CHANGED)
    assert retyped.dotted == "pkg.r.Runner.input_ids"
    assert retyped.detail == "self.input_ids: call:CpuGpuBuffer -> call:torch.zeros"
    assert not retyped.breaking


def test_subclass_that_drops_the_base_loses_its_attributes_there():
    old = {"pkg.m": "class A:\n    def __init__(self):\n        self.x = 1\nclass B(A):\n    pass"}
    new = {"pkg.m": "class A:\n    def __init__(self):\n        self.x = 1\nclass B:\n    pass"}
    change = one(diff(old, new), K.ATTRIBUTE_REMOVED)
    assert change.dotted == "pkg.m.B.x" and "set by pkg.m.A.__init__, no longer a base" in change.detail


@pytest.mark.parametrize("new_body", [
    "class A:\n    x: int = 0",                                    # now a class attribute
    "class A:\n    def x(self): ...",                              # now a method
    "class A:\n    def __getattr__(self, name): ...",             # dynamic: cannot tell
    "class Base:\n    def __init__(self):\n        self.x = 2\nclass A(Base):\n    pass",  # hoisted
])
def test_instance_attribute_still_provided(new_body):
    old = {"pkg.m": "class A:\n    def __init__(self):\n        self.x = 1"}
    assert of(diff(old, {"pkg.m": new_body}), K.ATTRIBUTE_REMOVED) == []


# -- class attributes and ClassVars -------------------------------------------------------------
MIXIN_OLD = """
from typing import ClassVar

class SupportsLoRA:
    supports_lora: ClassVar[bool] = True
    embedding_padding_modules: ClassVar[list[str]] = []
    packed = {}

class M1(SupportsLoRA): ...
class M2(SupportsLoRA): ...
class M3(M2): ...
"""

MIXIN_NEW = """
from typing import ClassVar

class SupportsLoRA:
    supports_lora: ClassVar[bool] = True

class M1(SupportsLoRA): ...
class M2(SupportsLoRA): ...
class M3(M2): ...
"""


def test_mixin_classvar_removed_once_with_subclass_count():
    changes = of(diff({"pkg.i": MIXIN_OLD}, {"pkg.i": MIXIN_NEW}), K.CLASS_ATTRIBUTE_REMOVED)
    got = {c.dotted: c.detail for c in changes}
    assert got == {
        "pkg.i.SupportsLoRA.embedding_padding_modules":
            "ClassVar embedding_padding_modules is gone (inherited by 3 subclasses)",
        "pkg.i.SupportsLoRA.packed": "class attribute packed is gone (inherited by 3 subclasses)",
    }
    assert all(c.breaking for c in changes)


def test_class_attribute_moved_to_a_base_is_not_removed():
    old = {"pkg.m": "class B: ...\nclass A(B):\n    limit = 4"}
    new = {"pkg.m": "class B:\n    limit = 8\nclass A(B): ..."}
    assert of(diff(old, new), K.CLASS_ATTRIBUTE_REMOVED) == []


def test_subclass_counts_come_from_the_shared_resolver():
    facts = facts_of({"pkg.i": MIXIN_OLD})
    index = PackageIndex(facts)
    assert index.subclass_count("pkg.i.SupportsLoRA") == 3
    assert index.subclass_count("pkg.i.M2") == 1
    cls = index.lookup("pkg.i.M3")
    assert index.provides(cls, "packed") and not index.provides(cls, "nothing")


# -- positional shifts --------------------------------------------------------------------------
@pytest.mark.parametrize("before, after, detail", [
    ("def f(a, b, c=1): ...", "def f(a, new=None, b=0, c=1): ...", "b 1->2, c 2->3 (inserted before them: new=None)"),
    ("def f(self, x, y): ...", "def f(self, w=0, x=1, y=2): ...", "x 1->2, y 2->3 (inserted before them: w=0)"),
    ("def f(a, b, c): ...", "def f(a, c): ...", "c 2->1 (removed before them: b)"),
    ("def f(a, b): ...", "def f(a, c, b=1): ...", "b 1->2 (inserted before them: c)"),
])
def test_parameter_inserted_or_removed_mid_signature_shifts_positional_callers(before, after, detail):
    change = one(diff({"pkg.m": before}, {"pkg.m": after}), K.PARAM_MOVED)
    assert change.detail == detail and change.breaking


@pytest.mark.parametrize("before, after", [
    ("def f(a, b): ...", "def f(a, b, c=None): ..."),        # appended: nobody shifts
    ("def f(a, b, c): ...", "def f(a, x, c): ..."),          # renamed in place
    ("def f(a, b): ...", "def f(a, *, k=1, b=2): ..."),      # b became keyword-only (kind change)
])
def test_no_shift(before, after):
    assert of(diff({"pkg.m": before}, {"pkg.m": after}), K.PARAM_MOVED) == []


def test_dataclass_field_inserted_before_others_shifts_the_generated_init():
    old = {"pkg.m": "from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int\n    b: int = 0"}
    new = {"pkg.m": "from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int\n    z: int = 9\n    b: int = 0"}
    change = one(diff(old, new), K.PARAM_MOVED)
    assert change.dotted == "pkg.m.C.__init__" and change.detail == "constructor fields: b 1->2 (inserted before them: z=9)"


# -- RETURNS_NONE: None on every path only ------------------------------------------------------
@pytest.mark.parametrize("new_body, fires", [
    ("def f(x):\n    log(x)\n    return None", True),
    # the three vLLM shapes: a value on an early branch, then a tail `return None`
    ("def f(x):\n    if x:\n        return x.value\n    return None", False),
    ("def f(x):\n    try:\n        return parse(x)\n    except KeyError:\n        pass\n    return None", False),
    ("def f(x):\n    for item in x:\n        if item:\n            return item\n    return None", False),
    # a nested function's return is not this function's
    ("def f(x):\n    def inner():\n        return 1\n    register(inner)\n    return None", True),
])
def test_returns_none_only_when_no_path_returns_a_value(new_body, fires):
    changes = diff({"pkg.m": "def f(x):\n    return x"}, {"pkg.m": new_body})
    assert bool(of(changes, K.RETURNS_NONE)) is fires


def test_returns_none_needs_an_old_value_return():
    old = {"pkg.m": "def f(x):\n    if x:\n        raise ValueError\n    return None"}
    assert of(diff(old, {"pkg.m": "def f(x):\n    log(x)\n    return None"}), K.RETURNS_NONE) == []


# -- STATE_RAISE_ADDED --------------------------------------------------------------------------
CONFIG_OLD = """
class Config:
    def __post_init__(self):
        self._verify()

    def _verify(self):
        if self.backend not in ("a", "b"):
            raise ValueError(f"Invalid backend for piecewise compilation: {backend}")
"""

CONFIG_NEW = """
class Config:
    def __post_init__(self):
        if self.backend not in ("a", "b"):
            raise ValueError(f"Invalid backend for piecewise compilation: {self.backend}")
        if self.kv_connector is not None and self.kv_role is None:
            raise ValueError("Please specify kv_role when kv_connector is set")
"""


def test_raise_that_existed_elsewhere_or_validates_configuration_is_not_a_state_raise():
    assert of(diff({"pkg.c": CONFIG_OLD}, {"pkg.c": CONFIG_NEW}), K.STATE_RAISE_ADDED) == []


def test_raise_guarded_by_state_another_method_changes_is_reported():
    old = "class R:\n    def run(self, b):\n        return go(b)\n    def sample(self):\n        return 1"
    new = ("class R:\n    def run(self, b):\n        if self.pending is not None:\n"
           "            raise RuntimeError('sample() must be called after run()')\n"
           "        self.pending = go(b)\n        return go(b)\n"
           "    def sample(self):\n        out = self.pending\n        self.pending = None\n        return out")
    change = one(diff({"pkg.r": old}, {"pkg.r": new}), K.STATE_RAISE_ADDED)
    assert change.dotted == "pkg.r.R.run" and change.new[0].line == 4


# -- ARG_ASSERT_ADDED ---------------------------------------------------------------------------
@pytest.mark.parametrize("before, after, fires", [
    # a genuinely new requirement on an argument old callers pass
    ("def alloc(request, n):\n    return n",
     "def alloc(request, n):\n    assert len(request.block_hashes) >= n\n    return n", True),
    # compared with a parameter the old signature did not have
    ("def hit(spec, blocks):\n    return blocks",
     "def hit(spec, blocks, alignment_tokens):\n    assert spec.block_size == alignment_tokens\n    return blocks", False),
    # on a parameter the old signature did not have
    ("def conv(req_id):\n    return req_id",
     "def conv(req_id, ws=None):\n    if ws:\n        assert ws.dtype == int32\n    return req_id", False),
    # the same check, the value was a parameter before and is now read off an argument
    ("def apply(layer, activation='silu'):\n    assert activation == 'silu'\n    return layer",
     "def apply(layer):\n    assert layer.activation == 'silu'\n    return layer", False),
    # a renamed parameter at the same position
    ("def fwd(metadata):\n    assert metadata.num_decodes == 0\n    return 1",
     "def fwd(attn_metadata):\n    assert attn_metadata.num_decodes == 0\n    return 1", False),
    # type narrowing only
    ("def build(out):\n    return out.tokens", "def build(out):\n    assert out.tokens is not None\n    return out.tokens", False),
    ("def build(out):\n    return out.x", "def build(out):\n    assert isinstance(out.x, int)\n    return out.x", False),
])
def test_arg_assert_added_precision(before, after, fires):
    changes = of(diff({"pkg.m": before}, {"pkg.m": after}), K.ARG_ASSERT_ADDED)
    assert bool(changes) is fires, [c.detail for c in changes]


def test_one_assert_reading_several_attributes_is_one_change():
    before = "def apply(layer, x):\n    return x"
    after = "def apply(layer, x):\n    assert ok(layer.a, layer.b, layer.c)\n    return x"
    change = one(diff({"pkg.m": before}, {"pkg.m": after}), K.ARG_ASSERT_ADDED)
    assert change.detail == "layer.a, layer.b, layer.c: `assert ok(layer.a, layer.b, layer.c)`"


def test_classmethod_receiver_is_not_an_argument():
    before = "class P:\n    @classmethod\n    def get(cls, b):\n        return b"
    after = "class P:\n    @classmethod\n    def get(cls, b):\n        assert b in cls.supported()\n        return b"
    assert of(diff({"pkg.m": before}, {"pkg.m": after}), K.ARG_ASSERT_ADDED) == []
