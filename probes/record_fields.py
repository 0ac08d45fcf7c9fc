"""Record classes and their fields, in the order their generated `__init__` takes them (stdlib, 3.9+).

Why: a consumer parks a vLLM object in a field of its own config record (`@dataclass class
PluginConfig: cache_config: Any = None`, built as `PluginConfig(cache_config=vllm_config.
cache_config)`) and reads it much later (`cfg.plugin.cache_config.calculate_kv_scales`). The
annotation says nothing (`Any`, or none); the construction sites say what the field holds. A
dataclass, an attrs class, a pydantic model and a NamedTuple have no `__init__` in the source: the
generated one takes the fields by keyword or in this order, so the solver (drift/consumer/infer.py)
binds each argument of a construction (and each keyword of `dataclasses.replace(obj, f=...)`)
to the field it fills.
"""

import ast

from .srctext import dotted as _dotted

_DECORATORS = ("dataclass", "define", "frozen", "mutable", "dataclass_transform")  # last dotted part
_ATTRS = ("attr.s", "attr.attrs", "attrs")
_BASES = ("NamedTuple", "BaseModel", "BaseSettings", "Struct")
_NOT_FIELDS = ("ClassVar", "InitVar")


def is_record(node):
    """Whether a ClassDef is a record whose `__init__` is generated from its annotated fields."""
    for d in node.decorator_list:
        name = _dotted(d.func if isinstance(d, ast.Call) else d) or ""
        if name.split(".")[-1] in _DECORATORS or name in _ATTRS:
            return True
    return any((_dotted(b) or "").split(".")[-1] in _BASES for b in node.bases)


def record_fields(node):
    """[(name, annotation node)] of the record's own annotated fields, in the order written
    (`ClassVar` and `InitVar` ones are not stored fields); [] for a class that is no record."""
    if not is_record(node):
        return []
    out = []
    for st in node.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.simple:
            head = st.annotation.value if isinstance(st.annotation, ast.Subscript) else st.annotation
            if (_dotted(head) or "").split(".")[-1] not in _NOT_FIELDS:
                out.append((st.target.id, st.annotation))
    return out
