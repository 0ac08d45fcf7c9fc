"""drift diff follows what a class or package no longer offers although nothing was deleted where
users look: members a class inherited through a base it dropped (vLLM 0.16's
`LinearBase(CustomOp)` -> `LinearBase(PluggableLayer)`), names a package re-exported with a star
import (`from vllm.distributed import get_tensor_model_parallel_group`), and what changed with a
class or function that moved (it is compared with its new definition)."""

from __future__ import annotations

from drift.analysis.diff import ChangeKind
from tests.test_diff_engine import diff

K = ChangeKind


def by(changes, kind):
    return {c.dotted: c for c in changes if c.kind is kind}


OP_OLD = {
    "pkg.op": """
        class CustomOp:
            registry = {}
            def enabled(self): ...
            def forward_cuda(self, x): ...
            def forward(self, x): ...
        class Pluggable:
            def forward(self, x): ...
        """,
    "pkg.linear": """
        from pkg.op import CustomOp
        class LinearBase(CustomOp):
            def weight_loader(self): ...
            def forward_cuda(self, x): ...
        class RowParallel(LinearBase):
            pass
        class ColumnParallel(LinearBase):
            pass
        """,
}
OP_NEW = {
    "pkg.op": OP_OLD["pkg.op"],
    "pkg.linear": OP_OLD["pkg.linear"].replace("from pkg.op import CustomOp", "from pkg.op import Pluggable")
                                      .replace("class LinearBase(CustomOp):", "class LinearBase(Pluggable):"),
}


def test_members_of_a_dropped_base_are_lost_once_at_the_class_that_dropped_it():
    changes = diff(OP_OLD, OP_NEW)
    removed = by(changes, K.SYMBOL_REMOVED)
    assert "pkg.linear.LinearBase.enabled" in removed
    detail = removed["pkg.linear.LinearBase.enabled"].detail
    assert "came from pkg.op.CustomOp, no longer a base" in detail and "inherited by 2 subclasses" in detail
    assert removed["pkg.linear.LinearBase.enabled"].old[0].path == "pkg/op.py"  # where it was defined
    lost_attr = by(changes, K.CLASS_ATTRIBUTE_REMOVED)
    assert set(lost_attr) == {"pkg.linear.LinearBase.registry"}
    # still there: its own override, and `forward`, which the new base provides
    assert "pkg.linear.LinearBase.forward_cuda" not in removed and "pkg.linear.LinearBase.forward" not in removed
    # reported where the base was dropped, not again for every subclass
    assert not [d for d in removed if d.startswith(("pkg.linear.RowParallel.", "pkg.linear.ColumnParallel."))]
    assert set(by(changes, K.BASE_CHANGED)) == {"pkg.linear.LinearBase"}


def test_a_base_that_moved_modules_is_still_that_base():
    new = {
        "pkg.op": "class Pluggable: ...\n",
        "pkg.ops.custom": OP_OLD["pkg.op"],
        "pkg.linear": OP_OLD["pkg.linear"].replace("from pkg.op import CustomOp", "from pkg.ops.custom import CustomOp"),
    }
    changes = diff(OP_OLD, new)
    assert not [c for c in changes if "no longer inherited" in c.detail]


FIELDS_OLD = {
    "pkg.keys": """
        from dataclasses import dataclass, field
        @dataclass
        class ModelKeys:
            model_type: str = None
            q_proj: list = None
        @dataclass
        class MultiKeys(ModelKeys):
            language_model: list = field(default_factory=list)
        """,
}
FIELDS_NEW = {"pkg.keys": FIELDS_OLD["pkg.keys"].replace("class MultiKeys(ModelKeys):", "class MultiKeys:")}


def test_a_dataclass_that_drops_its_base_loses_the_fields_and_shifts_its_own():
    changes = diff(FIELDS_OLD, FIELDS_NEW)
    lost = [c for c in changes if c.kind is K.FIELD_REMOVED and c.dotted == "pkg.keys.MultiKeys"]
    assert sorted(c.detail.split(":")[0] for c in lost) == ["model_type", "q_proj"]
    assert all("came from pkg.keys.ModelKeys, no longer a base" in c.detail for c in lost)
    moved = by(changes, K.PARAM_MOVED)["pkg.keys.MultiKeys.__init__"]
    assert "language_model 2->0" in moved.detail and "removed before them: model_type, q_proj" in moved.detail


def test_a_subclass_of_a_changed_dataclass_does_not_repeat_its_base_shift():
    old = {"pkg.cfg": """
        from dataclasses import dataclass
        @dataclass
        class Args:
            model: str = "m"
            tokenizer: str = None
        @dataclass
        class AsyncArgs(Args):
            quiet: bool = False
        """}
    new = {"pkg.cfg": old["pkg.cfg"].replace('model: str = "m"', 'model: str = "m"\n            runner: str = "auto"')}
    moved = by(diff(old, new), K.PARAM_MOVED)
    assert set(moved) == {"pkg.cfg.Args.__init__"}


STAR_OLD = {
    "pkg.dist.__init__": "from .state import *\nfrom .utils import *\n",
    "pkg.dist.state": """
        from typing import Optional
        def get_tp_group(): ...
        def get_pp_group(): ...
        def _private(): ...
        WORLD = 1
        """,
    "pkg.dist.utils": "__all__ = ['split']\ndef split(): ...\ndef hidden(): ...\n",
}
STAR_NEW = {
    "pkg.dist.__init__": "from .state import *\n",
    "pkg.dist.state": """
        from typing import Optional
        def get_tp_group(): ...
        WORLD = 1
        """,
    "pkg.dist.utils": STAR_OLD["pkg.dist.utils"],
}


def test_names_a_star_import_re_exported_are_part_of_the_package_surface():
    changes = diff(STAR_OLD, STAR_NEW)
    removed = by(changes, K.SYMBOL_REMOVED)
    assert "pkg.dist.get_pp_group" in removed  # gone from the package and from its module
    moved = by(changes, K.SYMBOL_MOVED)
    # `from pkg.dist import split` breaks, `from pkg.dist.utils import split` still works
    assert "pkg.dist.split" in moved and "no longer re-exported here" in moved["pkg.dist.split"].detail
    # still re-exported: nothing; private names, names the module only imports, and names
    # outside the star's __all__ were never offered
    for name in ("get_tp_group", "WORLD", "_private", "Optional", "hidden"):
        assert f"pkg.dist.{name}" not in removed and f"pkg.dist.{name}" not in moved, name


MOVED_OLD = {
    "pkg.backends.utils": """
        from typing import ClassVar
        class MetadataBuilder:
            cudagraph_support: ClassVar[int] = 0
            def build(self, common, fast=False): ...
            def reorder_batch(self, batch): ...
        def make_builder(spec, device): ...
        """,
    "pkg.backends.flash": """
        from pkg.backends.utils import MetadataBuilder
        class FlashBuilder(MetadataBuilder):
            pass
        """,
}
MOVED_NEW = {
    "pkg.backends.utils": "X = 1\n",
    "pkg.backend": """
        from typing import ClassVar
        class MetadataBuilder:
            _cudagraph_support: ClassVar[int] = 0
            def build(self, common, fast=False): ...
            def reorder_batch(self, batch, extra): ...
        def make_builder(spec): ...
        """,
    "pkg.backends.flash": """
        from pkg.backend import MetadataBuilder
        class FlashBuilder(MetadataBuilder):
            pass
        """,
}


def test_a_moved_class_or_function_is_compared_with_its_new_definition():
    changes = diff(MOVED_OLD, MOVED_NEW)
    moved = by(changes, K.SYMBOL_MOVED)
    assert {"pkg.backends.utils.MetadataBuilder", "pkg.backends.utils.make_builder"} <= set(moved)
    gone = by(changes, K.CLASS_ATTRIBUTE_REMOVED)["pkg.backends.utils.MetadataBuilder.cudagraph_support"]
    assert gone.new[0].path == "pkg/backend.py"  # evidence in the new home
    assert "pkg.backends.utils.MetadataBuilder.reorder_batch" in by(changes, K.PARAM_REQUIRED_ADDED)
    assert "pkg.backends.utils.make_builder" in by(changes, K.PARAM_REMOVED)


def test_a_same_named_definition_with_another_api_is_not_compared():
    new = dict(MOVED_NEW)
    new["pkg.backend"] = """
        class MetadataBuilder:
            def totally(self): ...
            def different(self): ...
        """
    changes = diff(MOVED_OLD, new)
    assert not [c for c in changes if c.dotted.startswith("pkg.backends.utils.MetadataBuilder.")]


def test_fields_that_became_keyword_only_change_the_generated_init():
    old = {"pkg.spec": """
        from dataclasses import dataclass
        @dataclass(frozen=True)
        class AttentionSpec:
            num_kv_heads: int
            head_size: int
        """}
    new = {"pkg.spec": old["pkg.spec"].replace("@dataclass(frozen=True)", "@dataclass(frozen=True, kw_only=True)")}
    changes = [c for c in diff(old, new) if c.kind is K.PARAM_KIND_CHANGED]
    assert [(c.dotted, c.detail) for c in changes] == [
        ("pkg.spec.AttentionSpec.__init__", "num_kv_heads: positional-or-keyword -> keyword-only (field)"),
        ("pkg.spec.AttentionSpec.__init__", "head_size: positional-or-keyword -> keyword-only (field)")]


def test_a_move_target_that_already_existed_is_another_object():
    old = {"pkg.models.qwen": "def rotate(x, cos, sin, neox): ...\n",
           "pkg.vendor.rotary": "def rotate(x, cos, sin, interleaved=False): ...\n"}
    new = {"pkg.models.qwen": "X = 1\n", "pkg.vendor.rotary": old["pkg.vendor.rotary"]}
    changes = diff(old, new)
    assert not [c for c in changes if c.dotted == "pkg.models.qwen.rotate" and c.kind.name.startswith("PARAM_")]


def test_a_dropped_base_of_the_same_name_is_lost_too():
    old = {"pkg.worker.base": "class WorkerBase:\n    def start_loop(self): ...\n",
           "pkg.v1.base": "from pkg.worker.base import WorkerBase as V0\nclass WorkerBase(V0):\n    def load(self): ...\n"}
    new = {"pkg.worker.base": "X = 1\n", "pkg.v1.base": "class WorkerBase:\n    def load(self): ...\n"}
    removed = by(diff(old, new), K.SYMBOL_REMOVED)
    assert "came from pkg.worker.base.WorkerBase" in removed["pkg.v1.base.WorkerBase.start_loop"].detail
