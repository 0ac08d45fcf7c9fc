"""Expressions that read the names a callable accepts: a filter through them keeps only keys the
callable takes, so a keyword the target dropped never reaches it (no TypeError to report).

One place for the probe's two readers (the solver's IR, probes/ir.py, and the pattern reach,
probes/reach.py), so both recognise the same spellings:
- `inspect.signature(C)` and anything `.parameters` (the signature's names);
- `C.__dataclass_fields__` and `dataclasses.fields(C)` / `fields(C)` (a dataclass's fields: what
  its generated `__init__` takes);
- `C.model_fields` / `C.__fields__` (a pydantic model's fields: what its `__init__` validates).
"""

from __future__ import annotations

import ast

from .astwalk import walk
from .srctext import dotted as _dotted

FIELD_TABLES = frozenset({"__dataclass_fields__", "model_fields", "__fields__"})  # read off the class itself
FIELD_ATTRIBUTES = FIELD_TABLES | {"parameters"}
FIELD_READERS = frozenset({"fields", "dataclasses.fields", "attr.fields", "attrs.fields"})


def reads_accepted_names(node):
    """`X.parameters`, `C.__dataclass_fields__`, `C.model_fields`, or a call of `signature(...)` /
    `fields(...)` (`inspect.signature(C)`, `dataclasses.fields(C)`): C's accepted names."""
    if isinstance(node, ast.Attribute):
        return node.attr in FIELD_ATTRIBUTES
    if not isinstance(node, ast.Call):
        return False
    func = _dotted(node.func) or ""
    return func.split(".")[-1] == "signature" or func in FIELD_READERS and len(node.args) == 1


def accepted_names_held(nodes):
    """Names assigned from anything reading a callable's accepted names (`params =
    inspect.signature(C).parameters`, `names = {f.name for f in fields(C)}`)."""
    out = set()
    for node in nodes:
        if isinstance(node, ast.Assign) and any(reads_accepted_names(n) for n in walk(node.value)):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out
