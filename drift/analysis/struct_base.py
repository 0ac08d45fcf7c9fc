"""What an instance of a `msgspec.Struct` answers for itself, so a target class built on one can
be said to lack an attribute.

Why: vLLM's engine messages (requests, outputs, events) are `msgspec.Struct` classes, and drift
never reads msgspec. A Struct instance is closed: it holds exactly the fields its classes
declare (plus what the classes define), has no `__getattr__` fallback, and Struct itself adds no
public name, only dunders (`__struct_fields__`, `__struct_config__`, `__copy__`, ...). So once
the target's Struct and every base drift can read no longer declare a name that does not start
with `__`, reading it raises AttributeError (`'EngineCoreRequest' object has no attribute ...`),
exactly as for a class whose every base drift read.
"""

from __future__ import annotations

STRUCT_BASES = frozenset({"msgspec.Struct"})


def is_struct_base(dotted: str) -> bool:
    return dotted in STRUCT_BASES


def struct_defines(name: str) -> bool:
    """Whether `msgspec.Struct` itself may answer `name`: only its dunders."""
    return name.startswith("__")
