"""A consumer's copy of a target function that lacks a step the target's own version now takes.

Why: plugins and fine-tuning libraries copy vLLM's code into their own classes (a model runner's
`initialize_kv_cache`, a LoRA manager's `_load_adapter`) and install it in vLLM's place or beside
it. When vLLM's version gains a step (a new initializer call, a mapper transformed before it is
passed on, a method renamed and called under its new name), the copy silently keeps the old
behaviour: no name, signature or import the consumer uses changes, so no other rule sees it.

Inference, over the statement shapes both probes record (probes/copies.py): a consumer function
is a copy of a baseline function of its name when it keeps, in order, at least `MIN_RATIO` of the
baseline's statements (and at least `MIN_KEPT`; a copy may add its own);
the baseline's candidates are the method it overrides through its class's target bases, and any
function or method of the same name defined in at most `MAX_HOMES` of the baseline's modules (a
copy that subclasses nothing, or is assigned over vLLM's name). The target's version is the
definition of the same dotted name. Each step the target's version inserts or rewrites, that
neither the baseline's version nor the copy has and that calls a function new in the target
(defined there, not in the baseline) that the copy never names (a new initializer, a method
under its new name), is what the copy lacks; a rewritten line calling what it called before or a
helper the baseline already had (a kernel's new cast, `torch.empty`, a log line) is not a step. A copy that differs from the baseline only cosmetically (renamed locals,
reworded strings, comments) has the same shape and stays silent, and so does a copy of a function
whose target version changed only cosmetically. A verbatim copy is stale as a whole: one finding at its
`def` line (the fix is to copy the target's version). In an edited copy the finding sits where
the step belongs: the copy's statement matching the rewritten (or preceding) baseline statement,
found by position, or in a stretch the consumer edited by a shared called or read name.

Risky: the copy may have been written not to take the step; what the step does decides.
"""

from __future__ import annotations

import builtins
from difflib import SequenceMatcher
from typing import Any, Iterator, Sequence

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _consumer_classes, _lookup_method
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ClassFacts, FunctionFacts, ModuleFacts
from drift.model.index import PackageIndex, def_of

MIN_RATIO = 0.4  # share of the baseline's statements a copy keeps (the same name is the other half of the evidence)
MIN_KEPT = 5  # statements a copy keeps at least
MAX_HOMES = 6  # a name defined in more modules than this is too common to pair by name alone
_QUIET_CALLS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "print",
                          "log", "info_once", "warning_once", "debug_once"})

# names every program calls or reads: a builtin or a method of a builtin container is no step of
# vLLM's own, and no evidence of where an edited copy keeps one
_GENERIC = frozenset(dir(builtins)) | {n for t in (dict, list, set, str, tuple) for n in dir(t)}

Row = Sequence[Any]  # [hash, line, calls, attributes]


def _defs_named(index: PackageIndex, name: str) -> dict[str, tuple[str, FunctionFacts]]:
    """dotted -> (path, facts) of every function or method called `name`, where few modules define it."""
    def compute() -> dict[str, tuple[str, FunctionFacts]]:
        modules = index.modules_mentioning(def_of(name))
        if len(modules) > MAX_HOMES:
            return {}
        out: dict[str, tuple[str, FunctionFacts]] = {}
        for mod_name in modules:
            mod = ModuleFacts(index.modules[mod_name])
            fn = mod.functions.get(name)
            if fn is not None:
                out[f"{mod_name}.{name}"] = (mod.path, fn)
            for cname, c in mod.classes.items():
                m = ClassFacts(c.raw).methods.get(name)
                if m is not None:
                    out[f"{mod_name}.{cname}.{name}"] = (mod.path, m)
        return out
    return index.memo("copies_defs_named", name, compute)


def _hashes(shape: Sequence[Row]) -> list[str]:
    return [row[0] for row in shape]


def _ratio(copy: Sequence[Row], before: Sequence[Row]) -> float:
    """Share of the baseline's statements the copy keeps, in order (a copy may add its own), or 0
    when fewer than `MIN_KEPT` are kept: a few generic statements make no copy."""
    kept = sum(b.size for b in SequenceMatcher(None, _hashes(copy), _hashes(before),
                                               autojunk=False).get_matching_blocks())
    return kept / len(before) if kept >= MIN_KEPT else 0.0


def _new_steps(ctx: CheckContext, copy: Sequence[Row], before: Sequence[Row],
               after: Sequence[Row]) -> list[tuple[int, int, list[Row], list[str]]]:
    """(baseline index, baseline end, rows, new calls) of each stretch the target inserted or
    rewrote with a statement that calls a function new in the target (defined there, not in the
    baseline) that the baseline's version never called and the copy never names: a new
    initializer, a method under its new name. A rewritten kernel line, a new log line, a builtin
    or a helper the baseline already had (`torch.empty`, `round_up`) is not a step."""
    have = set(_hashes(copy)) | set(_hashes(before))
    known = {c for row in before for c in row[2]} | {w for row in copy for w in (*row[2], *row[3])}
    out = []
    matcher = SequenceMatcher(None, _hashes(before), _hashes(after), autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op not in ("insert", "replace"):
            continue
        rows, calls = [], []
        for row in after[j1:j2]:
            new = [c for c in row[2] if c not in known and c not in _QUIET_CALLS and c not in _GENERIC
                   and _defines(ctx.target, c) and not _defines(ctx.baseline, c)]
            if row[0] not in have and new:
                rows.append(row)
                calls.extend(c for c in new if c not in calls)
        if rows:
            out.append((i1, i2, rows, calls))
    return out


def _defines(index: PackageIndex, name: str) -> bool:
    """Whether the release defines a function, method or class called `name`: read from the facts
    of the modules whose text can hold `def name` (every module where the sources are not at hand)."""
    def compute() -> bool:
        for mod_name in index.modules_mentioning(def_of(name)):
            mod = ModuleFacts(index.modules[mod_name])
            if name in mod.functions or any(name in c.methods for c in mod.classes.values()):
                return True
        return bool(index.definitions_named(name))
    return index.memo("copies_defines", name, compute)


def _anchor(copy: Sequence[Row], before: Sequence[Row], i1: int, i2: int) -> int:
    """The copy's line where the step at baseline rows [i1, i2) belongs."""
    pairs = {}
    for block in SequenceMatcher(None, _hashes(before), _hashes(copy), autojunk=False).get_matching_blocks():
        for k in range(block.size):
            pairs[block.a + k] = block.b + k
    lo = max((pairs[i] for i in pairs if i < i1), default=-1)
    hi = min((pairs[i] for i in pairs if i >= i2), default=len(copy))
    gap = copy[lo + 1:hi]

    def words(row: Row) -> set[str]:
        return (set(row[2]) | set(row[3])) - _GENERIC

    def attrs(row: Row) -> set[str]:
        return set(row[3]) - _GENERIC

    for i in range(i1, i2):  # a rewritten statement: the copy's own, or its edited version
        if i in pairs:
            return copy[pairs[i]][1]
        shared = [r for r in gap if words(r) & words(before[i])]
        if shared:
            return shared[0][1]
    if i1 - 1 in pairs:  # an inserted step: after the statement it follows
        return copy[pairs[i1 - 1]][1]
    if i1 > 0:  # after the last of the copy's statements reading what it read (or calling it)
        for same in (attrs, words):
            shared = [r for r in gap if same(r) & same(before[i1 - 1])]
            if shared:
                return shared[-1][1]
    return (gap[-1] if gap else copy[max(lo, 0)])[1]


def _candidates(ctx: CheckContext, name: str, override: Any) -> Iterator[tuple[str, str, FunctionFacts]]:
    """(dotted, path, baseline facts) of the functions the consumer's `name` may copy."""
    if override is not None:
        yield override.dotted, override.path, FunctionFacts(override.facts)
    for dotted, (path, fn) in _defs_named(ctx.baseline, name).items():
        if override is None or dotted != override.dotted:
            yield dotted, path, fn


def _target_version(ctx: CheckContext, dotted: str) -> tuple[str, FunctionFacts] | None:
    """The target's definition of the same dotted name, when it is still a function."""
    sym = ctx.target.lookup(dotted)
    if sym is None or sym.kind not in ("function", "method"):
        return None
    return sym.path, FunctionFacts(sym.facts)


def _consumer_functions(ctx: CheckContext) -> Iterator[tuple[str, str, str, dict, Any]]:
    """(symbol, path, name, record, overridden baseline method or None) of every consumer function
    with a recorded shape."""
    seen = set()
    for ref, cls, tb, bb in _consumer_classes(ctx):
        seen.add(ref)
        path = (ctx.consumer.modules.get(cls["module"]) or {}).get("path") or cls.get("path") or "?"
        for name, m in (cls.get("methods") or {}).items():
            if m.get("shape"):
                yield f"{ref}.{name}", path, name, m, _lookup_method(ctx.baseline, bb, name) if bb else None
    for ref, cls in ctx.consumer.classes.items():
        if ref in seen:
            continue
        path = (ctx.consumer.modules.get(cls["module"]) or {}).get("path") or cls.get("path") or "?"
        for name, m in (cls.get("methods") or {}).items():
            if m.get("shape"):
                yield f"{ref}.{name}", path, name, m, None
    for mod_name, mod in ctx.consumer.modules.items():
        for qual, fn in (mod.get("functions") or {}).items():
            if fn.get("shape") and "." not in qual:
                yield f"{mod_name}.{qual}", mod.get("path") or "?", qual, fn, None


@rule("DRIFT118", RuleKind.COPY_STALE, Severity.RISKY)
def copy_lacks_new_step(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer function that is a copy of a baseline function (its statements match the
    baseline's, cosmetic differences aside: the method it overrides, or a function of the same
    name few modules define) lacks a step the target's version of that function now takes: a
    statement the target inserted or rewrote that calls a function new in the target, which
    neither the baseline's version nor the copy has. The copy silently keeps the old behaviour."""
    if ctx.baseline is None:
        return
    for symbol, path, name, rec, override in _consumer_functions(ctx):
        copy = rec["shape"]
        best = None
        for dotted, bpath, bfn in _candidates(ctx, name, override):
            before = bfn.behaviour.shape
            if not before:
                continue
            ratio = _ratio(copy, before)
            if ratio >= MIN_RATIO and (best is None or ratio > best[0]):
                best = (ratio, dotted, bpath, bfn)
        if best is None:
            continue
        ratio, dotted, bpath, bfn = best
        target = _target_version(ctx, dotted)
        if target is None:
            continue
        tpath, tfn = target
        before, after = bfn.behaviour.shape, tfn.behaviour.shape
        if not after or _hashes(before) == _hashes(after):
            continue
        whole = _hashes(copy) == _hashes(before)  # a verbatim copy is stale as a whole: its def line
        for i1, i2, rows, calls in _new_steps(ctx, copy, before, after):
            line = rec.get("line") or 1 if whole else _anchor(copy, before, i1, i2)
            yield _finding(symbol, path, line, dotted, (bpath, bfn), (tpath, tfn), rows, calls, ratio,
                           replaced=i2 > i1)
            if whole:
                break


def _finding(symbol: str, path: str, line: int, dotted: str, base: tuple[str, FunctionFacts],
             target: tuple[str, FunctionFacts], rows: list[Row], calls: list[str], ratio: float, *,
             replaced: bool) -> Finding:
    named = ", ".join(f"`{c}()`" for c in calls[:4])
    short = dotted.rsplit(".", 2)
    label = ".".join(short[-2:]) if len(short) > 2 else short[-1]
    bpath, bfn = base
    tpath, _ = target
    how = "rewrote a step of it, which now calls" if replaced else "added a step that calls"
    return Finding(
        rule_id="DRIFT118", kind=RuleKind.COPY_STALE, severity=Severity.RISKY,
        title=f"`{symbol.rsplit('.', 1)[-1]}` is a copy of `{label}`, whose target version {how} {named}; "
              f"the copy does not",
        consumer_site=Location(path, line, symbol=symbol),
        target_evidence=tuple(Location(tpath, r[1], symbol=f"{dotted}: {', '.join(r[2])}") for r in rows[:3]),
        baseline_evidence=(Location(bpath, bfn.line or 1, symbol=dotted),),
        predicted_failure=None,
        details=f"{ratio:.0%} of the copy's statements match the baseline's `{label}`; the target's version "
                f"takes a step neither has, so the copy silently keeps the baseline's behaviour",
        fix=Fix(f"bring the copy up to the target's `{label}` (the step at line {rows[0][1]} of {tpath})",
                manual_reason="whether the copy should take the new step depends on why it was copied"),
        symbol=dotted,
    )


RULES = [copy_lacks_new_step]
