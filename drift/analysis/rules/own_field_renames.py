"""A field the target renamed, told by the target's own constructions of its class.

vLLM 0.29 renamed `KVCacheTensor.shared_by` to `layers`: the names are far apart (no spelling
match finds it), yet vLLM's own `kv_cache_utils` built `KVCacheTensor(size=..., shared_by=layer_names)`
in the baseline and builds `KVCacheTensor(size=..., layers=layer_names)` in the target, in the
same function, with the very value (or with the same rename applied inside it: its offload
scheduler copied `shared_by=list(t.shared_by)`, now `layers=list(t.layers)`). That is the
maintainers saying the field is the same data under a new name: a consumer's read of
`tensor.shared_by` becomes `tensor.layers` (tpu-inference's fix). Where two functions disagree,
or the value changed on the way, nothing is said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drift.analysis.rules.values import ctor_calls
from drift.model.facts import CtorCall
from drift.model.index import PackageIndex


@dataclass(frozen=True)
class FieldRename:
    new: str
    evidence: str  # "path:line" of the target's own construction passing the new keyword
    was: str  # "path:line" of the baseline's construction passing the old one


def _renamed_in(value: str, old: str, new: str) -> str:
    """`value` with its own reads of `.old` written `.new` (`list(t.shared_by)` -> `list(t.layers)`):
    the copy of a field from one object to another, rewritten by the same rename."""
    return re.sub(rf"\.{re.escape(old)}\b", "." + new, value)


def own_field_rename(baseline: PackageIndex | None, target: PackageIndex, cls_name: str, old: str,
                     new_names: set[str]) -> FieldRename | None:
    """The one of `new_names` the target's own constructions of `cls_name` pass where the same
    function of the baseline passed `old`, with the same value text; None when no function shows
    it, or functions name different successors."""
    if baseline is None or not new_names or not cls_name[:1].isupper():
        return None
    after: dict[tuple[str, str], list[CtorCall]] = {}
    for entry in ctor_calls(target, cls_name):
        after.setdefault((entry["path"], entry["function"]), []).append(CtorCall(entry["call"]))
    found: dict[str, FieldRename] = {}
    for entry in ctor_calls(baseline, cls_name):
        call = CtorCall(entry["call"])
        value = call.keywords.get(old)
        if not isinstance(value, str):
            continue
        for now in after.get((entry["path"], entry["function"]), ()):
            if old in now.keywords:
                continue
            hits = [n for n in sorted(new_names) if now.keywords.get(n) in (value, _renamed_in(value, old, n))]
            if len(hits) == 1:
                found.setdefault(hits[0], FieldRename(hits[0], f"{entry['path']}:{now.line}",
                                                      f"{entry['path']}:{call.line}"))
    return next(iter(found.values())) if len(found) == 1 else None
