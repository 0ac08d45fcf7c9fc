"""The baseline a consumer was written for, read from its own metadata.

`speculators` 0.3.0 says `Requires-Dist: vllm==0.11.0; extra == "datagen"`: that pin (in any
extra) is the API the consumer's code was written against.
"""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name


def baseline_from_requires(requires: list[str], target_dist: str) -> tuple[str | None, str]:
    """(spec like 'vllm==0.11.0' or None, a sentence saying where it came from or why not)."""
    want = canonicalize_name(target_dist)
    ranges = []
    for line in requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != want:
            continue
        pins = [s for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
        where = f"Requires-Dist: {line}"
        if pins:
            return f"{req.name}=={pins[0].version}", f"from the consumer's metadata ({where})"
        ranges.append(line)
    if ranges:
        return None, f"the consumer only gives a range ({ranges[0]}); pass --baseline {target_dist}==VERSION"
    return None, f"the consumer's metadata names no {target_dist} version; pass --baseline {target_dist}==VERSION"
