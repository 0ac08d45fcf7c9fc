"""The baseline's stand-in for a consumer class's base that only the target defines.

Why: a consumer is sometimes written against a vLLM snapshot newer than the release pinned as
its baseline: the class it extends exists on the target but not on the baseline (a class split
out of an older one, a module turned into a package). The rules that compare an override or a
base's abstract methods across the two sides would then compare against nothing, and either
skip the class (a changed call to its override goes unreported) or treat "no baseline base" as
"no abstract methods before" (every abstract method counted as new). The nearest ancestor of
the target's base that the baseline does define is what both sides share: the contract the
baseline's callers held the class to.
"""

from __future__ import annotations

from drift.model.index import PackageIndex, Symbol


def nearest_shared_ancestors(target: PackageIndex, baseline: PackageIndex, bases: list[Symbol]) -> list[Symbol]:
    """For each target base, the first class of its target MRO (after itself) that the baseline
    defines under the same dotted name, as the baseline's symbol; without repeats, in order.
    Empty where no ancestor is shared."""
    out: list[Symbol] = []
    seen: set[str] = set()
    for base in bases:
        for anc in target.mro(base)[1:]:
            sym = baseline.lookup(anc.dotted)
            if sym is not None and sym.kind == "class":
                if sym.dotted not in seen:
                    seen.add(sym.dotted)
                    out.append(sym)
                break
    return out
