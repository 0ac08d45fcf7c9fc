"""The baseline a consumer was written for, read from its own metadata.

`speculators` 0.3.0 says `Requires-Dist: vllm==0.11.0; extra == "datagen"`: that pin (in any
extra) is the API the consumer's code was written against.
"""

from __future__ import annotations

from typing import Callable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version


def _index_versions(name: str) -> list[str]:
    from drift.sources.fetch import index_versions

    return index_versions(name)


def baseline_from_requires(requires: list[str], target_dist: str, *,
                           versions: Callable[[str], list[str]] | None = _index_versions) -> tuple[str | None, str]:
    """(spec like 'vllm==0.11.0' or None, a sentence saying where it came from or why not).

    A range (`vllm>=0.10.2,<0.12.0`) means the highest release it admits: the newest API the
    consumer's maintainers said it works with (asked of the index with `versions`)."""
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
    if ranges and versions is not None:
        req = Requirement(ranges[0])
        try:
            known = versions(req.name)
        except Exception as exc:  # noqa: BLE001 - an index we cannot ask leaves the range unresolved
            return None, (f"the consumer only gives a range ({ranges[0]}) and the index could not be asked "
                          f"({exc}); pass --baseline {target_dist}==VERSION")
        admitted = []
        for v in known:
            try:
                parsed = Version(v)
            except InvalidVersion:
                continue
            if not parsed.is_prerelease and req.specifier.contains(parsed):
                admitted.append(parsed)
        if admitted:
            best = max(admitted)
            return f"{req.name}=={best}", (f"the highest release admitted by the consumer's range "
                                           f"(Requires-Dist: {ranges[0]})")
    if ranges:
        return None, f"the consumer only gives a range ({ranges[0]}); pass --baseline {target_dist}==VERSION"
    return None, f"the consumer's metadata names no {target_dist} version; pass --baseline {target_dist}==VERSION"
