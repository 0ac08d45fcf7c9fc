"""Attribute-owner moves learned from the target's own migration (`a.scheduler_config.max_model_len`
-> `a.model_config.max_model_len`).

Why: when a value leaves one object for another (a dataclass field turned InitVar, kept on a
sibling config now), the target's maintainers rewrote their own reads of it between the two
releases. Where the same function of the same file read `<x>.B.attr` in the baseline and reads
`<y>.C.attr` in the target, for the same purpose, that is an edge `B.attr -> C.attr` a consumer's
read can follow. The evidence is read from facts only, never from source: what a function stores
on `self` (`self.n = vllm_config.scheduler_config.max_model_len`, the probe's `self_types`) and
the keywords of a constructor call it makes (`ctor_calls`), matched slot for slot (the same
`self.<name>`, the same callee and keyword) across the two releases.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from drift.analysis.rules.values import _functions, ctor_calls
from drift.model.facts import CtorCall
from drift.model.index import PackageIndex, word

_CHAIN = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


@dataclass(frozen=True)
class OwnerMove:
    old: str  # the owner attribute the baseline read through (`scheduler_config`)
    new: str  # the one the target reads through instead (`model_config`)
    attr: str
    sites: tuple[tuple[str, str], ...]  # (path, function) of each rewritten read in the target's code

    @property
    def edit(self) -> str:
        return f"{self.old}.{self.attr} → {self.new}.{self.attr}"


def _owner_of(chain: str) -> tuple[str, str] | None:
    """(owner, attr) of a dotted read `a.b.owner.attr`; None for anything else."""
    chain = chain.strip()
    if not _CHAIN.match(chain):
        return None
    parts = chain.split(".")
    return parts[-2], parts[-1]


def _build_reads(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[list[str]]]:
    """attr -> [[path, function, slot, owner]] of every dotted read `<...>.owner.attr` a function
    stores on self or passes as a constructor keyword (plain lists: the answer is stored)."""
    out: dict[str, list[list[str]]] = {}
    for _name, mod, fn in _functions(index, modules):
        where = fn.qualname or fn.name
        for slot, kind in fn.behaviour.self_types.items():
            if isinstance(kind, str) and kind.startswith("attr:"):
                hit = _owner_of(kind[5:])
                if hit:
                    out.setdefault(hit[1], []).append([mod.path, where, f"self.{slot}", hit[0]])
        for call in fn.behaviour.ctor_calls:
            for kw, value in call.keywords.items():
                hit = _owner_of(call.locals.get(value, value) if isinstance(value, str) else "")
                if hit:
                    out.setdefault(hit[1], []).append([mod.path, where, f"{call.callee}({kw}=)", hit[0]])
    return out


def _reads(index: PackageIndex, attr: str) -> list[list[str]]:
    return index.query("owner_reads", attr, needle=word(attr), build=_build_reads, default=[], scoped=True)


def owner_move(baseline: PackageIndex | None, target: PackageIndex, old: str, attr: str) -> OwnerMove | None:
    """The owner the target's own code moved its reads of `old.attr` to, when it did so
    consistently (every rewritten slot agrees on one new owner); None otherwise."""
    if baseline is None:
        return None
    before = {(p, f, s) for p, f, s, owner in _reads(baseline, attr) if owner == old}
    if not before:
        return None
    now: dict[str, list[tuple[str, str]]] = {}
    for p, f, s, owner in _reads(target, attr):
        if (p, f, s) in before and owner != old:
            now.setdefault(owner, []).append((p, f))
    if len(now) != 1:
        return None  # no rewrite, or rewrites that disagree: no edge to follow
    (new, sites), = now.items()
    return OwnerMove(old=old, new=new, attr=attr, sites=tuple(sorted(set(sites))))


def _class_name(owner: str) -> str:
    """`scheduler_config` -> `SchedulerConfig`: the class vLLM names its config attributes after."""
    return "".join(part[:1].upper() + part[1:] for part in owner.split("_") if part)


def baseline_fills(baseline: PackageIndex | None, move: OwnerMove) -> tuple[str, str] | None:
    """(path, function) where the baseline builds the old owner from the new one's value
    (`SchedulerConfig(..., max_model_len=model_config.max_model_len)`): there the two reads gave
    the same value, so following the target's rewrite cannot change what the consumer reads."""
    if baseline is None:
        return None
    for entry in ctor_calls(baseline, _class_name(move.old)):
        call = CtorCall(entry["call"])
        src = call.keywords.get(move.attr)
        if not isinstance(src, str):
            continue
        hit = _owner_of(call.locals.get(src, src))
        if hit == (move.new, move.attr):
            return entry["path"], entry["function"]
    return None
