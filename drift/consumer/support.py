"""Whether a consumer supports a range of vLLM releases, so its fixes must keep the older one working.

Why: verl 0.6.1 requires `vllm>=0.8.5,<=0.11.0`; its maintainers' next release widened that to
`<=0.12.0` and kept `>=0.8.5`, so every edit for 0.12 had to leave 0.11 working. A consumer
pinned to one release (`vllm==0.11.0`, as speculators is) moves with the pin and takes plain
edits. The decision is read from `supports` in drift.toml when given (the maintainers say so),
else from the consumer's own Requires-Dist on vLLM (any extra).
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version


@dataclass(frozen=True)
class Support:
    is_range: bool
    why: str  # one sentence: where the decision came from


def _admits(spec: SpecifierSet, version: str) -> bool:
    try:
        return spec.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def _single(spec: SpecifierSet) -> bool:
    return any(s.operator in ("==", "===") and "*" not in s.version for s in spec)


def valid_range(text: str) -> bool:
    """Whether `supports = ...` is a version range packaging can read."""
    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        return False
    return True


def support(requires: list[str], *, baseline: str | None, declared: str | None = None,
            dist: str = "vllm") -> Support:
    """A range consumer: its supported releases (declared, else its requirement on `dist`)
    admit the baseline and are not a single pinned release."""
    if not baseline:
        return Support(False, "no baseline is known, so no older release to keep working")
    if declared:
        try:
            spec = SpecifierSet(declared)
        except InvalidSpecifier:
            return Support(False, f"supports = {declared!r} in drift.toml is not a version range")
        source = f"supports = {declared!r} in drift.toml"
    else:
        want = canonicalize_name(dist)
        for line in requires:
            try:
                req = Requirement(line)
            except InvalidRequirement:
                continue
            if canonicalize_name(req.name) == want:
                spec, source = req.specifier, f"Requires-Dist: {line}"
                break
        else:
            return Support(False, f"the consumer's metadata names no {dist} requirement")
    if _single(spec):
        return Support(False, f"{source} pins one release")
    if not _admits(spec, baseline):
        return Support(False, f"{source} does not admit the baseline {baseline}")
    return Support(True, f"{source} admits the baseline {baseline} and more: edits keep it working")
